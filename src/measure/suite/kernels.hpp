// Bodies of roofcast's built-in kernel suite. Each body performs ONE call of its kernel and is
// meant to be run by every thread of an OpenMP team: the work is shared with `omp for
// schedule(static) nowait`, so a given index range always lands on the same thread (first touch and
// cache residency stay put across calls). No body writes what another thread's share reads, so
// consecutive calls need no barrier: a runner repeats calls inside one parallel region and
// synchronises once per timing epoch (as likwid-bench does), which keeps short cache-resident calls
// free of barrier costs and of waiting for a descheduled thread on a shared host. Called outside a
// parallel region a body runs serially, which is how the tests check them against scalar references.
// Inner loops carry `omp simd` so that they vectorize whatever aliasing the compiler fears; the
// flop and traffic counts of every body are declared once in the model layer's suite catalogue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <omp.h>

namespace roofcast::measure::suite {

// --- STREAM (McCalpin, "Memory bandwidth and machine balance", IEEE TCCA newsletter 1995) ---------
enum class StreamOp { copy, scale, add, triad };

inline void stream_body(StreamOp op, double* __restrict a, const double* __restrict b,
                        const double* __restrict c, double s, std::size_t n) {
    switch (op) {
    case StreamOp::copy:
#pragma omp for simd schedule(static) nowait
        for (std::size_t i = 0; i < n; ++i)
            a[i] = b[i];
        break;
    case StreamOp::scale:
#pragma omp for simd schedule(static) nowait
        for (std::size_t i = 0; i < n; ++i)
            a[i] = s * b[i];
        break;
    case StreamOp::add:
#pragma omp for simd schedule(static) nowait
        for (std::size_t i = 0; i < n; ++i)
            a[i] = b[i] + c[i];
        break;
    case StreamOp::triad:
#pragma omp for simd schedule(static) nowait
        for (std::size_t i = 0; i < n; ++i)
            a[i] = b[i] + s * c[i];
        break;
    }
}

// Extra multiply-add terms that raise the flop count without touching memory: Q multiply-adds (2 flops
// each) in k_extra_chains independent chains u_c = u_c*alpha + beta_c, joined by multiply-adds
// r = r*alpha + u_c that count among the Q. One long dependent chain would make these loops latency-
// bound (Q FMA latencies per vector, more than the reorder buffer can overlap across iterations) rather
// than throughput-bound like the compute roof they are compared with; the chains cut the critical path
// to about Q/k_extra_chains + k_extra_chains. The betas differ per chain so that no chain is a copy of
// another the compiler could merge; alpha < 1 keeps every value bounded (u_c tends to beta_c/(1-alpha)).
inline constexpr int k_extra_chains = 4;

template <int Q> constexpr int extra_chains() {
    return Q < 2 * k_extra_chains ? 1 : k_extra_chains;
}

template <int Q, class T> inline T extra_fma(T t) {
    constexpr int K = extra_chains<Q>();
    constexpr T alpha = T(0.5);
    T u[K];
#pragma GCC unroll 8
    for (int c = 0; c < K; ++c)
        u[c] = t;
#pragma GCC unroll 128
    for (int q = 0; q < Q - (K - 1); ++q)
        u[q % K] = u[q % K] * alpha + T(0.25) * T(1 + q % K);
    T r = u[0];
#pragma GCC unroll 8
    for (int c = 1; c < K; ++c)
        r = r * alpha + u[c];
    return r;
}

// --- Effective memory bandwidth: a copy with a multiply-add and Q extra multiply-adds per element. ---
// One load stream and one store stream, the read/write mix of the memory accesses the mixed model
// times (the streamed rows and the stored array of the mixed family, the planes of a stencil). The
// bytes stay 16 requested (24 moved with the store's write-allocate) while the flops are 2 + 2Q, so
// moved bytes per flop fall from 24/2 = 12 (Q = 0) to 24/48 = 0.5 (Q = 23).
template <int Q>
void calibration_body(double* __restrict a, const double* __restrict b, double s, std::size_t n) {
#pragma omp for simd schedule(static) nowait
    for (std::size_t i = 0; i < n; ++i)
        a[i] = extra_fma<Q>(b[i] * s + s);
}

// --- Overlap calibration: a memory copy plus K reuse loads from a cache-resident window. ----------
// a(i) = s b(i) + sum_{r<K} w_t(r, i mod W): b is loaded and a stored once per element (24 bytes of
// memory traffic with the store's write-allocate), the K rows of the calling thread's window w_t (K x W
// doubles, read again every block of W elements) come from the cache the window is sized for. 1 + K
// flops. Measured against the separately calibrated t_MEM and t_cache it shows how far memory and cache
// transfers overlap (docs/models.md). n must be a multiple of W; w holds one window per thread. Q extra
// multiply-adds per element (2Q flops more; the suite's loops have Q = 0) turn it into a three-way mix of
// memory, cache and compute (bench/overlap-compute.sh).
template <int K, int Q = 0>
void overlap_body(double* __restrict a, const double* __restrict b, const double* __restrict w, double s,
                  std::size_t n, std::size_t W) {
    const double* __restrict mine = w + static_cast<std::size_t>(omp_get_thread_num()) * K * W;
    const std::size_t blocks = n / W;
#pragma omp for schedule(static) nowait
    for (std::size_t blk = 0; blk < blocks; ++blk) {
        const double* __restrict in = b + blk * W;
        double* __restrict out = a + blk * W;
#pragma omp simd
        for (std::size_t i = 0; i < W; ++i) {
            double x = in[i] * s;
#pragma GCC unroll 16
            for (int r = 0; r < K; ++r)
                x += mine[static_cast<std::size_t>(r) * W + i];
            out[i] = extra_fma<Q>(x);
        }
    }
}

// Read-only variant for the cache levels: s += extra_fma<Q>(b[i] + c[i] + d[i]). The cache term of the
// mixed model times reuse loads (neighbour rows, planes), so the cache levels' effective bandwidths are
// measured with loads: 24 requested (and moved) bytes, 3 + 2Q flops, bytes per flop 8 (Q = 0) down to
// about 0.5 (Q = 23). Threads share blocks of k_reduction_block elements (a reduction variable of a
// worksharing loop must be shared, so the partial sum is kept per thread); returns this thread's share.
inline constexpr std::size_t k_reduction_block = 4096;

// Sum of term(i) over i < n, shared by the team in blocks of k_reduction_block elements with a static
// schedule; returns this thread's partial sum. Always inlined: called out of line, the norm below ran at
// half its rate.
template <class Term> [[gnu::always_inline]] inline double blocked_sum(std::size_t n, Term term) {
    double s = 0.0;
    const std::size_t blocks = (n + k_reduction_block - 1) / k_reduction_block;
#pragma omp for schedule(static) nowait
    for (std::size_t blk = 0; blk < blocks; ++blk) {
        const std::size_t end =
            blk * k_reduction_block + k_reduction_block < n ? blk * k_reduction_block + k_reduction_block : n;
#pragma omp simd reduction(+ : s)
        for (std::size_t i = blk * k_reduction_block; i < end; ++i)
            s += term(i);
    }
    return s;
}

template <int Q>
double calibration_load_body(const double* __restrict b, const double* __restrict c,
                             const double* __restrict d, std::size_t n) {
    return blocked_sum(n, [b, c, d](std::size_t i) { return extra_fma<Q>(b[i] + c[i] + d[i]); });
}

// --- Mixed memory+cache family mM-nC-lF -----------------------------------------------------------
// a(k,j,i) = extra_fma<Q>( c(k,j,i) + c(k,j+1,i) + ... + c(k,j+N,i) ): per iteration the leading
// row c(k,j+N,.) and the store to a (with its write-allocate) stream from memory (m = 3), the N other
// rows were loaded N..1 row-sweeps earlier and are served by the cache level whose size the row
// length was chosen for. Flops: N adds + 2Q. Arrays are [nk][nj][ni], i fastest; j runs to nj - N.
template <int N, int Q>
void mixed_body(double* __restrict a, const double* __restrict c, std::size_t nk, std::size_t nj,
                std::size_t ni) {
#pragma omp for schedule(static) nowait
    for (std::size_t k = 0; k < nk; ++k) {
        for (std::size_t j = 0; j + N < nj; ++j) {
            const double* row = c + (k * nj + j) * ni;
            double* out = a + (k * nj + j) * ni;
#pragma omp simd
            for (std::size_t i = 0; i < ni; ++i) {
                // N adds in two interleaved partial sums (half the dependent chain of one sum).
                double s[2] = {row[i], row[ni + i]};
#pragma GCC unroll 16
                for (int d = 2; d <= N; ++d)
                    s[d % 2] += row[static_cast<std::size_t>(d) * ni + i];
                out[i] = extra_fma<Q>(s[0] + s[1]);
            }
        }
    }
}

// --- 3-D 7-point Jacobi (double): b = s * (sum of the centre and its six neighbours). 7 flops. ------
inline void jacobi7_body(double* __restrict b, const double* __restrict a, double s, std::size_t nk,
                         std::size_t nj, std::size_t ni) {
    const std::size_t plane = nj * ni;
#pragma omp for schedule(static) nowait
    for (std::size_t k = 1; k < nk - 1; ++k) {
        for (std::size_t j = 1; j < nj - 1; ++j) {
            const std::size_t base = k * plane + j * ni;
#pragma omp simd
            for (std::size_t i = 1; i < ni - 1; ++i) {
                const std::size_t x = base + i;
                b[x] = s * (a[x] + a[x - 1] + a[x + 1] + a[x - ni] + a[x + ni] + a[x - plane] + a[x + plane]);
            }
        }
    }
}

// --- Himeno (single precision, 19-point Poisson Jacobi; Himeno benchmark, RIKEN, 1996). -------------
// The loop of the original jacobi() with its 34 flops per point, counted as: s0 = 27
// (3 mul + 2 add on a0..a2; 3 b-terms of 3 add/sub + 1 mul each; 3 adds joining them; 3 mul + 3 add
// on c0..c2; 1 add of wrk1), ss = (s0*a3 - p)*bnd: 3, gosa += ss*ss: 2, wrk2 = p + omega*ss: 2.
struct HimenoArrays {
    const float* a[4];
    const float* b[3];
    const float* c[3];
    const float* p;
    const float* bnd;
    const float* wrk1;
    float* wrk2;
};

// The views of 14 arrays given in the order a0..a3, b0..b2, c0..c2, p, bnd, wrk1, wrk2 (the runner's
// slots and the tests' reference arrays).
inline HimenoArrays himeno_arrays(float* const* x) {
    return {{x[0], x[1], x[2], x[3]}, {x[4], x[5], x[6]}, {x[7], x[8], x[9]}, x[10], x[11], x[12], x[13]};
}

// Returns this thread's share of gosa; the caller adds the shares of all threads.
inline double himeno_body(const HimenoArrays& h, float omega, std::size_t nk, std::size_t nj,
                          std::size_t ni) {
    const std::size_t plane = nj * ni;
    double gosa = 0.0;
#pragma omp for schedule(static) nowait
    for (std::size_t k = 1; k < nk - 1; ++k) {
        for (std::size_t j = 1; j < nj - 1; ++j) {
            const std::size_t base = k * plane + j * ni;
            float g = 0.0f;
            const float* __restrict p = h.p;
#pragma omp simd reduction(+ : g)
            for (std::size_t i = 1; i < ni - 1; ++i) {
                const std::size_t x = base + i;
                const float s0 =
                    h.a[0][x] * p[x + plane] + h.a[1][x] * p[x + ni] + h.a[2][x] * p[x + 1] +
                    h.b[0][x] *
                        (p[x + plane + ni] - p[x + plane - ni] - p[x - plane + ni] + p[x - plane - ni]) +
                    h.b[1][x] * (p[x + ni + 1] - p[x - ni + 1] - p[x + ni - 1] + p[x - ni - 1]) +
                    h.b[2][x] * (p[x + plane + 1] - p[x - plane + 1] - p[x + plane - 1] + p[x - plane - 1]) +
                    h.c[0][x] * p[x - plane] + h.c[1][x] * p[x - ni] + h.c[2][x] * p[x - 1] + h.wrk1[x];
                const float ss = (s0 * h.a[3][x] - p[x]) * h.bnd[x];
                g += ss * ss;
                h.wrk2[x] = p[x] + omega * ss;
            }
            gosa += static_cast<double>(g);
        }
    }
    return gosa;
}

// --- CSR sparse matrix-vector product y = A x (2 flops per non-zero). ------------------------------
// Kept out of line (as every body a catalogue entry names as its code symbol): the diagnosis reads the
// kernel's loop by disassembling this function, which a compiler free to inline it may leave no copy of.
[[gnu::noinline]] inline void spmv_body(double* __restrict y, const double* __restrict val,
                                        const std::int32_t* __restrict col,
                                        const std::int64_t* __restrict row_ptr, const double* __restrict x,
                                        std::size_t rows) {
#pragma omp for schedule(static) nowait
    for (std::size_t r = 0; r < rows; ++r) {
        double s = 0.0;
        const std::int64_t end = row_ptr[r + 1];
#pragma omp simd reduction(+ : s)
        for (std::int64_t e = row_ptr[r]; e < end; ++e)
            s += val[e] * x[col[e]];
        y[r] = s;
    }
}

// --- Blocked dense matrix multiply C += A B (n x n, row-major, tiles of t x t; 2 flops per (i,j,k)). -
// Threads share the i-tiles; within a tile the j loop is the vector loop and one row of the B tile
// and of the C tile stay in L1 while k advances.
inline void matmul_body(double* __restrict cm, const double* __restrict am, const double* __restrict bm,
                        std::size_t n, std::size_t t) {
#pragma omp for schedule(static) nowait
    for (std::size_t ii = 0; ii < n; ii += t) {
        for (std::size_t kk = 0; kk < n; kk += t) {
            for (std::size_t jj = 0; jj < n; jj += t) {
                for (std::size_t i = ii; i < ii + t; ++i) {
                    double* crow = cm + i * n + jj;
                    for (std::size_t k = kk; k < kk + t; ++k) {
                        const double aik = am[i * n + k];
                        const double* brow = bm + k * n + jj;
#pragma omp simd
                        for (std::size_t j = 0; j < t; ++j)
                            crow[j] += aik * brow[j];
                    }
                }
            }
        }
    }
}

// --- Vector 2-norm: sum of squares (2 flops per element); the square root is taken once per call. -
// Threads share blocks of k_reduction_block elements; returns this thread's partial sum, the caller
// adds the shares of all threads.

inline double norm2_squared_body(const double* __restrict x, std::size_t n) {
    return blocked_sum(n, [x](std::size_t i) { return x[i] * x[i]; });
}

} // namespace roofcast::measure::suite
