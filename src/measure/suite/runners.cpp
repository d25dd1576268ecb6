#include "measure/suite/runners.hpp"

#include "measure/harness.hpp"
#include "measure/pages.hpp"
#include "measure/stream.hpp"
#include "measure/suite/tuned_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::suite {

namespace {

// Times `call()`, which every thread of a team of `threads` runs once per call of the kernel (bodies
// end without a barrier, see kernels.hpp). One parallel region per epoch keeps fork/join out of the
// samples; its closing barrier ends the epoch.
template <class Call> Measurement time_team(const SuiteOptions& opt, Call&& call) {
    const int threads = std::max(1, opt.threads);
    pin_team(threads);
    std::vector<double> busy(static_cast<std::size_t>(threads));
    std::optional<double> imbalance;
    auto body = [&](std::uint64_t reps) {
#pragma omp parallel num_threads(threads)
        {
            const double t0 = omp_get_wtime();
            for (std::uint64_t r = 0; r < reps; ++r)
                call();
            busy[static_cast<std::size_t>(omp_get_thread_num())] = omp_get_wtime() - t0;
        }
        const double mean = std::accumulate(busy.begin(), busy.end(), 0.0) / static_cast<double>(threads);
        if (threads > 1 && mean > 0) {
            const double ratio = *std::max_element(busy.begin(), busy.end()) / mean;
            imbalance = imbalance ? std::min(*imbalance, ratio) : ratio;
        }
    };
    const Timing t = time_repeated(body, opt.harness);
    Measurement m;
    m.seconds_per_call = t.seconds_per_call;
    m.repetitions = t.repetitions;
    m.thread_imbalance = imbalance;
    return m;
}

// Splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014):
// a stateless hash, so the generated matrix does not depend on which thread builds which row.
std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// First touch in the reduction bodies' partition: blocks of k_reduction_block elements shared with
// the same static schedule, so each thread's blocks are the ones it will read. `init(i)` sets element i.
template <class Init> void touch_blocks(std::size_t n, int threads, Init&& init) {
    const std::size_t blocks = (n + k_reduction_block - 1) / k_reduction_block;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t blk = 0; blk < blocks; ++blk)
            for (std::size_t i = blk * k_reduction_block; i < std::min(n, (blk + 1) * k_reduction_block); ++i)
                init(i);
    }
}

template <int Q>
Measurement run_calibration_q(CalibrationShape shape, std::size_t n, const SuiteOptions& opt, Workspace& ws) {
    double* a = ws.array<double>(0, n);
    double* b = ws.array<double>(1, n);
    double* c = ws.array<double>(2, n);
    const int threads = std::max(1, opt.threads);
    if (shape == CalibrationShape::copy) {
#pragma omp parallel num_threads(threads)
        stream_init(a, b, c, n);
        Measurement m = time_team(opt, [&] { calibration_body<Q>(a, b, 0.75, n); });
        m.checksum = a[n / 2];
        return m;
    }
    touch_blocks(n, threads, [&](std::size_t i) {
        a[i] = 1.0 / static_cast<double>(1 + i % 7);
        b[i] = 0.5;
        c[i] = 0.25;
    });
    double total = 0.0; // summed over threads and calls: a checksum
    Measurement m = time_team(opt, [&] {
        const double mine = calibration_load_body<Q>(a, b, c, n);
#pragma omp atomic
        total += mine;
    });
    m.checksum = total;
    return m;
}

template <std::size_t... I>
Measurement dispatch_calibration(CalibrationShape shape, int q, std::size_t n, const SuiteOptions& opt,
                                 Workspace& ws, std::index_sequence<I...>) {
    Measurement m;
    bool found = false;
    ((q == k_calibration_fmas[I]
          ? (m = run_calibration_q<k_calibration_fmas[I]>(shape, n, opt, ws), found = true)
          : false),
     ...);
    if (!found)
        throw std::invalid_argument("no calibration loop with " + std::to_string(q) + " extra multiply-adds");
    return m;
}

template <int K, int Q = 0>
Measurement run_overlap_k(std::size_t n, std::size_t W, const SuiteOptions& opt, Workspace& ws) {
    const int threads = std::max(1, opt.threads);
    double* a = ws.array<double>(0, n);
    double* b = ws.array<double>(1, n);
    double* w = ws.array<double>(2, static_cast<std::size_t>(threads) * K * W);
    const std::size_t blocks = n / W;
#pragma omp parallel num_threads(threads)
    {
        // First touch in the body's partition: the blocks of a and b by the static schedule, each
        // thread's window by that thread.
        double* mine = w + static_cast<std::size_t>(omp_get_thread_num()) * K * W;
        for (std::size_t x = 0; x < static_cast<std::size_t>(K) * W; ++x)
            mine[x] = 0.125 * static_cast<double>(x % 9);
#pragma omp for schedule(static)
        for (std::size_t blk = 0; blk < blocks; ++blk)
            for (std::size_t i = blk * W; i < (blk + 1) * W; ++i) {
                a[i] = 0.0;
                b[i] = 1.0 + static_cast<double>(i % 5) * 0.25;
            }
    }
    Measurement m = time_team(opt, [&] { overlap_body<K, Q>(a, b, w, 0.5, n, W); });
    m.checksum = a[n / 2];
    return m;
}

// The suite's overlap loop with K = k reuse loads, without extra arithmetic or with overlap_compute_fmas(K).
template <std::size_t... I>
Measurement dispatch_overlap(int k, bool with_compute, std::size_t n, std::size_t W, const SuiteOptions& opt,
                             Workspace& ws, std::index_sequence<I...>) {
    Measurement m;
    bool found = false;
    ((k == k_overlap_reuses[I]
          ? (m = with_compute ? run_overlap_k<k_overlap_reuses[I], overlap_compute_fmas(k_overlap_reuses[I])>(
                                    n, W, opt, ws)
                              : run_overlap_k<k_overlap_reuses[I]>(n, W, opt, ws),
             found = true)
          : false),
     ...);
    if (!found)
        throw std::invalid_argument("no overlap calibration loop with " + std::to_string(k) + " reuse loads");
    return m;
}

constexpr std::size_t k_mixed_members = k_mixed_neighbours.size() * k_mixed_flop_levels;
constexpr int member_n(std::size_t i) {
    return k_mixed_neighbours[i / k_mixed_flop_levels];
}
constexpr int member_q(std::size_t i) {
    return mixed_extra_fmas(member_n(i), static_cast<int>(i % k_mixed_flop_levels));
}

// The overlap loop with a family member's (n, Q): n window rows and Q extra multiply-adds.
template <std::size_t... I>
Measurement dispatch_overlap_member(int k, int q, std::size_t n, std::size_t W, const SuiteOptions& opt,
                                    Workspace& ws, std::index_sequence<I...>) {
    Measurement m;
    bool found = false;
    ((k == member_n(I) && q == member_q(I)
          ? (m = run_overlap_k<member_n(I), member_q(I)>(n, W, opt, ws), found = true)
          : false),
     ...);
    if (!found)
        throw std::invalid_argument("no overlap loop with " + std::to_string(k) + " reuse loads and " +
                                    std::to_string(q) + " extra multiply-adds (not a mixed-family member)");
    return m;
}

// First touch for the 3-D stencils: every point is initialised by the thread whose k planes the kernel
// (which runs k = 1..nk-2 with the same static partition) will update; the two boundary planes go to the
// thread that owns their neighbour. `init(x)` sets point x of every array.
template <class Init> void first_touch_planes(const Grid3& g, int threads, Init&& init) {
    const std::size_t plane = g.nj * g.ni;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t k = 1; k < g.nk - 1; ++k) {
            const std::size_t lo = k == 1 ? 0 : k * plane;
            const std::size_t hi = k == g.nk - 2 ? g.nk * plane : (k + 1) * plane;
            for (std::size_t x = lo; x < hi; ++x)
                init(x);
        }
    }
}

template <int N, int Q> Measurement run_mixed_nq(const Grid3& g, const SuiteOptions& opt, Workspace& ws) {
    double* a = ws.array<double>(0, g.points());
    double* c = ws.array<double>(1, g.points());
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t k = 0; k < g.nk; ++k) {
            for (std::size_t x = k * g.nj * g.ni; x < (k + 1) * g.nj * g.ni; ++x) {
                a[x] = 0.0;
                c[x] = 1.0 + static_cast<double>(x % 7) * 0.125;
            }
        }
    }
    Measurement m = time_team(opt, [&] { mixed_body<N, Q>(a, c, g.nk, g.nj, g.ni); });
    m.checksum = a[g.ni + 1];
    return m;
}

template <std::size_t... I>
Measurement dispatch_mixed(int n, int q, const Grid3& g, const SuiteOptions& opt, Workspace& ws,
                           std::index_sequence<I...>) {
    Measurement m;
    bool found = false;
    ((n == member_n(I) && q == member_q(I)
          ? (m = run_mixed_nq<member_n(I), member_q(I)>(g, opt, ws), found = true)
          : false),
     ...);
    if (!found)
        throw std::invalid_argument("no mixed-family member with n = " + std::to_string(n) + " and " +
                                    std::to_string(q) + " extra multiply-adds");
    return m;
}

} // namespace

void stream_init(double* a, double* b, double* c, std::size_t n) {
#pragma omp for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
}

Measurement run_stream(StreamOp op, std::size_t n, const SuiteOptions& opt, Workspace& ws) {
    double* a = ws.array<double>(0, n);
    double* b = ws.array<double>(1, n);
    double* c = ws.array<double>(2, n);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    stream_init(a, b, c, n);
    Measurement m = time_team(opt, [&] { stream_body(op, a, b, c, 3.0, n); });
    m.checksum = a[n / 2];
    return m;
}

Measurement run_calibration(CalibrationShape shape, int extra_fmas, std::size_t n, const SuiteOptions& opt,
                            Workspace& ws) {
    return dispatch_calibration(shape, extra_fmas, n, opt, ws,
                                std::make_index_sequence<k_calibration_fmas.size()>{});
}

Measurement run_overlap(int reuses, std::size_t n, std::size_t window_row, const SuiteOptions& opt,
                        Workspace& ws, int extra_fmas) {
    if (window_row == 0 || n % window_row != 0)
        throw std::invalid_argument("overlap loop: n must be a positive multiple of the window row");
    const bool suite_k =
        std::find(k_overlap_reuses.begin(), k_overlap_reuses.end(), reuses) != k_overlap_reuses.end();
    if (suite_k && (extra_fmas == 0 || extra_fmas == overlap_compute_fmas(reuses)))
        return dispatch_overlap(reuses, extra_fmas != 0, n, window_row, opt, ws,
                                std::make_index_sequence<k_overlap_reuses.size()>{});
    return dispatch_overlap_member(reuses, extra_fmas, n, window_row, opt, ws,
                                   std::make_index_sequence<k_mixed_members>{});
}

Measurement run_mixed(int neighbours, int extra_fmas, const Grid3& g, const SuiteOptions& opt,
                      Workspace& ws) {
    return dispatch_mixed(neighbours, extra_fmas, g, opt, ws, std::make_index_sequence<k_mixed_members>{});
}

Measurement run_jacobi7(const Grid3& g, const SuiteOptions& opt, Workspace& ws) {
    // The interior starts at i = 1: shifting both arrays by 7 elements puts (k, j, 1) on a 64-byte
    // boundary whenever ni is a multiple of 8, so the vector stores to b and the loads of the centre and
    // of the four j, k neighbours never split a cache line (only a(i-1) and a(i+1) are unaligned).
    constexpr std::size_t k_shift = 7;
    double* a = ws.array<double>(0, g.points() + k_shift) + k_shift;
    double* b = ws.array<double>(1, g.points() + k_shift) + k_shift;
    const int threads = std::max(1, opt.threads);
    const std::size_t plane = g.nj * g.ni;
    first_touch_planes(g, threads, [&](std::size_t x) {
        a[x] = 1.0 + static_cast<double>(x % 5) * 0.25;
        b[x] = 0.0;
    });
    Measurement m = time_team(opt, [&] { jacobi7_body(b, a, 1.0 / 7.0, g.nk, g.nj, g.ni); });
    m.checksum = b[plane + g.ni + 1];
    return m;
}

Measurement run_himeno(const Grid3& g, const SuiteOptions& opt, Workspace& ws) {
    constexpr std::size_t k_arrays = 14; // a0..a3, b0..b2, c0..c2, p, bnd, wrk1, wrk2
    std::vector<float*> arr;
    for (std::size_t i = 0; i < k_arrays; ++i)
        arr.push_back(ws.array<float>(i, g.points()));
    const int threads = std::max(1, opt.threads);
    const std::size_t plane = g.nj * g.ni;
    // Initial values of the original benchmark: a0..a2 = 1, a3 = 1/6, b = 0, c = 1, bnd = 1, wrk1 = 0,
    // p = (k/(kmax-1))^2 (here along the outermost index).
    first_touch_planes(g, threads, [&](std::size_t x) {
        const float kk = static_cast<float>(x / plane) / static_cast<float>(g.nk - 1);
        for (int q = 0; q < 3; ++q)
            arr[static_cast<std::size_t>(q)][x] = 1.0f;
        arr[3][x] = 1.0f / 6.0f;
        for (int q = 4; q < 7; ++q)
            arr[static_cast<std::size_t>(q)][x] = 0.0f;
        for (int q = 7; q < 10; ++q)
            arr[static_cast<std::size_t>(q)][x] = 1.0f;
        arr[10][x] = kk * kk;
        arr[11][x] = 1.0f;
        arr[12][x] = 0.0f;
        arr[13][x] = 0.0f;
    });
    const HimenoArrays h = himeno_arrays(arr.data());
    double gosa = 0.0; // summed over threads and calls: a checksum
    Measurement m = time_team(opt, [&] {
        const double mine = himeno_body(h, 0.8f, g.nk, g.nj, g.ni);
#pragma omp atomic
        gosa += mine;
    });
    m.checksum = gosa;
    return m;
}

void spmv_columns(const SpmvShape& s, std::size_t r, std::int32_t* out) {
    const std::size_t lo = r >= s.band ? r - s.band : 0;
    const std::size_t hi = std::min(s.rows, r + s.band + 1); // exclusive
    const std::size_t span = hi - lo;
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(s.nnz_per_row), span);
    // Choose k distinct columns in [lo, hi) by Floyd's sampling, then sort.
    std::vector<std::int32_t> chosen;
    chosen.reserve(k);
    for (std::size_t j = span - k; j < span; ++j) {
        const std::size_t t = splitmix64((static_cast<std::uint64_t>(r) << 20) ^ j) % (j + 1);
        const auto cand = static_cast<std::int32_t>(lo + t);
        if (std::find(chosen.begin(), chosen.end(), cand) == chosen.end())
            chosen.push_back(cand);
        else
            chosen.push_back(static_cast<std::int32_t>(lo + j));
    }
    std::sort(chosen.begin(), chosen.end());
    std::copy(chosen.begin(), chosen.end(), out);
}

Measurement run_spmv(const SpmvShape& s, const SuiteOptions& opt, Workspace& ws) {
    if (s.rows == 0 || s.nnz_per_row < 1 || 2 * s.band + 1 < static_cast<std::size_t>(s.nnz_per_row) ||
        s.rows < static_cast<std::size_t>(s.nnz_per_row))
        throw std::invalid_argument("spmv: need rows >= nnz_per_row and 2*band+1 >= nnz_per_row");
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    const std::size_t nnz = s.rows * per;
    double* val = ws.array<double>(0, nnz);
    double* x = ws.array<double>(1, s.rows);
    double* y = ws.array<double>(2, s.rows);
    auto* col = ws.array<std::int32_t>(3, nnz);
    auto* row_ptr = ws.array<std::int64_t>(4, s.rows + 1);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t r = 0; r < s.rows; ++r) {
            row_ptr[r] = static_cast<std::int64_t>(r * per);
            spmv_columns(s, r, col + r * per);
            for (std::size_t e = r * per; e < (r + 1) * per; ++e)
                val[e] = 1.0 / static_cast<double>(1 + e % 3);
            x[r] = 1.0;
            y[r] = 0.0;
        }
    }
    row_ptr[s.rows] = static_cast<std::int64_t>(nnz);
    Measurement m = time_team(opt, [&] { spmv_body(y, val, col, row_ptr, x, s.rows); });
    m.checksum = y[s.rows / 2];
    return m;
}

Measurement run_matmul(std::size_t n, std::size_t tile, const SuiteOptions& opt, Workspace& ws) {
    if (tile == 0 || n % tile != 0)
        throw std::invalid_argument("matmul: n must be a multiple of the tile size");
    double* a = ws.array<double>(0, n * n);
    double* b = ws.array<double>(1, n * n);
    double* c = ws.array<double>(2, n * n);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t ii = 0; ii < n; ii += tile) {
            for (std::size_t x = ii * n; x < (ii + tile) * n; ++x) {
                a[x] = 1.0 / static_cast<double>(1 + x % 7);
                b[x] = 1.0 / static_cast<double>(1 + x % 5);
                c[x] = 0.0;
            }
        }
    }
    Measurement m = time_team(opt, [&] { matmul_body(c, a, b, n, tile); });
    m.checksum = c[n + 1];
    return m;
}

Measurement run_himeno_merged(const Grid3& g, const SuiteOptions& opt, Workspace& ws) {
    if (g.ni % k_himeno_lanes != 0)
        throw std::invalid_argument("himeno (merged): the row length must be a multiple of 16");
    float* coef = ws.array<float>(0, g.points() * k_himeno_coefficients);
    float* p = ws.array<float>(1, g.points());
    float* wrk2 = ws.array<float>(2, g.points());
    const int threads = std::max(1, opt.threads);
    const std::size_t plane = g.nj * g.ni;
    // The initial values of run_himeno, coefficient q of point x at its merged place.
    constexpr float k_initial[k_himeno_coefficients] = {1.0f, 1.0f, 1.0f, 1.0f / 6.0f, 0.0f, 0.0f,
                                                        0.0f, 1.0f, 1.0f, 1.0f,        1.0f, 0.0f};
    first_touch_planes(g, threads, [&](std::size_t x) {
        const float kk = static_cast<float>(x / plane) / static_cast<float>(g.nk - 1);
        for (std::size_t q = 0; q < k_himeno_coefficients; ++q)
            coef[himeno_merged_index(x, q)] = k_initial[q];
        p[x] = kk * kk;
        wrk2[x] = 0.0f;
    });
    double gosa = 0.0; // summed over threads and calls: a checksum
    Measurement m = time_team(opt, [&] {
        const double mine = himeno_merged_body(coef, p, wrk2, 0.8f, g.nk, g.nj, g.ni);
#pragma omp atomic
        gosa += mine;
    });
    m.checksum = gosa;
    return m;
}

Measurement run_jacobi7_blocked(const Grid3& g, std::size_t jb, const SuiteOptions& opt, Workspace& ws,
                                bool stream) {
    if (jb == 0 || g.nj < 3 || g.ni < 3 || g.nk < 3)
        throw std::invalid_argument("jacobi (blocked): need a block of at least one row and a 3x3x3 grid");
    constexpr std::size_t k_shift = 7; // as run_jacobi7: (k, j, 1) on a 64-byte boundary
    double* a = ws.array<double>(0, g.points() + k_shift) + k_shift;
    double* b = ws.array<double>(1, g.points() + k_shift) + k_shift;
    const int threads = std::max(1, opt.threads);
    const std::size_t blocks = (g.nj - 2 + jb - 1) / jb;
    // First touch in the body's partition: the rows of each j-block, through all k, by the thread that
    // sweeps the block; the boundary rows j = 0 and nj-1 with their neighbouring block. b starts as a copy of
    // a: its boundary is a's, the fixed boundary the body's non-temporal rows write into b again.
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t blk = 0; blk < blocks; ++blk) {
            const std::size_t j0 = blk == 0 ? 0 : 1 + blk * jb;
            const std::size_t j1 = blk + 1 == blocks ? g.nj : std::min(g.nj - 1, 1 + (blk + 1) * jb);
            for (std::size_t k = 0; k < g.nk; ++k)
                for (std::size_t x = (k * g.nj + j0) * g.ni; x < (k * g.nj + j1) * g.ni; ++x) {
                    a[x] = 1.0 + static_cast<double>(x % 5) * 0.25;
                    b[x] = a[x];
                }
        }
    }
    Measurement m =
        time_team(opt, [&] { jacobi7_blocked_body(b, a, 1.0 / 7.0, g.nk, g.nj, g.ni, jb, stream); });
    m.checksum = b[g.nj * g.ni + g.ni + 1];
    return m;
}

std::size_t odd_line_bytes(double bytes) {
    constexpr double k_line = 64;
    auto lines = static_cast<std::size_t>(std::ceil(bytes / k_line));
    lines += 1 - lines % 2;
    return lines * static_cast<std::size_t>(k_line);
}

int sell_chunk_rows() {
    return k_vector_doubles;
}

GemmTile gemm_tile() {
    return {k_gemm_mr, k_gemm_nr};
}

namespace {

// Chunk c of the SELL-C-1 form (C = k_vector_doubles) of the matrix of shape s: its first element and width,
// the columns and values of its C rows (element e of row r in CSR, as run_spmv builds it, sits at
// c*C*per + j*C + l here: the same values), and those rows of x (1) and y (0). `row`: nnz_per_row scratch.
void fill_sell_chunk(const SpmvShape& s, std::size_t c, std::int32_t* row, double* val, std::int32_t* col,
                     std::int64_t* chunk_ptr, std::int32_t* chunk_len, double* x, double* y) {
    constexpr auto C = static_cast<std::size_t>(k_vector_doubles);
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    chunk_ptr[c] = static_cast<std::int64_t>(c * C * per);
    chunk_len[c] = s.nnz_per_row;
    for (std::size_t l = 0; l < C; ++l) {
        const std::size_t r = c * C + l;
        spmv_columns(s, r, row);
        for (std::size_t j = 0; j < per; ++j) {
            const std::size_t e = c * C * per + j * C + l;
            col[e] = row[j];
            val[e] = 1.0 / static_cast<double>(1 + (r * per + j) % 3);
        }
        x[r] = 1.0;
        y[r] = 0.0;
    }
}

SpmvGatherChoice time_gathers() {
    constexpr int C = k_vector_doubles;
    const SpmvShape s{1024, 16, 64};
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    const std::size_t nnz = s.rows * per, chunks = s.rows / C;
    std::vector<double> val(nnz), x(s.rows), y(s.rows);
    std::vector<std::int32_t> col(nnz), row(per), len(chunks);
    std::vector<std::int64_t> ptr(chunks);
    for (std::size_t c = 0; c < chunks; ++c)
        fill_sell_chunk(s, c, row.data(), val.data(), col.data(), ptr.data(), len.data(), x.data(), y.data());
    const auto call = [&](auto body) {
        return
            [&, body] { body(y.data(), val.data(), col.data(), ptr.data(), len.data(), x.data(), chunks); };
    };
    const std::vector<double> best = fastest_interleaved(
        {call(spmv_sell_body<C, true, double>), call(spmv_sell_body<C, false, double>)}, 9, 1);
    const double ns_per_nz = 1e9 / static_cast<double>(nnz);
    SpmvGatherChoice c{false, best[0] * ns_per_nz, best[1] * ns_per_nz};
    c.hardware = c.hardware_ns < c.shuffle_ns;
    return c;
}

} // namespace

const SpmvGatherChoice& spmv_gather_choice() {
    static const SpmvGatherChoice choice = time_gathers();
    return choice;
}

std::string spmv_sell_symbol() {
    return "roofcast::measure::suite::spmv_sell_body<" + std::to_string(k_vector_doubles) +
           (spmv_gather_choice().hardware ? ", true" : ", false");
}

Measurement run_spmv_sell(const SpmvShape& s, const SuiteOptions& opt, Workspace& ws) {
    constexpr int C = k_vector_doubles;
    if (s.rows == 0 || s.nnz_per_row < 1 || 2 * s.band + 1 < static_cast<std::size_t>(s.nnz_per_row) ||
        s.rows < static_cast<std::size_t>(s.nnz_per_row) || s.rows % C != 0)
        throw std::invalid_argument(
            "spmv (SELL): need rows >= nnz_per_row, 2*band+1 >= nnz_per_row, rows a multiple of the chunk");
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    const std::size_t nnz = s.rows * per, chunks = s.rows / C;
    double* val = ws.array<double>(0, nnz);
    double* x = ws.array<double>(1, s.rows);
    double* y = ws.array<double>(2, s.rows);
    auto* col = ws.array<std::int32_t>(3, nnz);
    auto* chunk_ptr = ws.array<std::int64_t>(4, chunks);
    auto* chunk_len = ws.array<std::int32_t>(5, chunks);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
        std::vector<std::int32_t> row(per);
#pragma omp for schedule(static)
        for (std::size_t c = 0; c < chunks; ++c)
            fill_sell_chunk(s, c, row.data(), val, col, chunk_ptr, chunk_len, x, y);
    }
    Measurement m =
        spmv_gather_choice().hardware
            ? time_team(opt, [&] { spmv_sell_body<C, true>(y, val, col, chunk_ptr, chunk_len, x, chunks); })
            : time_team(opt, [&] { spmv_sell_body<C>(y, val, col, chunk_ptr, chunk_len, x, chunks); });
    m.checksum = y[s.rows / 2];
    return m;
}

BlockChoice gemm_block_choice(std::size_t n,
                              const std::vector<std::pair<std::size_t, std::size_t>>& candidates) {
    if (candidates.size() < 2 || n == 0)
        return {};
    for (const auto& [kc, mc] : candidates)
        if (kc == 0 || mc == 0)
            throw std::invalid_argument("matmul (packed): k and row blocks must be at least 1");
    static std::mutex lock;
    static std::map<std::pair<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>>, BlockChoice>
        chosen;
    const std::lock_guard<std::mutex> guard(lock);
    const auto key = std::make_pair(n, candidates);
    if (const auto it = chosen.find(key); it != chosen.end())
        return it->second;
    const auto mr = static_cast<std::size_t>(k_gemm_mr), nr = static_cast<std::size_t>(k_gemm_nr);
    std::vector<double> a(n * n), b(n * n), c(n * n, 0.0);
    for (std::size_t x = 0; x < n * n; ++x) {
        a[x] = 1.0 + static_cast<double>(x % 7) * 0.125;
        b[x] = 1.0 - static_cast<double>(x % 5) * 0.0625;
    }
    std::vector<std::vector<double>> a_packs, b_packs;
    std::vector<std::function<void()>> calls;
    for (const auto& [kc, mc] : candidates) {
        a_packs.emplace_back((mc + mr - 1) / mr * mr * kc);
        b_packs.emplace_back((n + nr - 1) / nr * nr * kc);
        calls.emplace_back([&, kc = kc, mc = mc, i = calls.size()] {
            gemm_packed_body(c.data(), a.data(), b.data(), n, mc, kc, a_packs[i].data(), b_packs[i].data());
        });
    }
    const std::vector<double> best = fastest_interleaved(calls, 3, 1);
    BlockChoice choice{static_cast<std::size_t>(std::min_element(best.begin(), best.end()) - best.begin()),
                       best};
    chosen.emplace(key, choice);
    return choice;
}

Measurement run_matmul_packed(std::size_t n, std::size_t mc, std::size_t kc, const SuiteOptions& opt,
                              Workspace& ws) {
    if (n == 0 || mc == 0 || kc == 0)
        throw std::invalid_argument("matmul (packed): need n, mc and kc >= 1");
    const int threads = std::max(1, opt.threads);
    const auto mr = static_cast<std::size_t>(k_gemm_mr), nr = static_cast<std::size_t>(k_gemm_nr);
    const std::size_t a_pack = (mc + mr - 1) / mr * mr * kc, b_pack = (n + nr - 1) / nr * nr * kc;
    double* a = ws.array<double>(0, n * n);
    double* b = ws.array<double>(1, n * n);
    double* c = ws.array<double>(2, n * n);
    double* a_packs = ws.array<double>(3, static_cast<std::size_t>(threads) * a_pack);
    double* b_shared = ws.array<double>(4, b_pack);
    const std::size_t row_blocks = (n + mc - 1) / mc, col_panels = b_pack / (nr * kc);
#pragma omp parallel num_threads(threads)
    {
        // First touch: each thread's rows of A and C (the body's static schedule of row blocks), B in the
        // same partition, the thread's own buffer for A and its share of the micro-panels of B.
        double* mine = a_packs + static_cast<std::size_t>(omp_get_thread_num()) * a_pack;
        std::fill(mine, mine + a_pack, 0.0);
#pragma omp for schedule(static)
        for (std::size_t jp = 0; jp < col_panels; ++jp)
            std::fill(b_shared + jp * nr * kc, b_shared + (jp + 1) * nr * kc, 0.0);
#pragma omp for schedule(static)
        for (std::size_t rb = 0; rb < row_blocks; ++rb) {
            for (std::size_t x = rb * mc * n; x < std::min(n, (rb + 1) * mc) * n; ++x) {
                a[x] = 1.0 / static_cast<double>(1 + x % 7);
                b[x] = 1.0 / static_cast<double>(1 + x % 5);
                c[x] = 0.0;
            }
        }
    }
    Measurement m = time_team(opt, [&] {
        gemm_packed_body(c, a, b, n, mc, kc,
                         a_packs + static_cast<std::size_t>(omp_get_thread_num()) * a_pack, b_shared);
    });
    m.checksum = c[n + 1];
    return m;
}

Measurement run_norm(std::size_t n, const SuiteOptions& opt, Workspace& ws) {
    double* x = ws.array<double>(0, n);
    const int threads = std::max(1, opt.threads);
    touch_blocks(n, threads, [&](std::size_t i) { x[i] = 1.0 / static_cast<double>(1 + i % 9); });
    double total = 0.0; // summed over threads and calls: a checksum
    Measurement m = time_team(opt, [&] {
        const double mine = norm2_squared_body(x, n);
#pragma omp atomic
        total += mine;
    });
    m.checksum = std::sqrt(total);
    return m;
}

} // namespace roofcast::measure::suite
