// The tuned application kernels of the suite (measure/suite/tuned_kernels.hpp) against independent
// counts. Their bodies are templates on the value type, so each one is run here, on the catalogue's own
// instance for a machine with tiny caches (or a small one where the catalogue's is too large), with
// `Tracked`, a number type that counts every arithmetic operation and marks every array element it
// reads or writes. The test checks:
//  - flops per iteration (operations counted in the real body / iterations) == the declaration;
//  - compulsory traffic (distinct elements touched, written ones twice for write-allocate) against the
//    declared memory traffic where the declaration says the data streams from memory;
//  - the same result as the untuned body on the same input (within float or double rounding);
//  - the sizes the catalogue chose satisfy the conditions it states (layer conditions, cache shares).
// The bodies' `omp simd` loops cannot vectorize a class type; clang reports that as a failed requested
// transformation, which is expected here (the double and float instantiations vectorize).
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
#include "core/process.hpp"
#include "experiment/suite_catalogue.hpp"
#include "measure/disasm.hpp"
#include "measure/suite/kernels.hpp"
#include "measure/suite/runners.hpp"
#include "measure/suite/tuned_kernels.hpp"
#include "model/kernel.hpp"
#include "tiny_machine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

using namespace roofcast;
using namespace roofcast::model;
namespace sw = roofcast::measure::suite;

namespace {

// ---- A counting, tracking number type ----------------------------------------------------------------
struct Region {
    const void* begin = nullptr;
    std::size_t count = 0, elem = 0;
    std::vector<char> read, written;
};

struct Tally {
    double flops = 0;
    std::vector<Region> regions;
    void mark(const void* p, bool write) {
        for (auto& r : regions) {
            const auto* b = static_cast<const char*>(r.begin);
            const auto* c = static_cast<const char*>(p);
            if (c >= b && c < b + r.count * r.elem) {
                const auto i = static_cast<std::size_t>(c - b) / r.elem;
                (write ? r.written : r.read)[i] = 1;
                return;
            }
        }
    }
    // Distinct elements touched, each written element once more (write-allocate; not with non-temporal
    // stores), in bytes.
    double compulsory_bytes(bool write_allocate = true) const {
        double b = 0;
        for (const auto& r : regions)
            for (std::size_t i = 0; i < r.count; ++i)
                b += static_cast<double>(r.elem) *
                     ((r.read[i] || r.written[i] ? 1 : 0) + (write_allocate && r.written[i] ? 1 : 0));
        return b;
    }
};
Tally g_tally;

template <class T> void track(const std::vector<T>& v) {
    g_tally.regions.push_back(
        {v.data(), v.size(), sizeof(T), std::vector<char>(v.size(), 0), std::vector<char>(v.size(), 0)});
}

// Every operation on two values is one flop; copying an element out of a tracked array reads it,
// assigning into one writes it.
struct Tracked {
    double v = 0;
    Tracked() = default;
    Tracked(double x) : v(x) {} // NOLINT: literals of the bodies (T(0), omega)
    Tracked(const Tracked& o) : v(o.v) { g_tally.mark(&o, false); }
    Tracked& operator=(const Tracked& o) {
        g_tally.mark(&o, false);
        g_tally.mark(this, true);
        v = o.v;
        return *this;
    }
    Tracked& operator+=(const Tracked& o) {
        g_tally.mark(&o, false);
        g_tally.mark(this, false);
        g_tally.mark(this, true);
        g_tally.flops += 1;
        v += o.v;
        return *this;
    }
    explicit operator double() const { return v; }
};
Tracked binary(const Tracked& a, const Tracked& b, double r) {
    g_tally.mark(&a, false);
    g_tally.mark(&b, false);
    g_tally.flops += 1;
    Tracked t;
    t.v = r;
    return t;
}
Tracked operator+(const Tracked& a, const Tracked& b) {
    return binary(a, b, a.v + b.v);
}
Tracked operator-(const Tracked& a, const Tracked& b) {
    return binary(a, b, a.v - b.v);
}
Tracked operator*(const Tracked& a, const Tracked& b) {
    return binary(a, b, a.v * b.v);
}

using test::tiny_machine;

const SuiteKernel& tuned_kernel(const std::vector<SuiteKernel>& cat, const std::string& name) {
    for (const auto& k : cat)
        if (k.name == name)
            return k;
    throw std::runtime_error("no kernel " + name);
}

class SuiteTuned : public ::testing::Test {
protected:
    void SetUp() override { g_tally = Tally{}; }
    core::Machine m = tiny_machine();
    std::vector<SuiteKernel> cat = suite_catalogue(m, 1, "tiny");
};

} // namespace

// The code a kernel's diagnosis disassembles is the kernel's: the first innermost loop of its code symbol
// (the one with the most arithmetic per pass) does at least one iteration's flops per pass. Read from this
// test binary, which links the same bodies; skipped where objdump or nm is missing.
TEST_F(SuiteTuned, EveryCodeSymbolLeadsToTheKernelsOwnLoop) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "sanitizer build (-O1): its inlining and loops are not the release build's, whose code "
                    "the code symbols name";
#endif
    if (!core::find_in_path("objdump") || !core::find_in_path("nm"))
        GTEST_SKIP() << "objdump or nm not on PATH (binutils): the code symbols cannot be inspected here";
    int inspected = 0;
    for (const SuiteKernel& k : cat) {
        if (k.code_symbol.empty())
            continue;
        SCOPED_TRACE(k.name + ": " + k.code_symbol);
        const measure::CodeInspection ci = measure::inspect_function(measure::self_binary(), k.code_symbol);
        ASSERT_FALSE(ci.loops.empty()) << ci.unavailable;
        EXPECT_GE(ci.loops.front().flops_per_pass(k.spec.precision == "single"), k.spec.flops_per_iteration);
        ++inspected;
    }
    EXPECT_GE(inspected, 8); // the four application kernels and their tuned forms
}

TEST_F(SuiteTuned, EachTunedKernelFollowsItsUntunedFormInTheAppsSuite) {
    for (const std::string name : {"jacobi-3d-7pt", "himeno", "spmv-csr", "matmul-blocked"}) {
        std::size_t at = cat.size();
        for (std::size_t i = 0; i < cat.size(); ++i)
            if (cat[i].name == name)
                at = i;
        ASSERT_LT(at + 1, cat.size()) << name;
        EXPECT_EQ(cat[at + 1].name, name + "-tuned");
        EXPECT_EQ(cat[at + 1].suite, "apps");
        EXPECT_EQ(cat[at + 1].spec.precision, cat[at].spec.precision) << name;
        EXPECT_DOUBLE_EQ(cat[at + 1].spec.flops_per_iteration, cat[at].spec.flops_per_iteration) << name;
    }
}

TEST_F(SuiteTuned, HimenoMergedCountsAndResult) {
    const SuiteKernel& k = tuned_kernel(cat, "himeno-tuned");
    const auto& d = k.spec.loop->arrays[0].dims;
    const auto nk = static_cast<std::size_t>(d[0]), nj = static_cast<std::size_t>(d[1]),
               ni = static_cast<std::size_t>(d[2]);
    ASSERT_EQ(ni % sw::k_himeno_lanes, 0u);
    const std::size_t pts = nk * nj * ni;
    // Separate arrays for the untuned body, the merged array for the tuned one, same values.
    std::vector<std::vector<float>> f(14, std::vector<float>(pts));
    for (std::size_t q = 0; q < 13; ++q)
        for (std::size_t x = 0; x < pts; ++x)
            f[q][x] = static_cast<float>(0.5 + 0.03125 * static_cast<double>((x + 3 * q) % 16));
    // f: a0..a3 b0..b2 c0..c2 p bnd wrk1 wrk2 (himeno_body's order); merged: a0..a3 b0..b2 c0..c2 bnd wrk1.
    const std::size_t field[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12};
    std::vector<float> coef(pts * 12), wrk2(pts, 0.0f);
    std::vector<Tracked> tcoef(pts * 12), tp(pts), twrk2(pts);
    for (std::size_t x = 0; x < pts; ++x) {
        for (std::size_t q = 0; q < 12; ++q) {
            coef[sw::himeno_merged_index(x, q)] = f[field[q]][x];
            tcoef[sw::himeno_merged_index(x, q)].v = f[field[q]][x];
        }
        tp[x].v = f[10][x];
    }
    const float omega = 0.8f;
    std::vector<float*> views;
    for (auto& a : f)
        views.push_back(a.data());
    const sw::HimenoArrays h = sw::himeno_arrays(views.data());
    const double gosa = sw::himeno_body(h, omega, nk, nj, ni);
    const double gosa_tuned =
        sw::himeno_merged_body(coef.data(), f[10].data(), wrk2.data(), omega, nk, nj, ni);
    EXPECT_NEAR(gosa_tuned, gosa, 1e-5 * std::fabs(gosa));
    for (std::size_t x = 0; x < pts; ++x)
        ASSERT_NEAR(wrk2[x], f[13][x], 1e-5f * (1 + std::fabs(f[13][x]))) << x;

    track(tcoef);
    track(tp);
    track(twrk2);
    sw::himeno_merged_body(tcoef.data(), tp.data(), twrk2.data(), Tracked(omega), nk, nj, ni);
    const double its = *k.spec.iterations;
    EXPECT_DOUBLE_EQ(static_cast<double>((nk - 2) * (nj - 2) * (ni - 2)), its);
    EXPECT_DOUBLE_EQ(g_tally.flops / its, k.spec.flops_per_iteration); // 34
    // The merged array holds the same data as the 12 arrays: the declared traffic is the untuned one's
    // at every level, and the compulsory bytes lie between the declared memory traffic and that times
    // the halo factor (points per iteration), as for the untuned kernel (test_suite_counts.cpp).
    const Traffic t = derive_traffic(k.spec, m, 1);
    EXPECT_EQ(t.bytes, derive_traffic(tuned_kernel(cat, "himeno").spec, m, 1).bytes);
    const double counted = g_tally.compulsory_bytes() / its;
    EXPECT_GE(counted, t.bytes.at("MEM") * (1 - 1e-9));
    EXPECT_LE(counted, t.bytes.at("MEM") * static_cast<double>(pts) / its);
    EXPECT_GE(counted, 60.0); // 12 coefficients, p, wrk2 and its write-allocate: 15 x 4 B per point
}

TEST_F(SuiteTuned, JacobiBlockedSizesFollowTheLayerConditions) {
    // Caches of a real core (32 KiB L1, 512 KiB L2, 8 MiB L3): the tiny machine's L1 is below the
    // shortest row the catalogue allows (64 elements).
    core::Machine m = tiny_machine();
    m.topology->caches = {{"L1", 32768, 64, {}, 1, 1, {}, ""},
                          {"L2", 524288, 64, {}, 1, 1, {}, ""},
                          {"L3", 8 << 20, 64, {}, 1, 1, {}, ""}};
    const std::vector<SuiteKernel> cat = suite_catalogue(m, 1, "real");
    const SuiteKernel& k = tuned_kernel(cat, "jacobi-3d-7pt-tuned");
    const LoopNest& nest = *k.spec.loop;
    const long jb = nest.bounds[1], ni = nest.arrays[0].dims[2];
    // The block's loop nest: the 2-D condition holds in L1 (the L2 level moves one row of each of the
    // k - 1, k, k + 1 layers of a and b's non-temporal store, no write-allocate: 32 B), the 3-D condition
    // in L2 (beyond L2 only the leading layer of a and b: 16 B).
    ASSERT_TRUE(k.spec.nt_stores);
    const Traffic t = derive_traffic(k.spec, m, 1);
    EXPECT_DOUBLE_EQ(t.bytes.at("L2"), 32.0);
    EXPECT_DOUBLE_EQ(t.bytes.at("L3"), 16.0);
    EXPECT_DOUBLE_EQ(t.bytes.at("MEM"), 16.0);
    // jb is the largest block for which it holds: one more row and the 3-D condition fails in L2.
    KernelSpec bigger = k.spec;
    bigger.loop->bounds[1] = jb + 1;
    bigger.loop->arrays[0].dims[1] = bigger.loop->arrays[1].dims[1] = jb + 3;
    EXPECT_GT(derive_traffic(bigger, m, 1).bytes.at("L3"), 16.0);
    // ni is the longest row (a multiple of 8, not a power of two) for which the 2-D condition holds in
    // L1 for the two rows the body sweeps side by side: their reuse distances are twice one row's, so
    // 2 x 8 (6 ni - 4) B <= L1 / 2; the next such row breaks it. The nest declares one row, whose
    // condition then holds with room to spare (40 B at L2 above).
    EXPECT_EQ(ni % 8, 0);
    EXPECT_NE(ni & (ni - 1), 0);
    const double half_l1 = 0.5 * 32768;
    EXPECT_LE(2.0 * 8.0 * static_cast<double>(6 * ni - 4), half_l1);
    const long next = ((ni + 8) & (ni + 7)) == 0 ? ni + 16 : ni + 8;
    EXPECT_GT(2.0 * 8.0 * static_cast<double>(6 * next - 4), half_l1);
    // Without blocking, the grid's whole planes: the 3-D condition fails in L2.
    const sw::Grid3 g{static_cast<std::size_t>(nest.arrays[0].dims[0]), 0, static_cast<std::size_t>(ni)};
    KernelSpec whole = k.spec;
    const double its = *k.spec.iterations;
    const long nj = static_cast<long>(its / static_cast<double>((g.nk - 2) * (g.ni - 2))) + 2;
    whole.loop->bounds[1] = nj - 2;
    whole.loop->arrays[0].dims[1] = whole.loop->arrays[1].dims[1] = nj;
    EXPECT_GT(derive_traffic(whole, m, 1).bytes.at("L3"), 16.0);
    EXPECT_EQ((nj - 2) % jb, 0);
    EXPECT_GE((nj - 2) / jb, 4);
}

TEST_F(SuiteTuned, JacobiBlockedCountsAndResult) {
    const SuiteKernel& k = tuned_kernel(cat, "jacobi-3d-7pt-tuned");
    const LoopNest& nest = *k.spec.loop;
    const auto jb = static_cast<std::size_t>(nest.bounds[1]);
    const auto nk = static_cast<std::size_t>(nest.arrays[0].dims[0]);
    const auto ni = static_cast<std::size_t>(nest.arrays[0].dims[2]);
    const double its = *k.spec.iterations;
    const auto nj = static_cast<std::size_t>(its / static_cast<double>((nk - 2) * (ni - 2))) + 2;
    const std::size_t pts = nk * nj * ni;
    // b and bt start as copies of a (the fixed boundary in both arrays, as the runner sets it). bt in the
    // runner's layout: (1, 1, 1) on a 64-byte boundary, where the double body streams its rows; unaligned,
    // where it takes the element loop. Both give the untuned body's result, boundary included.
    constexpr std::size_t line = 64 / sizeof(double);
    std::vector<double> a(pts), b(pts), bt_store(pts + 2 * line), bu_store(pts + 2 * line);
    std::vector<Tracked> ta(pts), tb(pts);
    for (std::size_t x = 0; x < pts; ++x)
        a[x] = ta[x].v = 1.0 + static_cast<double>(x % 5) * 0.25;
    const auto placed = [&](std::vector<double>& store, bool aligned) {
        double* p = store.data();
        for (std::size_t step = 0; step < 2 * line && sw::jacobi7_streams(p, nj, ni) != aligned; ++step)
            ++p;
        EXPECT_EQ(sw::jacobi7_streams(p, nj, ni), aligned);
        std::copy(a.begin(), a.end(), p);
        return p;
    };
    double* bt = placed(bt_store, true);
    double* bu = placed(bu_store, false);
    b = a;
    sw::jacobi7_body(b.data(), a.data(), 1.0 / 7.0, nk, nj, ni);
    sw::jacobi7_blocked_body(bt, a.data(), 1.0 / 7.0, nk, nj, ni, jb);
    sw::jacobi7_blocked_body(bu, a.data(), 1.0 / 7.0, nk, nj, ni, jb);
    for (std::size_t x = 0; x < pts; ++x) {
        ASSERT_DOUBLE_EQ(bt[x], b[x]) << x; // same expression, same order
        ASSERT_DOUBLE_EQ(bu[x], b[x]) << x;
    }
    track(ta);
    track(tb);
    sw::jacobi7_blocked_body(tb.data(), ta.data(), Tracked(1.0 / 7.0), nk, nj, ni, jb);
    EXPECT_DOUBLE_EQ(g_tally.flops / its, k.spec.flops_per_iteration); // 7
    const double declared = derive_traffic(k.spec, m, 1).bytes.at("MEM");
    // The element loop of the counting type reads and writes what the streaming rows do; their stores are
    // non-temporal: no write-allocate.
    const double counted = g_tally.compulsory_bytes(!k.spec.nt_stores) / its;
    EXPECT_GE(counted, declared);
    EXPECT_LE(counted, declared * static_cast<double>(pts) / its);
    EXPECT_DOUBLE_EQ(*k.spec.working_set_bytes, 16.0 * static_cast<double>(pts));
}

TEST_F(SuiteTuned, SpmvSellCountsAndResult) {
    const SuiteKernel& k = tuned_kernel(cat, "spmv-csr-tuned");
    constexpr int C = sw::k_vector_doubles;
    ASSERT_EQ(sw::sell_chunk_rows(), C);
    const std::size_t per = 16;
    const sw::SpmvShape shape{static_cast<std::size_t>(*k.spec.iterations) / per, 16, 64};
    const std::size_t rows = shape.rows, nnz = rows * per, chunks = rows / C;
    ASSERT_EQ(rows % C, 0u);
    // CSR (as run_spmv builds it) and the same matrix in SELL-C-1.
    std::vector<std::int32_t> col(nnz), scol(nnz), clen(chunks, 16);
    std::vector<std::int64_t> rp(rows + 1), cptr(chunks);
    std::vector<double> val(nnz), sval(nnz), x(rows), y(rows), ys(rows);
    std::vector<Tracked> tval(nnz), tx(rows), ty(rows);
    for (std::size_t r = 0; r < rows; ++r) {
        sw::spmv_columns(shape, r, col.data() + r * per);
        rp[r] = static_cast<std::int64_t>(r * per);
        x[r] = tx[r].v = 1.0 + static_cast<double>(r % 4);
        for (std::size_t j = 0; j < per; ++j) {
            const std::size_t e = r * per + j, s = (r / C) * C * per + j * C + r % C;
            val[e] = 1.0 / static_cast<double>(1 + e % 3);
            sval[s] = tval[s].v = val[e];
            scol[s] = col[e];
        }
    }
    rp[rows] = static_cast<std::int64_t>(nnz);
    for (std::size_t c = 0; c < chunks; ++c)
        cptr[c] = static_cast<std::int64_t>(c * C * per);
    sw::spmv_body(y.data(), val.data(), col.data(), rp.data(), x.data(), rows);
    sw::spmv_sell_body<C>(ys.data(), sval.data(), scol.data(), cptr.data(), clen.data(), x.data(), chunks);
    for (std::size_t r = 0; r < rows; ++r)
        ASSERT_NEAR(ys[r], y[r], 1e-12 * (1 + std::fabs(y[r]))) << r;
    // The gather instruction's variant computes the same products.
    std::fill(ys.begin(), ys.end(), 0.0);
    sw::spmv_sell_body<C, true>(ys.data(), sval.data(), scol.data(), cptr.data(), clen.data(), x.data(),
                                chunks);
    for (std::size_t r = 0; r < rows; ++r)
        ASSERT_NEAR(ys[r], y[r], 1e-12 * (1 + std::fabs(y[r]))) << r;
    // The run's variant is the faster of the two timed, and the diagnosis disassembles that one.
    const sw::SpmvGatherChoice& choice = sw::spmv_gather_choice();
    EXPECT_GT(choice.hardware_ns, 0.0);
    EXPECT_GT(choice.shuffle_ns, 0.0);
    EXPECT_EQ(choice.hardware, choice.hardware_ns < choice.shuffle_ns);
    EXPECT_EQ(k.code_symbol, "roofcast::measure::suite::spmv_sell_body<" + std::to_string(C) +
                                 (choice.hardware ? ", true" : ", false"));
    // The results carry the choice with its two times.
    ASSERT_EQ(k.notes.size(), 1u);
    EXPECT_EQ(k.notes[0].rfind(choice.hardware ? "x gathered with the gather instruction"
                                               : "x gathered with scalar loads and shuffles",
                               0),
              0u)
        << k.notes[0];
    std::printf(
        "SELL gather on this host: instruction %.3f ns, shuffles %.3f ns per non-zero (one thread, L2)\n",
        choice.hardware_ns, choice.shuffle_ns);
    track(tval);
    track(tx);
    track(ty);
    sw::spmv_sell_body<C>(ty.data(), tval.data(), scol.data(), cptr.data(), clen.data(), tx.data(), chunks);
    const double its = static_cast<double>(nnz);
    EXPECT_DOUBLE_EQ(g_tally.flops / its, k.spec.flops_per_iteration); // 2
    // Every value of val, x and y is touched; with the index arrays (col, chunk_ptr, chunk_len: read
    // whole by construction) the compulsory traffic is the declared memory traffic.
    const double index_bytes = static_cast<double>(nnz * 4 + chunks * (8 + 4));
    const double counted = (g_tally.compulsory_bytes() + index_bytes) / its;
    EXPECT_NEAR(counted, derive_traffic(k.spec, m, 1).bytes.at("MEM"), 1e-9);
}

TEST_F(SuiteTuned, MatmulPackedCountsAndResult) {
    // The catalogue's matmul is 512^3; flops per iteration do not depend on n, so the packed loops run
    // for an n that several row and k blocks divide (and one that leaves partial micro-panels).
    const SuiteKernel& k = tuned_kernel(cat, "matmul-blocked-tuned");
    const std::size_t mr = static_cast<std::size_t>(sw::k_gemm_mr),
                      nr = static_cast<std::size_t>(sw::k_gemm_nr);
    for (const std::size_t n : {4 * mr * nr / 2, 4 * mr * nr / 2 + 5}) {
        SCOPED_TRACE(n);
        const std::size_t mc = 2 * mr, kc = 16;
        std::vector<double> a(n * n), b(n * n), c(n * n, 0.0), ct(n * n, 0.0);
        std::vector<Tracked> ta(n * n), tb(n * n), tc(n * n);
        for (std::size_t x = 0; x < n * n; ++x) {
            a[x] = ta[x].v = 1.0 / static_cast<double>(1 + x % 7);
            b[x] = tb[x].v = 1.0 / static_cast<double>(1 + x % 5);
        }
        // The untuned body on a tile that divides n; both accumulate n products per element of C.
        const std::size_t tile = n % 8 == 0 ? 8 : n;
        sw::matmul_body(c.data(), a.data(), b.data(), n, tile);
        const std::size_t a_pack = (mc + mr - 1) / mr * mr * kc, b_pack = (n + nr - 1) / nr * nr * kc;
        std::vector<double> packs(a_pack + b_pack);
        sw::gemm_packed_body(ct.data(), a.data(), b.data(), n, mc, kc, packs.data(), packs.data() + a_pack);
        for (std::size_t x = 0; x < n * n; ++x)
            ASSERT_NEAR(ct[x], c[x], 1e-12 * static_cast<double>(n)) << x;
        if (n % mr != 0 || n % nr != 0)
            continue; // padded micro-panels compute zeros the useful count leaves out
        track(ta);
        track(tb);
        track(tc);
        std::vector<Tracked> tpacks(a_pack + b_pack);
        sw::gemm_packed_body(tc.data(), ta.data(), tb.data(), n, mc, kc, tpacks.data(),
                             tpacks.data() + a_pack);
        const double its = static_cast<double>(n * n * n);
        EXPECT_DOUBLE_EQ(g_tally.flops / its, k.spec.flops_per_iteration); // 2
        for (std::size_t x = 0; x < n * n; ++x)
            ASSERT_NEAR(tc[x].v, c[x], 1e-12 * static_cast<double>(n)) << x;
    }
}

TEST_F(SuiteTuned, MatmulPackedBlockingFromTheCaches) {
    // kc x NR doubles of B in half of L1 (the rule) or in all of it (twice the rule), whichever one thread
    // ran faster here; mc x kc of A in half of L2, mc a multiple of MR: the declared L1 bytes follow from
    // them (8 (MR + NR) / (MR NR) + 16 / kc + 32 / n: A and the shared B packed once per call).
    const SuiteKernel& k = tuned_kernel(cat, "matmul-blocked-tuned");
    const sw::GemmTile tile = sw::gemm_tile();
    EXPECT_EQ(tile.mr, sw::k_gemm_mr);
    EXPECT_EQ(tile.nr, sw::k_gemm_nr);
    EXPECT_EQ(tile.nr % sw::k_vector_doubles, 0);
    // Registers: MR x NR / W accumulators, NR / W vectors of B and one broadcast fit the register file.
    EXPECT_LE(tile.mr * tile.nr / sw::k_vector_doubles + tile.nr / sw::k_vector_doubles + 1,
              sw::k_vector_registers);
    const double n = 512, mr = tile.mr, nr = tile.nr;
    const auto kc_of = [&](const KernelSpec& spec, const core::Machine& mm, int threads) {
        const double l1 = derive_traffic(spec, mm, threads).bytes.at("L1");
        return std::round(16 / (l1 - 8 * (mr + nr) / (mr * nr) - 32 / n));
    };
    const double rule = std::clamp(std::floor(0.5 * 4096 / (8 * nr)), 16.0, n);
    const double kc = kc_of(k.spec, m, 1);
    EXPECT_TRUE(kc == rule || kc == 2 * rule) << kc;
    EXPECT_LE(kc * nr * 8, 4096);
    // Two threads on a core with 32 KiB L1 and 512 KiB L2: mc, read back from the declared L2 bytes
    // (8/NR + 8/mc + 16/kc + 32/n), is a multiple of MR, its A block fits half of L2, and the row
    // blocks split evenly between the threads.
    core::Machine real = tiny_machine();
    real.topology->cores = 2;
    real.topology->caches = {{"L1", 32768, 64, {}, 1, 2, {}, ""},
                             {"L2", 524288, 64, {}, 1, 2, {}, ""},
                             {"L3", 32 << 20, 64, {}, 2, 1, {}, ""}};
    const std::vector<SuiteKernel> cat2 = suite_catalogue(real, 2, "real");
    const SuiteKernel& k2 = tuned_kernel(cat2, "matmul-blocked-tuned");
    const double rule2 = std::clamp(std::floor(0.5 * 32768 / (8 * nr)), 16.0, n);
    const double kc2 = kc_of(k2.spec, real, 2);
    EXPECT_TRUE(kc2 == rule2 || kc2 == 2 * rule2) << kc2;
    // The results carry the timed choice: the k block and both candidates' times.
    ASSERT_EQ(k2.notes.size(), 1u);
    EXPECT_EQ(
        k2.notes[0].rfind(
            fmt::format("k block {} ({} the L1 rule's {})", kc2, kc2 == rule2 ? "as" : "twice", rule2), 0),
        0u)
        << k2.notes[0];
    const double l2 = derive_traffic(k2.spec, real, 2).bytes.at("L2");
    const double mc = std::round(8 / (l2 - 8 / nr - 16 / kc2 - 32 / n));
    EXPECT_EQ(std::fmod(mc, mr), 0.0) << mc;
    EXPECT_LE(mc * kc2 * 8, 0.5 * 524288);
    EXPECT_EQ(static_cast<int>(std::ceil(n / mc)) % 2, 0) << mc;
}

TEST_F(SuiteTuned, MatmulPackedSizedForTheThreads) {
    // The untuned matmul stays 512^3; the tuned one grows until every thread has 16 micro-panels of MR rows
    // (n a multiple of 64, at most 4096).
    const double mr = sw::gemm_tile().mr;
    for (const int threads : {1, 2, 8, 16, 64}) {
        SCOPED_TRACE(threads);
        core::Machine real = tiny_machine();
        real.topology->cores = threads;
        real.topology->caches = {{"L1", 32768, 64, {}, 1, threads, {}, ""},
                                 {"L2", 524288, 64, {}, 1, threads, {}, ""},
                                 {"L3", 32 << 20, 64, {}, threads, 1, {}, ""}};
        const std::vector<SuiteKernel> c = suite_catalogue(real, threads, "real");
        const double untuned = std::cbrt(*tuned_kernel(c, "matmul-blocked").spec.iterations);
        const double tuned = std::cbrt(*tuned_kernel(c, "matmul-blocked-tuned").spec.iterations);
        EXPECT_NEAR(untuned, 512, 1e-6);
        const double rows = 16 * mr * threads;
        const double expected = std::clamp(std::ceil(rows / 64) * 64, 512.0, 4096.0);
        EXPECT_NEAR(tuned, expected, 1e-6);
        if (expected < 4096) {
            EXPECT_GE(tuned / threads, 16 * mr);
        }
    }
}

// The k block's choice: one candidate needs no timing; with two, an index among them, the same on every call
// (timed once per process and set of candidates).
TEST(GemmBlockChoice, IndexAmongTheCandidatesAndStable) {
    EXPECT_EQ(sw::gemm_block_choice(64, {{16, 16}}).index, 0u);
    EXPECT_TRUE(sw::gemm_block_choice(64, {{16, 16}}).seconds.empty());
    const std::vector<std::pair<std::size_t, std::size_t>> two{{16, 32}, {32, 32}};
    const sw::BlockChoice first = sw::gemm_block_choice(64, two);
    ASSERT_EQ(first.seconds.size(), two.size());
    EXPECT_LT(first.index, two.size());
    // The index is the faster candidate's, and a second call returns the same choice.
    EXPECT_LE(first.seconds[first.index], first.seconds[1 - first.index]);
    EXPECT_GT(first.seconds[0], 0.0);
    EXPECT_EQ(sw::gemm_block_choice(64, two).index, first.index);
    EXPECT_EQ(sw::gemm_block_choice(64, two).seconds, first.seconds);
    EXPECT_THROW(sw::gemm_block_choice(64, {{16, 0}, {32, 32}}), std::invalid_argument);
}
