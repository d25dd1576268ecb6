// The suite catalogue's application kernels (experiment/suite_catalogue.hpp): the 7-point Jacobi, Himeno, CSR
// SpMV and blocked matmul, each in its untuned form and its tuned one (issue 13), and the vector 2-norm.
// Sizes come from the machine's caches, as for every row of the catalogue.
#include "experiment/suite_rows.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::model::suite_rows {

namespace sw = measure::suite;

namespace {

// Planes of a 3-D grid for `bytes` per array with `threads` threads: whole planes per thread (at least one),
// plus the two boundary planes.
std::size_t planes_for(double bytes, double plane_bytes, int threads) {
    const auto per_thread = static_cast<std::size_t>(std::ceil(bytes / (plane_bytes * threads)));
    return std::max<std::size_t>(1, per_thread) * static_cast<std::size_t>(threads) + 2;
}

// 3-D 7-point Jacobi blocked in j (Stengel, Treibig, Hager & Wellein, ICS 2015, Sect. 3.2, spatial
// blocking; tuned_kernels.hpp). Per array access the layer conditions of the loop nest (kernel.cpp,
// Kerncraft's form) need, for a row of ni doubles and layers of L rows:
//   2-D condition (rows j-1..j+1 of a reused):  8 (6 ni - 4) bytes          <= half the cache;
//   3-D condition (layers k-1..k+1 reused):     8 ni (4 L - 2) bytes        <= half the cache
// (reuse distances ni-1, 1, 1, ni-1 and twice L ni - ni elements for a; the leading a and the store to b
// stream). The row is the longest for which the 2-D condition holds in L1 for the two rows the body sweeps
// side by side (their reuse distances twice one row's: 2 x 8 (6 ni - 4) bytes <= half of L1; so the j
// neighbours come from L1), rounded down to a multiple of 8 that is not a power of two (rows 2^k doubles
// apart share L1 sets);
// the block, jb rows (layers of L = jb + 2 rows with the halo), the largest for which the 3-D condition
// holds in the first cache beyond L1 (so the k neighbours come from there, and only the leading plane and
// b stream from memory). b is written with non-temporal stores (rows of whole vectors: ni is a multiple of 8
// and the runner puts (k, j, 1) on a 64-byte boundary; tuned_kernels.hpp, jacobi7_streams), so no
// write-allocate: 16 B per point from memory rather than 24; the stores still count at L2 and L3 (kernel.cpp
// counts a non-temporal store at every level beyond L1, which overstates what they move there rather than
// understating it). The grid's planes are wider than one block many times over, so
// without blocking the 3-D condition would fail in that cache. Declared as the loop nest of one block:
// the layer conditions depend on the rows a layer holds, which for a blocked sweep is the block's jb + 2
// rows, not the grid's nj (the halo rows, 2 / jb more reads of a, are not counted, as the untuned
// Jacobi's boundary is not).
SuiteKernel jacobi_blocked(const Sizes& s, int threads) {
    const double l1 = find_cache(s.caches, "L1")->per_thread(threads);
    const CacheLevel& reuse = s.caches.size() > 1 ? s.caches[1] : s.caches.back();
    const double half_reuse = k_default_safety_factor * reuse.per_thread(threads);
    auto ni = static_cast<std::size_t>(
        std::floor(std::clamp((k_default_safety_factor * l1 / 16.0 + 4.0) / 6.0, 64.0, 2048.0) / 8.0) * 8.0);
    if ((ni & (ni - 1)) == 0)
        ni -= 8;
    const double nid = static_cast<double>(ni);
    const auto jb =
        static_cast<std::size_t>(std::max(1.0, std::floor((half_reuse / (8.0 * nid) - 6.0) / 4.0)));
    // Square-ish planes of at least four blocks per thread, the block count a multiple of the threads.
    const auto th = static_cast<std::size_t>(threads);
    const std::size_t blocks = std::max<std::size_t>(4 * th, (ni + jb - 1) / jb + th - 1) / th * th;
    const std::size_t nj = 2 + blocks * jb;
    const double plane_bytes = static_cast<double>(nj * ni) * 8.0;
    const auto nk = static_cast<std::size_t>(std::ceil(s.mem_working_set / 2.0 / plane_bytes)) + 2;
    const sw::Grid3 g{nk, nj, ni};
    SuiteKernel k;
    k.name = "jacobi-3d-7pt-tuned";
    k.suite = "apps";
    const long bk = static_cast<long>(nk) - 2, bi = static_cast<long>(ni) - 2, bj = static_cast<long>(jb);
    k.spec =
        base_spec(k.name, 7, static_cast<double>(bk) * static_cast<double>(nj - 2) * static_cast<double>(bi));
    k.spec.working_set_bytes = 2.0 * static_cast<double>(g.points()) * 8.0;
    k.spec.nt_stores = true;
    LoopNest nest;
    nest.indices = {"k", "j", "i"};
    nest.bounds = {bk, bj, bi};
    const std::vector<long> dims{static_cast<long>(nk), bj + 2, static_cast<long>(ni)};
    nest.arrays = {{"a", "double", dims}, {"b", "double", dims}};
    nest.accesses = {write("b", {0, 0, 0}), read("a", {0, 0, 0}),  read("a", {0, 0, -1}),
                     read("a", {0, 0, 1}),  read("a", {0, -1, 0}), read("a", {0, 1, 0}),
                     read("a", {-1, 0, 0}), read("a", {1, 0, 0})};
    k.spec.loop = nest;
    k.run = [g, jb](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_jacobi7_blocked(g, jb, o, ws);
    };
    // In cache: one block per thread and one interior layer, the three layers of a (and b's one) the 3-D
    // condition keeps in half of each thread's share of that cache; b with ordinary stores (non-temporal ones
    // would send it to memory on every call).
    const sw::Grid3 small{3, 2 + th * jb, ni};
    k.in_cache_iterations = static_cast<double>(th * jb * (ni - 2));
    k.run_in_cache = [small, jb](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_jacobi7_blocked(small, jb, o, ws, false);
    };
    k.code_symbol = "roofcast::measure::suite::jacobi7_blocked_body<";
    return k;
}

// CSR SpMV's matrix in SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014; tuned_kernels.hpp),
// C = the SIMD width in doubles of the compiled suite, sigma = 1 (equal rows). Per non-zero val (8) and col
// (4) stream from memory and the core gathers x (8); per row y is stored (8, and its write-allocate beyond
// L1) and x read once per level beyond L1 as the band slides (8); per chunk of C rows chunk_ptr (8) and
// chunk_len (4) are loaded. One iteration = one non-zero (16 per row).
SuiteKernel spmv_sell(const core::Machine& m, const sw::SpmvShape& shape, const sw::SpmvShape& small) {
    const double c = sw::sell_chunk_rows();
    const double per_row = 1.0 / shape.nnz_per_row;
    SuiteKernel k;
    k.name = "spmv-csr-tuned";
    k.suite = "apps";
    k.spec = base_spec(k.name, 2, static_cast<double>(shape.rows) * shape.nnz_per_row);
    for (const auto& l : m.levels)
        k.spec.explicit_bytes[l.name] =
            l.name == "L1" ? 8 + 4 + 8 + (8 + 12 / c) * per_row : 12 + (8 + 16 + 12 / c) * per_row;
    k.run = [shape](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_spmv_sell(shape, o, ws); };
    k.in_cache_iterations = static_cast<double>(small.rows) * small.nnz_per_row;
    k.run_in_cache = [small](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_spmv_sell(small, o, ws);
    };
    k.code_symbol = sw::spmv_sell_symbol();
    const sw::SpmvGatherChoice& g = sw::spmv_gather_choice();
    k.notes.push_back(
        fmt::format("x gathered with {} ({:.3f} ns per non-zero, against {:.3f} ns with {}: one "
                    "thread, the matrix in L2, timed when the catalogue was built)",
                    g.hardware ? "the gather instruction" : "scalar loads and shuffles",
                    g.hardware ? g.hardware_ns : g.shuffle_ns, g.hardware ? g.shuffle_ns : g.hardware_ns,
                    g.hardware ? "scalar loads and shuffles" : "the gather instruction"));
    return k;
}

// The untuned matmul's n (and the least n of the tuned one).
constexpr std::size_t k_matmul_n = 512;

// The tuned matmul's n: the untuned one's, or more where the threads would otherwise get fewer than 16
// micro-panels of MR rows each, up to 4096 (400 MB in all). Each thread sweeps the shared packed B panel
// once per k block against its own rows, and the team meets twice per k block (packing B, then the
// product): with few rows per thread the B micro-panels serve few micro-kernels and the meetings come
// often. Growing n with the threads keeps both costs a small share of the product (docs/benchmarks.md has
// the rates at each n on 16 cores).
std::size_t matmul_packed_n(int threads) {
    const double rows = 16.0 * sw::gemm_tile().mr * std::max(1, threads);
    return std::clamp<std::size_t>(round_up(rows, 64), k_matmul_n, 4096);
}

// Packed, register-blocked matmul (Goto & van de Geijn, ACM TOMS 34(3), 2008, Sect. 4-6; tuned_kernels.hpp)
// with n from matmul_packed_n. kc: a kc x NR micro-panel of B fills at most half of L1; mc: a packed mc x kc
// block of A at most half of L2 (a multiple of MR). Bytes per (i,j,p)
// iteration (2 flops):
//  - L1 (what the core loads and stores): per k the micro-kernel loads MR elements of A and NR of B for
//    MR NR iterations, 8 (MR + NR) / (MR NR); the MR x NR block of C is loaded and stored once per kc,
//    16 / kc; packing loads and stores A and B once per call (the threads pack the shared B panel
//    together), 32 / n;
//  - L2: the A micro-panel streams from L2 once per NR columns, 8 / NR; the B micro-panel comes in once per
//    mc rows, 8 / mc; the C block, 16 / kc; the packing, 32 / n;
//  - L3: the B micro-panel when the B panel overflows half of a thread's L2, the C block (C overflows half
//    of L2), the packing sources, 16 / n;
//  - beyond a level that holds A, B, C and the packing buffers in half its capacity: nothing.
// The zero rows and columns that pad partial micro-panels are not counted (the useful flops are 2 n^3).
SuiteKernel matmul_packed(const core::Machine& m, const Sizes& s, int threads, std::size_t n) {
    const sw::GemmTile tile = sw::gemm_tile();
    const double mr = tile.mr, nr = tile.nr, nn = static_cast<double>(n), th = threads;
    const double l1 = find_cache(s.caches, "L1")->per_thread(threads);
    const double l2 = find_cache(s.caches, "L2")->per_thread(threads);
    // The threads share the row blocks statically: each thread's rows are cut into equal blocks no
    // larger than the L2 bound, so the block count is a multiple of the threads (an mc that left one
    // thread three blocks and the other two ran at two thirds of the rate).
    const double rows_per_thread = std::ceil(nn / th);
    auto row_block = [&](double kc) {
        const double mc_l2 = std::max(mr, std::floor(k_default_safety_factor * l2 / (8.0 * kc) / mr) * mr);
        const double blocks_per_thread = std::ceil(rows_per_thread / mc_l2);
        return std::ceil(rows_per_thread / blocks_per_thread / mr) * mr;
    };
    // kc: the rule (the B micro-panel in half of L1) or twice it (all of L1), whichever one thread runs
    // faster here (sw::gemm_block_choice): the winner differs from core to core (docs/benchmarks.md).
    const double kc_rule = std::clamp(std::floor(k_default_safety_factor * l1 / (8.0 * nr)), 16.0, nn);
    std::vector<std::pair<std::size_t, std::size_t>> blocks{
        {static_cast<std::size_t>(kc_rule), static_cast<std::size_t>(row_block(kc_rule))}};
    if (2.0 * kc_rule <= nn)
        blocks.push_back(
            {static_cast<std::size_t>(2.0 * kc_rule), static_cast<std::size_t>(row_block(2.0 * kc_rule))});
    // Timed on the untuned form's 512^3 (one thread; a larger n only lengthens the timing).
    const std::size_t n_timed = std::min(n, k_matmul_n);
    const sw::BlockChoice choice = sw::gemm_block_choice(n_timed, blocks);
    const auto pick = blocks[choice.index];
    const double kc = static_cast<double>(pick.first), mc = static_cast<double>(pick.second);
    const double b_pack = kc * std::ceil(nn / nr) * nr * 8.0;
    const double all = 3.0 * nn * nn * 8.0 + b_pack + th * mc * kc * 8.0;
    SuiteKernel k;
    k.name = "matmul-blocked-tuned";
    k.suite = "apps";
    k.spec = base_spec(k.name, 2, nn * nn * nn);
    bool resident = false;
    for (const auto& l : m.levels) {
        double bytes = 0;
        if (l.name == "L1")
            bytes = 8.0 * (mr + nr) / (mr * nr) + 16.0 / kc + 32.0 / nn;
        else if (l.name == "L2")
            bytes = 8.0 / nr + 8.0 / mc + 16.0 / kc + 32.0 / nn;
        else if (!resident)
            bytes = (b_pack <= k_default_safety_factor * l2 ? 0.0 : 8.0 / mc) + 16.0 / kc + 16.0 / nn;
        k.spec.explicit_bytes[l.name] = bytes;
        const CacheLevel* c = find_cache(s.caches, l.name);
        if (c && l.name != "L1" && all <= k_default_safety_factor * c->per_thread(threads) * threads)
            resident = true;
    }
    const auto mcs = static_cast<std::size_t>(mc), kcs = static_cast<std::size_t>(kc);
    k.run = [n, mcs, kcs](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_matmul_packed(n, mcs, kcs, o, ws);
    };
    k.code_symbol = "roofcast::measure::suite::gemm_micro_vector<";
    if (choice.seconds.size() == blocks.size())
        k.notes.push_back(
            fmt::format("k block {} ({} the L1 rule's {}), the faster on one thread here: {:.2f} "
                        "against {:.2f} ms per {}^3 product",
                        pick.first, choice.index == 0 ? "as" : "twice", blocks[0].first,
                        1e3 * choice.seconds[choice.index], 1e3 * choice.seconds[1 - choice.index], n_timed));
    return k;
}

// The 7-point Jacobi, untuned and blocked (jacobi_blocked).
void add_jacobi_family(std::vector<SuiteKernel>& out, const Sizes& s, int threads) {
    // 3-D 7-point Jacobi: planes small enough that three planes of a and one of b fit half of the
    // share of the first cache beyond L1 (3-D layer condition there, so the k-1 and k+1 planes come
    // from L2 rather than L3, as spatial blocking would arrange: Stengel et al., ICS 2015, Sect. 3.2),
    // rows a multiple of 8 elements, arrays together beyond every cache.
    const CacheLevel& reuse = s.caches.size() > 1 ? s.caches[1] : s.caches.back();
    const auto side = static_cast<long>(
        std::floor(std::clamp(std::sqrt(0.5 * reuse.per_thread(threads) / (4.0 * 8.0)), 64.0, 512.0) / 8.0) *
        8.0);
    const std::size_t nk =
        planes_for(s.mem_working_set / 2.0, static_cast<double>(side * side) * 8.0, threads);
    const sw::Grid3 g{nk, static_cast<std::size_t>(side), static_cast<std::size_t>(side)};
    SuiteKernel k;
    k.name = "jacobi-3d-7pt";
    k.suite = "apps";
    k.untuned = true;
    const long bk = static_cast<long>(nk) - 2, b = side - 2;
    k.spec = base_spec(k.name, 7, static_cast<double>(bk * b * b));
    LoopNest nest;
    nest.indices = {"k", "j", "i"};
    nest.bounds = {bk, b, b};
    const std::vector<long> dims{static_cast<long>(nk), side, side};
    nest.arrays = {{"a", "double", dims}, {"b", "double", dims}};
    nest.accesses = {write("b", {0, 0, 0}), read("a", {0, 0, 0}),  read("a", {0, 0, -1}),
                     read("a", {0, 0, 1}),  read("a", {0, -1, 0}), read("a", {0, 1, 0}),
                     read("a", {-1, 0, 0}), read("a", {1, 0, 0})};
    k.spec.loop = nest;
    k.run = [g](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_jacobi7(g, o, ws); };
    // In cache: one interior plane per thread; the planes were sized so that four fit half its L2.
    const sw::Grid3 small{static_cast<std::size_t>(threads) + 2, static_cast<std::size_t>(side),
                          static_cast<std::size_t>(side)};
    k.in_cache_iterations = static_cast<double>(threads * b * b);
    k.run_in_cache = [small](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_jacobi7(small, o, ws);
    };
    k.code_symbol = "roofcast::measure::suite::run_jacobi7(";
    out.push_back(std::move(k));
    out.push_back(jacobi_blocked(s, threads));
}

// Himeno, untuned and with merged coefficient arrays.
void add_himeno_family(std::vector<SuiteKernel>& out, const Sizes& s, int threads, double l2_team) {
    // Himeno: 14 single-precision arrays; 19 points of p, one of each coefficient array.
    constexpr long side = 256;
    const std::size_t nk = planes_for(s.mem_working_set / 14.0, side * side * 4.0, threads);
    const sw::Grid3 g{nk, side, side};
    SuiteKernel k;
    k.name = "himeno";
    k.suite = "apps";
    k.untuned = true;
    const long bk = static_cast<long>(nk) - 2, b = side - 2;
    k.spec = base_spec(k.name, 34, static_cast<double>(bk * b * b), "single");
    LoopNest nest;
    nest.indices = {"k", "j", "i"};
    nest.bounds = {bk, b, b};
    const std::vector<long> dims{static_cast<long>(nk), side, side};
    for (const char* name : {"a0", "a1", "a2", "a3", "b0", "b1", "b2", "c0", "c1", "c2", "bnd", "wrk1"}) {
        nest.arrays.push_back({name, "float", dims});
        nest.accesses.push_back(read(name, {0, 0, 0}));
    }
    nest.arrays.push_back({"p", "float", dims});
    nest.arrays.push_back({"wrk2", "float", dims});
    const std::vector<std::vector<long>> p_offsets{
        {0, 0, 0},   {1, 0, 0},  {-1, 0, 0}, {0, 1, 0},   {0, -1, 0}, {0, 0, 1},  {0, 0, -1},
        {1, 1, 0},   {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0}, {0, 1, 1},  {0, -1, 1}, {0, 1, -1},
        {0, -1, -1}, {1, 0, 1},  {-1, 0, 1}, {1, 0, -1},  {-1, 0, -1}};
    for (const auto& off : p_offsets)
        nest.accesses.push_back(read("p", off));
    nest.accesses.push_back(write("wrk2", {0, 0, 0}));
    k.spec.loop = nest;
    k.run = [g](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_himeno(g, o, ws); };
    // In cache: one interior plane per thread of rows the in-cache grid's 14 arrays keep within half the
    // team's L2s (a multiple of 16, as the merged form needs, at least 32).
    const auto small_side = static_cast<std::size_t>(
        std::max(32.0, std::floor(std::sqrt(l2_team / (14.0 * 4.0 * (threads + 2.0))) / 16.0) * 16.0));
    const sw::Grid3 small{static_cast<std::size_t>(threads) + 2, small_side, small_side};
    k.in_cache_iterations =
        static_cast<double>(threads) * static_cast<double>((small_side - 2) * (small_side - 2));
    k.run_in_cache = [small](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_himeno(small, o, ws);
    };
    k.code_symbol = "roofcast::measure::suite::run_himeno(";
    // Himeno with merged coefficient arrays (Minami et al., cache-aware roofline model, Sect. 6-7,
    // array merging; tuned_kernels.hpp): the same grid, points, flops and data, so the same
    // declaration. The loop nest counts elements, not streams: the merged array holds the 12
    // coefficient fields, each still read once per point at the centre (48 B), which is what the
    // nest's 12 centre accesses declare; the layout, which decides how many streams the hardware
    // tracks and which cache sets the points share, is what the traffic model does not see and
    // the tuning changes.
    SuiteKernel tuned = k;
    tuned.name = tuned.spec.name = "himeno-tuned";
    tuned.untuned = false;
    tuned.spec.loop->interleaved = {
        {"a0", "a1", "a2", "a3", "b0", "b1", "b2", "c0", "c1", "c2", "bnd", "wrk1"}};
    tuned.code_symbol = "roofcast::measure::suite::himeno_merged_body<";
    tuned.run = [g](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_himeno_merged(g, o, ws); };
    tuned.run_in_cache = [small](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_himeno_merged(small, o, ws);
    };
    out.push_back(std::move(k));
    out.push_back(std::move(tuned));
}

// SpMV: CSR (untuned) and SELL-C-sigma (spmv_sell).
void add_spmv_family(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, double l2_team) {
    // CSR SpMV, 16 non-zeros per row inside a band of +-64 columns, so the 1 KiB window of x that a
    // row touches stays in L1. Per non-zero: val (8) and col (4) stream from memory; per row x (8,
    // read once per level beyond L1 as the window slides), row_ptr (8) and y with write-allocate (16).
    // At L1 the core loads val, col and x per non-zero and, per row, row_ptr[r] and row_ptr[r+1],
    // and stores y: 20 + 24/16 bytes. One iteration = one non-zero.
    const sw::SpmvShape shape{round_up(s.mem_working_set / (12.0 * 16.0), 64), 16, 64};
    const double nnz = static_cast<double>(shape.rows) * shape.nnz_per_row;
    SuiteKernel k;
    k.name = "spmv-csr";
    k.suite = "apps";
    k.untuned = true;
    k.spec = base_spec(k.name, 2, nnz);
    const double per_row = 1.0 / shape.nnz_per_row;
    for (const auto& l : m.levels)
        k.spec.explicit_bytes[l.name] = l.name == "L1" ? 8 + 4 + 8 + 24 * per_row : 12 + 32 * per_row;
    k.run = [shape](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_spmv(shape, o, ws); };
    // The body (out of line under GCC 12): run_spmv's own innermost loop with arithmetic is the
    // set-up's 1 / (1 + e % 3), which the diagnosis took for the kernel ("scalar code").
    k.code_symbol = "roofcast::measure::suite::spmv_body(";
    // In cache: the matrix's values and columns (12 B per non-zero) within half the team's L2s.
    const sw::SpmvShape small{
        std::max<std::size_t>(64, static_cast<std::size_t>(l2_team / (12.0 * 16.0)) / 64 * 64), 16, 64};
    k.in_cache_iterations = static_cast<double>(small.rows) * small.nnz_per_row;
    k.run_in_cache = [small](const sw::SuiteOptions& o, sw::Workspace& ws) {
        return sw::run_spmv(small, o, ws);
    };
    out.push_back(std::move(k));
    out.push_back(spmv_sell(m, shape, small));
}

// Matmul: blocked (untuned) and packed (matmul_packed).
void add_matmul_family(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, int threads) {
    // Blocked matmul, n = 512, tiles t = 32 (a tile of B, 8 KiB, stays in half of L1). Per (i,j,k)
    // iteration the core loads B and C and stores C, and loads A once per t iterations: 24 + 8/t
    // bytes at L1. Per tile triple (t^3 iterations)
    // L2 delivers A, B tiles and reads/writes the C tile: 8 * 4t^2 / t^3 = 32/t bytes. Beyond L2 each
    // i-tile row sweeps all of B (8/t per iteration) unless B fits half the L2 share, plus A and C once
    // per i-tile row (24/n). Beyond a level holding all three matrices in half its capacity: nothing.
    constexpr std::size_t n = k_matmul_n, t = 32;
    const double nn = static_cast<double>(n), tt = static_cast<double>(t);
    SuiteKernel k;
    k.name = "matmul-blocked";
    k.suite = "apps";
    k.untuned = true;
    k.spec = base_spec(k.name, 2, nn * nn * nn);
    const double all_three = 3 * nn * nn * 8;
    const double l2_share = find_cache(s.caches, "L2")->per_thread(threads);
    double beyond_l2 = (nn * nn * 8 <= 0.5 * l2_share ? 0.0 : 8.0 / tt) + 24.0 / nn;
    bool resident = all_three <= 0.5 * l2_share;
    for (const auto& l : m.levels) {
        if (l.name == "L1")
            k.spec.explicit_bytes[l.name] = 24.0 + 8.0 / tt;
        else if (l.name == "L2")
            k.spec.explicit_bytes[l.name] = 32.0 / tt;
        else {
            k.spec.explicit_bytes[l.name] = resident ? 0.0 : beyond_l2;
            const CacheLevel* c = find_cache(s.caches, l.name);
            if (c && all_three <= 0.5 * c->per_thread(threads) * threads)
                resident = true;
        }
    }
    k.run = [](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_matmul(n, t, o, ws); };
    k.code_symbol = "roofcast::measure::suite::run_matmul(";
    out.push_back(std::move(k));
    out.push_back(matmul_packed(m, s, threads, matmul_packed_n(threads)));
}

// The vector 2-norm.
void add_norm2(std::vector<SuiteKernel>& out, const Sizes& s) {
    const std::size_t n = round_up(s.mem_working_set / 8.0, 4096);
    SuiteKernel k;
    k.name = "norm2";
    k.suite = "apps";
    k.spec = base_spec(k.name, 2, static_cast<double>(n));
    LoopNest nest;
    nest.indices = {"i"};
    nest.bounds = {static_cast<long>(n)};
    nest.arrays = {{"x", "double", {static_cast<long>(n)}}};
    nest.accesses = {read("x", {0})};
    k.spec.loop = nest;
    k.run = [n](const sw::SuiteOptions& o, sw::Workspace& ws) { return sw::run_norm(n, o, ws); };
    k.code_symbol = "roofcast::measure::suite::run_norm(";
    out.push_back(std::move(k));
}

} // namespace

void add_apps(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, int threads) {
    // The in-cache instances' arrays fit half the team's L2s (the diagnosis' in-cache time).
    const double l2_team = 0.5 * find_cache(s.caches, "L2")->per_thread(threads) * threads;
    add_jacobi_family(out, s, threads);
    add_himeno_family(out, s, threads, l2_team);
    add_spmv_family(out, m, s, l2_team);
    add_matmul_family(out, m, s, threads);
    add_norm2(out, s);
}
} // namespace roofcast::model::suite_rows
