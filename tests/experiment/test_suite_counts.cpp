// Each kernel of the built-in suite against an independent count. For a machine with tiny caches (so
// the catalogue's arrays are small) every kernel's formula is re-written here as a scalar reference
// that counts its flops, loads and stores and records which elements it touches. The test checks:
//  - flops per iteration == the catalogue's declaration;
//  - bytes the core loads and stores per iteration == derive_traffic's L1 entry;
//  - compulsory traffic (distinct elements touched, written ones twice for write-allocate) lies between
//    the declared traffic of the outermost level that moves data and that times the halo factor
//    (points per iteration), i.e. the declaration neither invents nor forgets a stream;
//  - the real body (measure/suite/kernels.hpp) computes the same values as the reference.
#include "experiment/suite_catalogue.hpp"
#include "measure/suite/kernels.hpp"
#include "measure/suite/runners.hpp"
#include "model/kernel.hpp"
#include "tiny_machine.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <map>

using namespace roofcast;
using namespace roofcast::model;
namespace sw = roofcast::measure::suite;

namespace {

using test::tiny_machine;

// An array of the reference with the elements it touched.
struct Arr {
    std::vector<double> v;
    double elem_bytes = 8;
    std::vector<char> read, written;
    explicit Arr(std::size_t n, double eb = 8) : v(n, 0.0), elem_bytes(eb), read(n, 0), written(n, 0) {}
};

// Counts what the reference does.
struct Tape {
    double flops = 0, load_bytes = 0, store_bytes = 0;
    double ld(Arr& a, std::size_t i) {
        load_bytes += a.elem_bytes;
        a.read[i] = 1;
        return a.v[i];
    }
    void st(Arr& a, std::size_t i, double x) {
        store_bytes += a.elem_bytes;
        a.written[i] = 1;
        a.v[i] = x;
    }
    double add(double x, double y) { return ++flops, x + y; }
    double sub(double x, double y) { return ++flops, x - y; }
    double mul(double x, double y) { return ++flops, x * y; }
};

// Distinct elements touched, each written element once more (write-allocate), in bytes.
double compulsory_bytes(const std::vector<const Arr*>& arrays) {
    double b = 0;
    for (const Arr* a : arrays)
        for (std::size_t i = 0; i < a->v.size(); ++i)
            b += a->elem_bytes * ((a->read[i] || a->written[i] ? 1 : 0) + (a->written[i] ? 1 : 0));
    return b;
}

// Scalar mirror of sw::extra_fma<Q>: the same chains and joins, counted on the tape.
double tape_extra(Tape& t, double x, int q) {
    const int k = q < 2 * sw::k_extra_chains ? 1 : sw::k_extra_chains;
    std::vector<double> u(static_cast<std::size_t>(k), x);
    for (int s = 0; s < q - (k - 1); ++s) {
        auto& v = u[static_cast<std::size_t>(s % k)];
        v = t.add(t.mul(v, 0.5), 0.25 * (1 + s % k));
    }
    double r = u[0];
    for (std::size_t c = 1; c < u.size(); ++c)
        r = t.add(t.mul(r, 0.5), u[c]);
    return r;
}

const SuiteKernel& kernel(const std::vector<SuiteKernel>& cat, const std::string& name) {
    for (const auto& k : cat)
        if (k.name == name)
            return k;
    throw std::runtime_error("no kernel " + name);
}

double outermost_bytes(const Traffic& t, const core::Machine& m) {
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it)
        if (t.bytes.at(it->name) > 0)
            return t.bytes.at(it->name);
    return 0;
}

void check_counts(const SuiteKernel& k, const Tape& tape, double iterations,
                  const std::vector<const Arr*>& arrays, double halo, const core::Machine& m) {
    SCOPED_TRACE(k.name);
    const Traffic t = derive_traffic(k.spec, m, 1);
    EXPECT_DOUBLE_EQ(tape.flops / iterations, k.spec.flops_per_iteration);
    EXPECT_NEAR((tape.load_bytes + tape.store_bytes) / iterations, t.bytes.at("L1"), 1e-9);
    const double declared = outermost_bytes(t, m);
    const double counted = compulsory_bytes(arrays) / iterations;
    EXPECT_GE(counted, declared * (1 - 1e-9));
    EXPECT_LE(counted, declared * halo * (1 + 1e-3));
}

double halo_of(const KernelSpec& s) {
    double points = 1, its = 1;
    for (const long d : s.loop->arrays.front().dims)
        points *= static_cast<double>(d);
    for (const long b : s.loop->bounds)
        its *= static_cast<double>(b);
    return points / its;
}

class SuiteCounts : public ::testing::Test {
protected:
    core::Machine m = tiny_machine();
    std::vector<SuiteKernel> cat = suite_catalogue(m, 1, "tiny");
};

} // namespace

TEST_F(SuiteCounts, Stream) {
    for (const std::string name : {"stream-copy", "stream-scale", "stream-add", "stream-triad"}) {
        const SuiteKernel& k = kernel(cat, name);
        const auto n = static_cast<std::size_t>(*k.spec.iterations);
        Arr a(n), b(n), c(n);
        for (std::size_t i = 0; i < n; ++i)
            b.v[i] = 1.0 + static_cast<double>(i % 3), c.v[i] = 2.0 - static_cast<double>(i % 5);
        std::vector<double> bb = b.v, cc = c.v, aa(n);
        Tape t;
        const double s = 3.0;
        for (std::size_t i = 0; i < n; ++i) {
            if (name == "stream-copy")
                t.st(a, i, t.ld(b, i));
            else if (name == "stream-scale")
                t.st(a, i, t.mul(s, t.ld(b, i)));
            else if (name == "stream-add")
                t.st(a, i, t.add(t.ld(b, i), t.ld(c, i)));
            else
                t.st(a, i, t.add(t.ld(b, i), t.mul(s, t.ld(c, i))));
        }
        const sw::StreamOp op = name == "stream-copy"    ? sw::StreamOp::copy
                                : name == "stream-scale" ? sw::StreamOp::scale
                                : name == "stream-add"   ? sw::StreamOp::add
                                                         : sw::StreamOp::triad;
        sw::stream_body(op, aa.data(), bb.data(), cc.data(), s, n);
        for (std::size_t i = 0; i < n; ++i)
            ASSERT_DOUBLE_EQ(aa[i], a.v[i]) << name << " at " << i;
        std::vector<const Arr*> arrays{&a, &b};
        if (name == "stream-add" || name == "stream-triad")
            arrays.push_back(&c);
        check_counts(k, t, static_cast<double>(n), arrays, 1.0, m);
    }
}

TEST_F(SuiteCounts, CalibrationLoops) {
    int seen = 0;
    for (const auto& k : cat) {
        if (k.suite != "calibrate" || k.overlap_reuses > 0) // the overlap loops: OverlapLoops
            continue;
        ++seen;
        const auto n = static_cast<std::size_t>(*k.spec.iterations);
        // Memory is calibrated with the copy, the caches with the read-only loop.
        const bool copy = k.resident_level == "MEM";
        const int q = static_cast<int>((k.spec.flops_per_iteration - (copy ? 2 : 3)) / 2);
        Arr a(n), b(n), c(n);
        for (std::size_t i = 0; i < n; ++i)
            a.v[i] = 0.125 * static_cast<double>(i % 5), b.v[i] = 1.0 + static_cast<double>(i % 3),
            c.v[i] = 0.5;
        Tape t;
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double x = copy ? t.add(t.mul(t.ld(b, i), 0.75), 0.75)
                            : t.add(t.add(t.ld(a, i), t.ld(b, i)), t.ld(c, i));
            x = tape_extra(t, x, q);
            if (copy)
                t.st(a, i, x);
            else
                sum = t.add(sum, x);
        }
        // Requested bytes per flop: 16 / flops (copy) from 8, or 24 / flops (read-only) from 8, down to
        // about 0.3 and 0.5.
        EXPECT_DOUBLE_EQ(k.requested_bytes, (t.load_bytes + t.store_bytes) / static_cast<double>(n));
        check_counts(k, t, static_cast<double>(n),
                     copy ? std::vector<const Arr*>{&a, &b} : std::vector<const Arr*>{&a, &b, &c}, 1.0, m);
        const Traffic tr = derive_traffic(k.spec, m, 1);
        EXPECT_GT(tr.bytes.at(k.resident_level), 0.0) << k.name;
        if (q != 23)
            continue;
        std::vector<double> aa(n), bb = b.v, cc = c.v;
        if (copy) {
            sw::calibration_body<23>(aa.data(), bb.data(), 0.75, n);
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_NEAR(aa[i], a.v[i], 1e-12) << k.name;
        } else {
            aa = a.v;
            EXPECT_NEAR(sw::calibration_load_body<23>(aa.data(), bb.data(), cc.data(), n), sum, 1e-12 * sum)
                << k.name;
        }
    }
    EXPECT_EQ(seen, 3 * 9); // MEM, L3 (2 x the L2, 64 KiB, lies below half the tiny L3, 128 KiB) and L2
}

TEST_F(SuiteCounts, OverlapLoops) {
    int seen = 0;
    for (const auto& k : cat) {
        if (k.overlap_reuses == 0)
            continue;
        ++seen;
        EXPECT_EQ(k.suite, "calibrate");
        EXPECT_EQ(k.overlap_cache, "L3"); // 2 x L2 fits half the tiny L3
        const int K = k.overlap_reuses;
        const int Q = k.overlap_extra_fmas;
        EXPECT_TRUE(Q == 0 || Q == sw::overlap_compute_fmas(K)) << k.name;
        const std::size_t W = k.overlap_row;
        const auto n = static_cast<std::size_t>(*k.spec.iterations);
        ASSERT_GT(W, 0u);
        ASSERT_EQ(n % W, 0u) << k.name;
        Arr a(n), b(n), w(static_cast<std::size_t>(K) * W);
        for (std::size_t i = 0; i < n; ++i)
            b.v[i] = 1.0 + static_cast<double>(i % 5) * 0.25;
        for (std::size_t x = 0; x < w.v.size(); ++x)
            w.v[x] = 0.125 * static_cast<double>(x % 9);
        Tape t;
        for (std::size_t i = 0; i < n; ++i) {
            double x = t.mul(t.ld(b, i), 0.5);
            for (int r = 0; r < K; ++r)
                x = t.add(x, t.ld(w, static_cast<std::size_t>(r) * W + i % W));
            t.st(a, i, tape_extra(t, x, Q));
        }
        // The window is compulsory traffic once, K x W elements over n iterations: the halo factor.
        const double halo = 1.0 + 8.0 * static_cast<double>(K * W) / (24.0 * static_cast<double>(n));
        check_counts(k, t, static_cast<double>(n), {&a, &b, &w}, halo, m);
        const Traffic tr = derive_traffic(k.spec, m, 1);
        EXPECT_DOUBLE_EQ(tr.bytes.at("MEM"), 24.0) << k.name;
        EXPECT_DOUBLE_EQ(tr.bytes.at("L3"), 24.0 + 8.0 * K) << k.name;
        EXPECT_DOUBLE_EQ(tr.bytes.at("L2"), 24.0 + 8.0 * K) << k.name;
        // (K + 2) rows of W elements span the reuse window, twice the tiny L2, each row an odd number of
        // cache lines (at most two lines longer than an even split: rounded up, then made odd).
        EXPECT_NEAR(8.0 * static_cast<double>((K + 2) * W), 2.0 * 32768, 2.0 * 64 * (K + 2)) << k.name;
        EXPECT_EQ(W % 8, 0u) << k.name;
        EXPECT_EQ((W / 8) % 2, 1u) << k.name;
        std::vector<double> aa(n), bb(n), ww(w.v.size());
        for (std::size_t i = 0; i < n; ++i)
            bb[i] = 1.0 + static_cast<double>(i % 5) * 0.25;
        for (std::size_t x = 0; x < ww.size(); ++x)
            ww[x] = 0.125 * static_cast<double>(x % 9);
        if (K == 3) {
            if (Q == 0)
                sw::overlap_body<3>(aa.data(), bb.data(), ww.data(), 0.5, n, W);
            else
                sw::overlap_body<3, sw::overlap_compute_fmas(3)>(aa.data(), bb.data(), ww.data(), 0.5, n, W);
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_NEAR(aa[i], a.v[i], 1e-12) << k.name << " element " << i;
        }
    }
    EXPECT_EQ(seen, 2 * static_cast<int>(sw::k_overlap_reuses.size())); // without and with arithmetic
}

TEST_F(SuiteCounts, MixedFamily) {
    int checked = 0;
    for (const auto& k : cat) {
        if (k.suite != "mixed" || (k.mixed_n != 1 && k.mixed_n != 2 && k.mixed_n != 5 && k.mixed_n != 14))
            continue;
        ++checked;
        const auto& nest = *k.spec.loop;
        const auto nk = static_cast<std::size_t>(nest.arrays[0].dims[0]);
        const auto nj = static_cast<std::size_t>(nest.arrays[0].dims[1]);
        const auto ni = static_cast<std::size_t>(nest.arrays[0].dims[2]);
        // Rows of an odd number of cache lines, so the n + 2 rows of a reuse never share a cache set.
        EXPECT_EQ(ni % 8, 0u) << k.name;
        EXPECT_EQ((ni / 8) % 2, 1u) << k.name;
        const int n = k.mixed_n;
        const int q = sw::mixed_extra_fmas(n, k.mixed_flop_level);
        Arr a(nk * nj * ni), c(nk * nj * ni);
        for (std::size_t x = 0; x < c.v.size(); ++x)
            c.v[x] = 1.0 + static_cast<double>(x % 7) * 0.125;
        Tape t;
        double iterations = 0;
        for (std::size_t kk = 0; kk < nk; ++kk)
            for (std::size_t j = 0; j + static_cast<std::size_t>(n) < nj; ++j)
                for (std::size_t i = 0; i < ni; ++i) {
                    double s = t.ld(c, (kk * nj + j) * ni + i);
                    for (int d = 1; d <= n; ++d)
                        s = t.add(s, t.ld(c, (kk * nj + j + static_cast<std::size_t>(d)) * ni + i));
                    s = tape_extra(t, s, q);
                    t.st(a, (kk * nj + j) * ni + i, s);
                    ++iterations;
                }
        EXPECT_DOUBLE_EQ(iterations, *k.spec.iterations);
        check_counts(k, t, iterations, {&a, &c}, halo_of(k.spec), m);
        // m = 3: MEM traffic of the leading row of c and the store to a with its write-allocate.
        EXPECT_DOUBLE_EQ(derive_traffic(k.spec, m, 1).bytes.at("MEM"), 24.0) << k.name;
        if ((n == 1 || n == 5) && k.mixed_flop_level == 2) {
            // The compiled body computes what the tape counted (n = 1: no row beyond the first pair).
            std::vector<double> aa(a.v.size()), cc(c.v.size());
            for (std::size_t x = 0; x < cc.size(); ++x)
                cc[x] = 1.0 + static_cast<double>(x % 7) * 0.125;
            if (n == 1)
                sw::mixed_body<1, sw::mixed_extra_fmas(1, 2)>(aa.data(), cc.data(), nk, nj, ni);
            else
                sw::mixed_body<5, sw::mixed_extra_fmas(5, 2)>(aa.data(), cc.data(), nk, nj, ni);
            for (std::size_t x = 0; x < aa.size(); ++x)
                ASSERT_NEAR(aa[x], a.v[x], 1e-12) << k.name << " element " << x;
        }
    }
    EXPECT_EQ(checked, 12);
}

TEST_F(SuiteCounts, Jacobi7) {
    const SuiteKernel& k = kernel(cat, "jacobi-3d-7pt");
    const auto& d = k.spec.loop->arrays[0].dims;
    const auto nk = static_cast<std::size_t>(d[0]), nj = static_cast<std::size_t>(d[1]),
               ni = static_cast<std::size_t>(d[2]);
    const std::size_t plane = nj * ni;
    Arr a(nk * plane), b(nk * plane);
    for (std::size_t x = 0; x < a.v.size(); ++x)
        a.v[x] = 1.0 + static_cast<double>(x % 5) * 0.25;
    const double s = 1.0 / 7.0;
    Tape t;
    double its = 0;
    for (std::size_t kk = 1; kk + 1 < nk; ++kk)
        for (std::size_t j = 1; j + 1 < nj; ++j)
            for (std::size_t i = 1; i + 1 < ni; ++i) {
                const std::size_t x = kk * plane + j * ni + i;
                double sum = t.ld(a, x);
                for (const std::size_t y : {x - 1, x + 1, x - ni, x + ni, x - plane, x + plane})
                    sum = t.add(sum, t.ld(a, y));
                t.st(b, x, t.mul(s, sum));
                ++its;
            }
    EXPECT_DOUBLE_EQ(its, *k.spec.iterations);
    check_counts(k, t, its, {&a, &b}, halo_of(k.spec), m);
    std::vector<double> bb(b.v.size()), aa = a.v;
    sw::jacobi7_body(bb.data(), aa.data(), s, nk, nj, ni);
    for (std::size_t x = 0; x < bb.size(); ++x)
        ASSERT_NEAR(bb[x], b.v[x], 1e-12) << x;
}

TEST_F(SuiteCounts, Himeno) {
    const SuiteKernel& k = kernel(cat, "himeno");
    EXPECT_EQ(k.spec.precision, "single");
    const auto& d = k.spec.loop->arrays[0].dims;
    const auto nk = static_cast<std::size_t>(d[0]), nj = static_cast<std::size_t>(d[1]),
               ni = static_cast<std::size_t>(d[2]);
    const std::size_t plane = nj * ni, pts = nk * plane;
    std::vector<Arr> arr(14, Arr(pts, 4)); // a0..a3 b0..b2 c0..c2 p bnd wrk1 wrk2
    for (std::size_t x = 0; x < pts; ++x)
        for (std::size_t q = 0; q < 13; ++q)
            arr[q].v[x] = static_cast<float>(0.5 + 0.03125 * static_cast<double>((x + 3 * q) % 16));
    Arr &p = arr[10], &bnd = arr[11], &wrk1 = arr[12], &wrk2 = arr[13];
    const double omega = 0.8;
    Tape t;
    double its = 0, gosa = 0;
    auto P = [&](std::size_t x) { return t.ld(p, x); };
    for (std::size_t kk = 1; kk + 1 < nk; ++kk)
        for (std::size_t j = 1; j + 1 < nj; ++j)
            for (std::size_t i = 1; i + 1 < ni; ++i) {
                const std::size_t x = kk * plane + j * ni + i;
                auto L = [&](std::size_t q) { return t.ld(arr[q], x); };
                double s0 =
                    t.add(t.add(t.mul(L(0), P(x + plane)), t.mul(L(1), P(x + ni))), t.mul(L(2), P(x + 1)));
                s0 = t.add(s0, t.mul(L(4), t.add(t.sub(t.sub(P(x + plane + ni), P(x + plane - ni)),
                                                       P(x - plane + ni)),
                                                 P(x - plane - ni))));
                s0 = t.add(s0, t.mul(L(5), t.add(t.sub(t.sub(P(x + ni + 1), P(x - ni + 1)), P(x + ni - 1)),
                                                 P(x - ni - 1))));
                s0 = t.add(
                    s0, t.mul(L(6), t.add(t.sub(t.sub(P(x + plane + 1), P(x - plane + 1)), P(x + plane - 1)),
                                          P(x - plane - 1))));
                s0 = t.add(s0, t.mul(L(7), P(x - plane)));
                s0 = t.add(s0, t.mul(L(8), P(x - ni)));
                s0 = t.add(s0, t.mul(L(9), P(x - 1)));
                s0 = t.add(s0, t.ld(wrk1, x));
                const double ss = t.mul(t.sub(t.mul(s0, L(3)), P(x)), t.ld(bnd, x));
                gosa = t.add(gosa, t.mul(ss, ss));
                t.st(wrk2, x, t.add(P(x), t.mul(omega, ss)));
                ++its;
            }
    EXPECT_DOUBLE_EQ(its, *k.spec.iterations);
    std::vector<const Arr*> all;
    for (const auto& a : arr)
        all.push_back(&a);
    // The reference loads the centre p[x] twice per point (for ss and for wrk2); the body and the loop
    // nest load it once: subtract the repeated load before comparing with the L1 traffic, which is
    // then (12 coefficient/bnd/wrk1 + 19 p loads + 1 store) * 4 B = 128 B.
    Tape core = t;
    core.load_bytes -= 4 * its;
    check_counts(k, core, its, all, halo_of(k.spec), m);
    // The body in single precision against the reference (in double, rounded to float inputs).
    std::vector<std::vector<float>> f(14, std::vector<float>(pts));
    for (std::size_t q = 0; q < 14; ++q)
        for (std::size_t x = 0; x < pts; ++x)
            f[q][x] = static_cast<float>(arr[q].v[x]);
    f[13].assign(pts, 0.0f);
    std::vector<float*> views;
    for (auto& a : f)
        views.push_back(a.data());
    const sw::HimenoArrays h = sw::himeno_arrays(views.data());
    const double g = sw::himeno_body(h, static_cast<float>(omega), nk, nj, ni);
    EXPECT_NEAR(g, gosa, 1e-3 * std::fabs(gosa));
    for (std::size_t x = plane + ni + 1; x < 2 * plane; x += 97)
        if (wrk2.written[x]) {
            ASSERT_NEAR(f[13][x], wrk2.v[x], 1e-4 * (1 + std::fabs(wrk2.v[x]))) << x;
        }
}

TEST_F(SuiteCounts, Spmv) {
    const SuiteKernel& k = kernel(cat, "spmv-csr");
    const std::size_t nnz_row = 16;
    const sw::SpmvShape shape{static_cast<std::size_t>(*k.spec.iterations) / nnz_row, 16, 64};
    const std::size_t rows = shape.rows, nnz = rows * nnz_row;
    Arr val(nnz), col(nnz, 4), x(rows), y(rows), row_ptr(rows + 1);
    std::vector<std::int32_t> cols(nnz);
    for (std::size_t r = 0; r < rows; ++r) {
        sw::spmv_columns(shape, r, cols.data() + r * nnz_row);
        row_ptr.v[r] = static_cast<double>(r * nnz_row);
        x.v[r] = 1.0 + static_cast<double>(r % 4);
    }
    row_ptr.v[rows] = static_cast<double>(nnz);
    for (std::size_t e = 0; e < nnz; ++e) {
        val.v[e] = 1.0 / static_cast<double>(1 + e % 3);
        col.v[e] = cols[e];
    }
    Tape t;
    for (std::size_t r = 0; r < rows; ++r) {
        double s = 0;
        const auto lo = static_cast<std::size_t>(t.ld(row_ptr, r)),
                   hi = static_cast<std::size_t>(t.ld(row_ptr, r + 1));
        for (std::size_t e = lo; e < hi; ++e)
            s = t.add(s, t.mul(t.ld(val, e), t.ld(x, static_cast<std::size_t>(t.ld(col, e)))));
        t.st(y, r, s);
    }
    check_counts(k, t, static_cast<double>(nnz), {&val, &col, &x, &y, &row_ptr}, 1.0, m);
    // Every row's columns are distinct, sorted and inside the band.
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t e = r * nnz_row; e < (r + 1) * nnz_row; ++e) {
            ASSERT_LE(std::labs(static_cast<long>(cols[e]) - static_cast<long>(r)), 64L);
            if (e > r * nnz_row) {
                ASSERT_LT(cols[e - 1], cols[e]);
            }
        }
    std::vector<std::int64_t> rp(rows + 1);
    for (std::size_t r = 0; r <= rows; ++r)
        rp[r] = static_cast<std::int64_t>(r * nnz_row);
    std::vector<double> yy(rows);
    sw::spmv_body(yy.data(), val.v.data(), cols.data(), rp.data(), x.v.data(), rows);
    for (std::size_t r = 0; r < rows; ++r)
        ASSERT_NEAR(yy[r], y.v[r], 1e-12 * (1 + std::fabs(y.v[r])));
}

TEST_F(SuiteCounts, MatmulPerIterationCounts) {
    // The catalogue's matmul is 512^3; its per-iteration flops and L1 bytes do not depend on n, so the
    // reference counts the same tiled loop for n = 64 (tile 32) and compares per iteration.
    const SuiteKernel& k = kernel(cat, "matmul-blocked");
    const std::size_t n = 64, tile = 32;
    Arr a(n * n), b(n * n), c(n * n);
    for (std::size_t x = 0; x < n * n; ++x)
        a.v[x] = 1.0 / static_cast<double>(1 + x % 7), b.v[x] = 1.0 / static_cast<double>(1 + x % 5);
    Tape t;
    for (std::size_t ii = 0; ii < n; ii += tile)
        for (std::size_t kk = 0; kk < n; kk += tile)
            for (std::size_t jj = 0; jj < n; jj += tile)
                for (std::size_t i = ii; i < ii + tile; ++i)
                    for (std::size_t kx = kk; kx < kk + tile; ++kx) {
                        const double aik = t.ld(a, i * n + kx);
                        for (std::size_t j = jj; j < jj + tile; ++j)
                            t.st(c, i * n + j, t.add(t.ld(c, i * n + j), t.mul(aik, t.ld(b, kx * n + j))));
                    }
    const double its = static_cast<double>(n * n * n);
    const Traffic tr = derive_traffic(k.spec, m, 1);
    EXPECT_DOUBLE_EQ(t.flops / its, k.spec.flops_per_iteration);
    EXPECT_NEAR((t.load_bytes + t.store_bytes) / its, tr.bytes.at("L1"), 1e-12);
    std::vector<double> cc(n * n, 0.0);
    sw::matmul_body(cc.data(), a.v.data(), b.v.data(), n, tile);
    for (std::size_t x = 0; x < n * n; ++x)
        ASSERT_NEAR(cc[x], c.v[x], 1e-12);
}

TEST_F(SuiteCounts, Norm) {
    const SuiteKernel& k = kernel(cat, "norm2");
    const auto n = static_cast<std::size_t>(*k.spec.iterations);
    Arr x(n);
    for (std::size_t i = 0; i < n; ++i)
        x.v[i] = 1.0 / static_cast<double>(1 + i % 9);
    Tape t;
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = t.ld(x, i);
        s = t.add(s, t.mul(v, v));
    }
    check_counts(k, t, static_cast<double>(n), {&x}, 1.0, m);
    EXPECT_NEAR(sw::norm2_squared_body(x.v.data(), n), s, 1e-9 * s);
}
