// The bandwidth and stencil runners of the kernel suite (runners.hpp): STREAM, the calibration, overlap and
// mixed-family loops, Jacobi and Himeno with their tuned forms.
#include "measure/suite/runners.hpp"

#include "measure/suite/team.hpp"
#include "measure/suite/tuned_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::suite {

using detail::time_team;
using detail::touch_blocks;

namespace {

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

} // namespace roofcast::measure::suite
