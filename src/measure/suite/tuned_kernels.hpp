// Tuned forms of the suite's application kernels (kernels.hpp holds the untuned ones, kept as they are:
// they are the demonstration of what the tuning removes). Each body follows the conventions of
// kernels.hpp: one call per invocation by every thread of a team, work shared with `omp for
// schedule(static) nowait` (the same share on every call, so first touch and cache residency stay put),
// nothing written that another thread's share reads; called outside a parallel region a body runs
// serially. The bodies are templates on their value type so that the tests can run them with a counting
// number type and check the declared flops against the operations the body really performs; their
// flop and traffic counts are declared once in experiment/suite_apps.cpp. Include this header only from
// sources compiled like the suite (-march=native, ROOFCAST_NATIVE_SUITE): its ISA constants follow the
// compiler's target; portable code asks runners.hpp (sell_chunk_rows, gemm_tile). Every body that a
// catalogue entry names as its code symbol is kept out of line ([[gnu::noinline]]): the diagnosis reads
// the kernel's loop from that function's code, of which an inlining compiler may leave no copy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <omp.h>
#include <type_traits>
#include <utility>

namespace roofcast::measure::suite {

// --- Himeno with merged coefficient arrays ----------------------------------------------------------
// Array merging (Minami et al., cache-aware roofline model, Sect. 6-7, program A): the 12 arrays a0..a3,
// b0..b2, c0..c2, bnd and wrk1 become one array, so the loop runs 3 streams (p, the merged coefficients,
// wrk2) instead of 14, and the 14 same-sized arrays no longer map the same point to the same cache set.
// The merge interleaves per cache line rather than per element: a block of k_himeno_lanes consecutive
// points holds, one line after the other, those points' 12 coefficients in the order a0 a1 a2 a3 b0 b1
// b2 c0 c1 c2 bnd wrk1. Each coefficient of a block is then one aligned vector load (an element-wise
// interleave needs gathers), and the whole array is still read as one sequential stream. Rows (ni) are
// a multiple of k_himeno_lanes, so blocks never straddle rows and point x's coefficient q lies at
// himeno_merged_index(x, q).
inline constexpr std::size_t k_himeno_lanes = 16; // floats per 64-byte line
inline constexpr std::size_t k_himeno_coefficients = 12;

constexpr std::size_t himeno_merged_index(std::size_t x, std::size_t q) {
    return (x / k_himeno_lanes) * k_himeno_lanes * k_himeno_coefficients + q * k_himeno_lanes +
           x % k_himeno_lanes;
}

// Points [lo, hi) of one block whose first point is x0 (cf: the block's 12 coefficient lines). The same
// 34 flops per point as himeno_body, in the same order; the lane sums of ss^2 go to g[lane].
template <class T>
[[gnu::always_inline]] inline void
himeno_lanes(const T* __restrict cf, const T* __restrict p, T* __restrict wrk2, T* __restrict g, T omega,
             std::size_t x0, std::size_t lo, std::size_t hi, std::size_t ni, std::size_t plane) {
    constexpr std::size_t L = k_himeno_lanes;
#pragma omp simd
    for (std::size_t l = lo; l < hi; ++l) {
        const std::size_t x = x0 + l;
        const T s0 =
            cf[0 * L + l] * p[x + plane] + cf[1 * L + l] * p[x + ni] + cf[2 * L + l] * p[x + 1] +
            cf[4 * L + l] * (p[x + plane + ni] - p[x + plane - ni] - p[x - plane + ni] + p[x - plane - ni]) +
            cf[5 * L + l] * (p[x + ni + 1] - p[x - ni + 1] - p[x + ni - 1] + p[x - ni - 1]) +
            cf[6 * L + l] * (p[x + plane + 1] - p[x - plane + 1] - p[x + plane - 1] + p[x - plane - 1]) +
            cf[7 * L + l] * p[x - plane] + cf[8 * L + l] * p[x - ni] + cf[9 * L + l] * p[x - 1] +
            cf[11 * L + l];
        const T ss = (s0 * cf[3 * L + l] - p[x]) * cf[10 * L + l];
        g[l] += ss * ss;
        wrk2[x] = p[x] + omega * ss;
    }
}

// Returns this thread's share of gosa (as himeno_body). ni must be a multiple of k_himeno_lanes.
template <class T>
[[gnu::noinline]] double himeno_merged_body(const T* __restrict coef, const T* __restrict p,
                                            T* __restrict wrk2, T omega, std::size_t nk, std::size_t nj,
                                            std::size_t ni) {
    constexpr std::size_t L = k_himeno_lanes;
    const std::size_t plane = nj * ni, blocks = ni / L;
    double gosa = 0.0;
#pragma omp for schedule(static) nowait
    for (std::size_t k = 1; k < nk - 1; ++k) {
        for (std::size_t j = 1; j < nj - 1; ++j) {
            const std::size_t base = k * plane + j * ni;
            T g[L] = {};
            // The first and last blocks of a row hold the boundary points i = 0 and i = ni - 1, which
            // the sweep does not update; the blocks between run all their lanes.
            for (std::size_t b = 0; b < blocks; ++b) {
                const std::size_t x0 = base + b * L;
                const T* cf = coef + himeno_merged_index(x0, 0);
                if (b == 0 || b + 1 == blocks)
                    himeno_lanes(cf, p, wrk2, g, omega, x0, b == 0 ? 1 : 0, b + 1 == blocks ? L - 1 : L, ni,
                                 plane);
                else
                    himeno_lanes(cf, p, wrk2, g, omega, x0, 0, L, ni, plane);
            }
            // Per row in double, as himeno_body adds its row sums (not counted among the 34 flops).
            double row = 0.0;
            for (std::size_t l = 0; l < L; ++l)
                row += static_cast<double>(g[l]);
            gosa += row;
        }
    }
    return gosa;
}

// --- The vector width the suite is compiled for --------------------------------------------------
#if defined(__AVX512F__)
inline constexpr int k_vector_doubles = 8;
inline constexpr int k_vector_registers = 32;
#elif defined(__AVX__)
inline constexpr int k_vector_doubles = 4;
inline constexpr int k_vector_registers = 16;
#else
inline constexpr int k_vector_doubles = 2;
inline constexpr int k_vector_registers = 16;
#endif
// One vector register of doubles (GCC vector extensions): `a * v` broadcasts a scalar, `acc += a * v`
// contracts to an FMA where the ISA has one (the suite is compiled with -march=native; C++ keeps
// -ffp-contract=fast).
using SuiteVector = double __attribute__((vector_size(k_vector_doubles * sizeof(double))));

// --- 3-D 7-point Jacobi with spatial blocking in j -------------------------------------------------
// Stengel, Treibig, Hager & Wellein, ICS 2015, Sect. 3.2: the k-1, k and k+1 layers a block sweeps are
// `jb` rows of ni points rather than whole planes, so the 3-D layer condition holds in a cache that the
// planes of the grid overflow. Threads share the j-blocks (each sweeps its blocks through all k); the
// block count should be a multiple of the thread count. Rows j = 1 .. nj-2 are updated in blocks of jb.
// Whether the blocked Jacobi's double body writes b with non-temporal stores: its rows are whole vectors
// (ni a multiple of the vector width) and the first interior point (1, 1, 1) sits on a vector boundary, so
// that every row's interior, with its east boundary point and the next row's west one, is whole aligned
// vectors.
inline bool jacobi7_streams(const double* b, std::size_t nj, std::size_t ni) {
    constexpr std::size_t W = k_vector_doubles;
    return ni % W == 0 && reinterpret_cast<std::uintptr_t>(b + nj * ni + ni + 1) % (W * sizeof(double)) == 0;
}

// One vector of doubles from any address, and one stored past the caches to an aligned one (MOVNTPD: the
// line goes to memory through the write-combining buffers without being read first).
inline SuiteVector load_vector(const double* p) {
    SuiteVector v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void stream_vector(double* p, const SuiteVector& v) {
#if defined(__AVX512F__)
    _mm512_stream_pd(p, reinterpret_cast<__m512d>(v));
#elif defined(__AVX__)
    _mm256_stream_pd(p, reinterpret_cast<__m256d>(v));
#else
    _mm_stream_pd(p, reinterpret_cast<__m128d>(v));
#endif
}

// The 7-point sum at x, a(x) read as at(x), in the one order both forms of the blocked body add it (an
// element or a vector of elements: the streaming rows' results equal the element loop's, and the untuned
// body's, bit for bit).
template <class At> auto jacobi7_sum(const At& at, std::size_t x, std::size_t ni, std::size_t plane) {
    return at(x) + at(x - 1) + at(x + 1) + at(x - ni) + at(x + ni) + at(x - plane) + at(x + plane);
}

// How far ahead of the row being swept the double body prefetches the leading layer (k+1) into L1, in
// doubles: 1 KiB, 16 lines per row stream. That layer is the only one the blocked sweep reads from memory;
// software prefetch is one of the stencil optimisations of Datta et al. (SC08, Sect. 4, "software
// prefetching"): it asks for the lines before the loads do (faster in interleaved comparisons,
// docs/benchmarks.md). A prefetch past the end of the array is harmless: prefetches never fault.
inline constexpr std::size_t k_jacobi_prefetch_doubles = 128;
// And 8 KiB ahead into L2 (PREFETCHT1), so that the line is on its way from memory well before the L1
// prefetch above asks for it: a far prefetch from memory into L2 and a near one from L2 into L1, the two
// distances Intel's compilers take for the prefetches they generate in loops
// (`-qopt-prefetch-distance=n1,n2`, Intel C++ Compiler Classic Developer Guide and Reference: n1 >= n2
// iterations ahead; the comparison is in docs/benchmarks.md). The tuned Himeno and SpMV do without: it
// gained nothing for the Himeno's merged coefficients and slowed the SpMV, whose loop is bound by its loads
// in the core.
inline constexpr std::size_t k_jacobi_prefetch_l2_doubles = 1024;

// Row `lo` (and with Pair row `hi`, side by side) of the double body with non-temporal stores
// (jacobi7_blocked_body): whole vectors from (lo + 1), the last one's lanes W-2 and W-1 (the row's east
// boundary point and the next row's west one) set to a's.
template <bool Pair>
void jacobi7_stream_rows(double* __restrict b, const double* __restrict a, double s, std::size_t lo,
                         std::size_t hi, std::size_t ni, std::size_t plane) {
    constexpr std::size_t W = k_vector_doubles;
    const auto at = [a](std::size_t y) { return load_vector(a + y); };
    const auto point = [&](std::size_t x) { return s * jacobi7_sum(at, x, ni, plane); };
    // The leading layer above point x: near into L1, far into L2.
    const auto prefetch = [a, plane](std::size_t x) {
        __builtin_prefetch(a + x + plane + k_jacobi_prefetch_doubles, 0, 3);
        __builtin_prefetch(a + x + plane + k_jacobi_prefetch_l2_doubles, 0, 2);
    };
    std::size_t i = 1;
    for (; i + W < ni + 1; i += W) {
        prefetch(lo + i);
        if constexpr (Pair)
            prefetch(hi + i);
        stream_vector(b + lo + i, point(lo + i));
        if constexpr (Pair)
            stream_vector(b + hi + i, point(hi + i));
    }
    const auto last = [&](std::size_t row) {
        SuiteVector v = point(row + i);
        v[W - 2] = a[row + ni - 1];
        v[W - 1] = a[row + ni];
        stream_vector(b + row + i, v);
    };
    last(lo);
    if constexpr (Pair)
        last(hi);
}

// `stream` false: ordinary stores throughout (the in-cache run, whose stores must stay in the caches).
template <class T>
[[gnu::noinline]] void jacobi7_blocked_body(T* __restrict b, const T* __restrict a, T s, std::size_t nk,
                                            std::size_t nj, std::size_t ni, std::size_t jb,
                                            bool stream = true) {
    const std::size_t plane = nj * ni;
    const std::size_t blocks = (nj - 2 + jb - 1) / jb;
    const auto at = [a](std::size_t y) -> const T& { return a[y]; };
    auto point = [&](std::size_t x) { return s * jacobi7_sum(at, x, ni, plane); };
    // Non-temporal stores (double only, where jacobi7_streams holds): b is written once per sweep and not
    // read, so its lines need not be read into the caches first (write-allocate) nor kept there; the
    // kernel then moves 16 B per point from memory instead of 24, and its store stream leaves L2 and L3
    // (Hager & Wellein, "Introduction to High Performance Computing for Scientists and Engineers", 2010,
    // Sect. 1.3.1 on write-allocate and nontemporal stores). The store covers whole lines, so the last vector
    // of a row also writes the row's east boundary point and the next row's west one: they take a's values,
    // which b's boundary holds as well (a Jacobi's fixed boundary is the same in both arrays; the runner sets
    // it so). The same sums in the same order as point(), lane by lane.
    bool streams = false;
    if constexpr (std::is_same_v<T, double>)
        streams = stream && jacobi7_streams(b, nj, ni);
#pragma omp for schedule(static) nowait
    for (std::size_t blk = 0; blk < blocks; ++blk) {
        const std::size_t j0 = 1 + blk * jb, j1 = std::min(nj - 1, j0 + jb);
        // The block's rows in two halves swept side by side: row j and row j + half in one inner loop, so
        // each thread keeps two write streams (and two streams of the leading layer) in flight, not one
        // (stream capacity: one write stream per core falls short of the write bandwidth that several
        // reach; docs/machine-file.md). The layers the block reuses are the same rows as before.
        const std::size_t half = (j1 - j0 + 1) / 2;
        for (std::size_t k = 1; k < nk - 1; ++k) {
            for (std::size_t j = j0; j < j0 + half; ++j) {
                const std::size_t lo = k * plane + j * ni, hi = lo + half * ni;
                const bool pair = j + half < j1;
                if constexpr (std::is_same_v<T, double>) {
                    if (streams) {
                        if (pair)
                            jacobi7_stream_rows<true>(b, a, s, lo, hi, ni, plane);
                        else
                            jacobi7_stream_rows<false>(b, a, s, lo, hi, ni, plane);
                        continue;
                    }
                }
                if (pair) {
#pragma omp simd
                    for (std::size_t i = 1; i < ni - 1; ++i) {
                        b[lo + i] = point(lo + i);
                        b[hi + i] = point(hi + i);
                    }
                } else {
#pragma omp simd
                    for (std::size_t i = 1; i < ni - 1; ++i)
                        b[lo + i] = point(lo + i);
                }
            }
        }
    }
    if (streams)
        _mm_sfence(); // the streamed lines are visible before the team's barrier
}

// x[idx[0..W)] into one vector. Element by element, GCC 12 builds it with W masked broadcasts that merge
// into one register: a serial chain of W dependent instructions per vector. Pairs joined by shuffles form
// a tree of depth log2(W) instead, a shorter dependency chain per vector (the hardware gather instruction
// is the other candidate; runners.hpp, spmv_gather_choice).
using SuitePair = double __attribute__((vector_size(2 * sizeof(double))));
using SuiteQuad = double __attribute__((vector_size(4 * sizeof(double))));
// V is SuiteVector; as a template parameter it keeps the branches of other widths unchecked (clang checks a
// discarded `if constexpr` branch that depends on no template parameter).
template <int W = k_vector_doubles, class V = SuiteVector>
void gather_x(V& out, const double* __restrict x, const std::int32_t* __restrict idx) {
    const auto pair = [&](int l) { return SuitePair{x[idx[l]], x[idx[l + 1]]}; };
    if constexpr (W == 8) {
        const SuiteQuad lo = __builtin_shufflevector(pair(0), pair(2), 0, 1, 2, 3);
        const SuiteQuad hi = __builtin_shufflevector(pair(4), pair(6), 0, 1, 2, 3);
        out = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
    } else if constexpr (W == 4) {
        out = __builtin_shufflevector(pair(0), pair(2), 0, 1, 2, 3);
    } else {
        out = pair(0);
    }
}

// x[idx[0..W)] into one vector with the ISA's gather instruction (AVX-512 vgatherdpd zmm, AVX2 vgatherdpd
// ymm; SSE has none and takes the shuffle tree). The masked forms with a zeroed source: GCC 12 warns that
// the unmasked forms' source may be used uninitialised.
inline void hardware_gather_x(SuiteVector& out, const double* __restrict x,
                              const std::int32_t* __restrict idx) {
#if defined(__AVX512F__)
    out = reinterpret_cast<SuiteVector>(_mm512_mask_i32gather_pd(
        _mm512_setzero_pd(), 0xFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx)), x, 8));
#elif defined(__AVX2__)
    out = reinterpret_cast<SuiteVector>(_mm256_mask_i32gather_pd(
        _mm256_setzero_pd(), x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx)),
        _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8));
#else
    gather_x(out, x, idx);
#endif
}

// --- SpMV in SELL-C-sigma ---------------------------------------------------------------------------
// Kreutzer, Hager, Wellein, Fehske & Bishop, "A unified sparse matrix data format for efficient general
// sparse matrix-vector multiplication on modern processors with wide SIMD units", SIAM J. Sci. Comput.
// 36(5), 2014: rows are grouped in chunks of C (the SIMD width in doubles), each chunk stored column by
// column (element j of the chunk's C rows are adjacent), so the inner loop runs across C rows with
// unit-stride loads of val and col, a gather of x and no horizontal reduction. sigma = 1: the suite's
// rows all have the same length, so sorting by length would change nothing and no chunk is padded.
// chunk_ptr[c]: first element of chunk c; chunk_len[c]: its width (elements per row).
// This thread's share of `n` items under `omp for schedule(static)` (libgomp's split: the first n % t
// threads one item more), so that a body that walks its share itself keeps the first-touch partition.
inline std::pair<std::size_t, std::size_t> static_share(std::size_t n) {
    const auto t = static_cast<std::size_t>(omp_get_num_threads());
    const auto i = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t q = n / t, r = n % t;
    const std::size_t begin = i * q + std::min(i, r);
    return {begin, begin + q + (i < r ? 1 : 0)};
}

template <int C, bool HardwareGather = false, class T>
[[gnu::noinline]] void
spmv_sell_body(T* __restrict y, const T* __restrict val, const std::int32_t* __restrict col,
               const std::int64_t* __restrict chunk_ptr, const std::int32_t* __restrict chunk_len,
               const T* __restrict x, std::size_t chunks) {
    if constexpr (std::is_same_v<T, double> && C == k_vector_doubles) {
        // One vector of C rows: an array of accumulators stayed in memory across the j loop (GCC 12
        // spills `double acc[C]`), so the chunks' rows are held in vector registers explicitly. Two chunks,
        // one from each half of the thread's share, are swept side by side: four read streams (val and
        // col of each) in flight instead of two, and two accumulators per chunk, four independent
        // multiply-add chains for the latency (joining a chunk's two adds one add per row, 1/16 per
        // non-zero, which the 2 flops per non-zero leave out as the untuned CSR's vector reduction is
        // left out). HardwareGather: x through the gather instruction, else gather_x.
        auto term = [&](std::int64_t at) {
            SuiteVector vv, xv;
            std::memcpy(&vv, val + at, sizeof(vv));
            if constexpr (HardwareGather)
                hardware_gather_x(xv, x, col + at);
            else
                gather_x(xv, x, col + at);
            return vv * xv;
        };
        auto store = [&](std::size_t c, SuiteVector sum) { std::memcpy(y + c * C, &sum, sizeof(sum)); };
        auto one = [&](std::size_t c) {
            const std::int64_t p = chunk_ptr[c];
            SuiteVector acc0{}, acc1{};
            std::int32_t j = 0;
            for (; j + 1 < chunk_len[c]; j += 2) {
                acc0 += term(p + j * C);
                acc1 += term(p + (j + 1) * C);
            }
            if (j < chunk_len[c])
                acc0 += term(p + j * C);
            store(c, acc0 + acc1);
        };
        const auto [begin, end] = static_share(chunks);
        const std::size_t half = (end - begin + 1) / 2;
        for (std::size_t c = begin; c < begin + half; ++c) {
            const std::size_t d = c + half;
            if (d >= end || chunk_len[c] != chunk_len[d]) {
                one(c);
                if (d < end)
                    one(d);
                continue;
            }
            const std::int64_t p = chunk_ptr[c], q = chunk_ptr[d];
            SuiteVector a0{}, a1{}, b0{}, b1{};
            std::int32_t j = 0;
            for (; j + 1 < chunk_len[c]; j += 2) {
                a0 += term(p + j * C);
                b0 += term(q + j * C);
                a1 += term(p + (j + 1) * C);
                b1 += term(q + (j + 1) * C);
            }
            if (j < chunk_len[c]) {
                a0 += term(p + j * C);
                b0 += term(q + j * C);
            }
            store(c, a0 + a1);
            store(d, b0 + b1);
        }
    } else {
#pragma omp for schedule(static) nowait
        for (std::size_t c = 0; c < chunks; ++c) {
            const T* __restrict v = val + chunk_ptr[c];
            const std::int32_t* __restrict cl = col + chunk_ptr[c];
            T acc[C] = {};
            for (std::int32_t j = 0; j < chunk_len[c]; ++j)
                for (int l = 0; l < C; ++l)
                    acc[l] += v[j * C + l] * x[cl[j * C + l]];
            for (int l = 0; l < C; ++l)
                y[c * C + l] = acc[l];
        }
    }
}

// --- Register-blocked matrix multiply ---------------------------------------------------------------
// Goto & van de Geijn, "Anatomy of high-performance matrix multiplication", ACM TOMS 34(3), 2008: C += A B
// (n x n, row-major) in blocks of kc (k) and mc (rows of A and C); each kc x mc block of A is packed into
// micro-panels of MR rows (stored k-major: the MR elements of one k are adjacent) meant to stay in L2, the
// kc x n panel of B into micro-panels of NR columns (the NR elements of one k adjacent) that stay in L1
// while the micro-kernel sweeps the MR-row panels of A; the micro-kernel holds an MR x NR block of C in
// registers and updates it with one broadcast of A and NR / W vector loads of B per k (W doubles per
// vector). MR and NR come from the ISA at compile time: NR = 2 vectors, MR = as many rows as the vector
// registers left after B and the broadcast hold (Goto & van de Geijn, Sect. 6), at most 8: a power of two,
// so that power-of-two sizes shared among power-of-two thread counts leave no padded micro-panel and no
// thread a panel more than another (with 12, 512 rows on two threads gave one thread 22 panels and the
// other 21, one padded). 8 x 2 vectors still holds 16 accumulators, twice what an FMA latency of 4 cycles
// on two pipes needs (the comparison of 8 and 12 rows is in docs/benchmarks.md).
inline constexpr int k_gemm_nv = 2;
inline constexpr int k_gemm_nr = k_gemm_nv * k_vector_doubles;
inline constexpr int k_gemm_mr = std::min(8, (k_vector_registers - k_gemm_nv - 1) / k_gemm_nv);

// Packs rows [i0, i0+rows) x columns [p0, p0+kc) of A (leading dimension n) into micro-panels of MR rows,
// zero-padding the last panel. A full panel is read one cache line of each row at a time and written without
// a test per element: its rows lie n elements apart (4 KiB for the suite's n = 512), so reading them element
// by element across the MR rows kept MR lines of one L1 set in use at once (more than its ways).
template <int MR, class T>
void gemm_pack_a(T* __restrict out, const T* __restrict a, std::size_t n, std::size_t i0, std::size_t rows,
                 std::size_t p0, std::size_t kc) {
    constexpr std::size_t line = 64 / sizeof(T) > 0 ? 64 / sizeof(T) : 1;
    std::size_t r0 = 0;
    for (; r0 + MR <= rows; r0 += MR, out += MR * kc) {
        const T* src = a + (i0 + r0) * n + p0;
        for (std::size_t pb = 0; pb < kc; pb += line) {
            const std::size_t pe = std::min(kc, pb + line);
#pragma GCC unroll 16
            for (std::size_t r = 0; r < MR; ++r)
                for (std::size_t p = pb; p < pe; ++p)
                    out[p * MR + r] = src[r * n + p];
        }
    }
    if (r0 < rows)
        for (std::size_t p = 0; p < kc; ++p)
            for (std::size_t r = 0; r < MR; ++r, ++out)
                *out = r0 + r < rows ? a[(i0 + r0 + r) * n + p0 + p] : T(0);
}

// Packs rows [p0, p0+kc) x columns [j0, j0+NR) of B into one micro-panel, zero-padded beyond column n; a
// full panel copies NR contiguous elements per row.
template <int NR, class T>
void gemm_pack_b_panel(T* __restrict out, const T* __restrict bm, std::size_t n, std::size_t p0,
                       std::size_t kc, std::size_t j0) {
    if (j0 + NR <= n) {
        for (std::size_t p = 0; p < kc; ++p, out += NR)
#pragma GCC unroll 16
            for (std::size_t c = 0; c < NR; ++c)
                out[c] = bm[(p0 + p) * n + j0 + c];
        return;
    }
    for (std::size_t p = 0; p < kc; ++p)
        for (std::size_t c = 0; c < NR; ++c, ++out)
            *out = j0 + c < n ? bm[(p0 + p) * n + j0 + c] : T(0);
}

// The portable form of the micro-kernel (any value type, e.g. the tests' counting type): the same loop
// over k with an MR x NR accumulator block, which the vector form below holds in registers.
template <int MR, int NR, class T>
void gemm_micro_generic(std::size_t kc, const T* __restrict ap, const T* __restrict bp, T* __restrict cm,
                        std::size_t ldc, std::size_t rows, std::size_t cols) {
    T acc[MR][NR] = {};
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            acc[r][c] = cm[r * ldc + c];
    for (std::size_t p = 0; p < kc; ++p)
        for (int r = 0; r < MR; ++r)
            for (int c = 0; c < NR; ++c)
                acc[r][c] +=
                    ap[p * MR + static_cast<std::size_t>(r)] * bp[p * NR + static_cast<std::size_t>(c)];
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            cm[r * ldc + c] = acc[r][c];
}

using GemmVector = SuiteVector;

template <int MR, int NV>
[[gnu::noinline]] void gemm_micro_vector(std::size_t kc, const double* __restrict ap,
                                         const double* __restrict bp, double* __restrict cm, std::size_t ldc,
                                         std::size_t rows, std::size_t cols) {
    constexpr int W = k_vector_doubles, NR = NV * W;
    const bool full = rows == MR && cols == NR;
    // The accumulators start at zero and the block of C is added once after the k loop (BLIS's micro-kernels
    // do the same): its MR rows lie ldc apart (4 KiB for n = 512, one L1 set), so loading them first made
    // every call wait for C; prefetched here, they arrive while the k loop runs. The MR x NR additions per
    // call are not among the declared 2 flops per (i, j, p), as BLIS counts 2 n^3 (1/(2 kc) more work).
    // (The comparison with C loaded first is in docs/benchmarks.md.)
    GemmVector acc[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
        if (static_cast<std::size_t>(r) < rows)
            for (std::size_t c = 0; c < cols; c += 64 / sizeof(double))
                __builtin_prefetch(cm + static_cast<std::size_t>(r) * ldc + c, 1, 3);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
            acc[r][v] = GemmVector{};
    }
    for (std::size_t p = 0; p < kc; ++p) {
        GemmVector b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
            std::memcpy(&b[v], bp + p * NR + static_cast<std::size_t>(v * W), sizeof(GemmVector));
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
            const double a = ap[p * MR + static_cast<std::size_t>(r)];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v)
                acc[r][v] += a * b[v];
        }
    }
    if (full) {
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) {
                double* dst = cm + static_cast<std::size_t>(r) * ldc + static_cast<std::size_t>(v * W);
                GemmVector c;
                std::memcpy(&c, dst, sizeof(GemmVector));
                c += acc[r][v];
                std::memcpy(dst, &c, sizeof(GemmVector));
            }
        return;
    }
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            cm[r * ldc + c] += acc[r][c / W][c % W];
}

// C += A B. Threads share C's rows in blocks of mc (static schedule) and pack the k block's panel of B
// together into the one shared buffer `b_pack` (kc x n rounded up to NR columns, each thread its share of
// the micro-panels, as BLIS packs B cooperatively: Smith et al., IPDPS 2014), then each packs its
// blocks of A into its own `a_pack` (mc x kc, rounded up to MR rows). kc_block: the k block. Two barriers
// per k block: B is complete before any thread reads it, and read by all before the next block replaces it.
// Called by every thread of a team (or by one thread outside a parallel region).
template <class T>
void gemm_packed_body(T* __restrict cm, const T* __restrict am, const T* __restrict bm, std::size_t n,
                      std::size_t mc, std::size_t kc_block, T* __restrict a_pack, T* __restrict b_pack) {
    constexpr int MR = k_gemm_mr, NR = k_gemm_nr;
    const std::size_t row_blocks = (n + mc - 1) / mc, col_panels = (n + NR - 1) / NR;
    for (std::size_t p0 = 0; p0 < n; p0 += kc_block) {
        const std::size_t kc = std::min(kc_block, n - p0);
#pragma omp for schedule(static)
        for (std::size_t jp = 0; jp < col_panels; ++jp)
            gemm_pack_b_panel<NR>(b_pack + jp * kc * NR, bm, n, p0, kc, jp * NR);
#pragma omp for schedule(static)
        for (std::size_t rb = 0; rb < row_blocks; ++rb) {
            const std::size_t i0 = rb * mc, rows = std::min(mc, n - i0);
            gemm_pack_a<MR>(a_pack, am, n, i0, rows, p0, kc);
            for (std::size_t j0 = 0; j0 < n; j0 += NR) {
                const T* bp = b_pack + (j0 / NR) * kc * NR;
                for (std::size_t r0 = 0; r0 < rows; r0 += MR) {
                    const T* ap = a_pack + (r0 / MR) * kc * MR;
                    T* c = cm + (i0 + r0) * n + j0;
                    const std::size_t mr = std::min<std::size_t>(MR, rows - r0);
                    const std::size_t nr = std::min<std::size_t>(NR, n - j0);
                    if constexpr (std::is_same_v<T, double>)
                        gemm_micro_vector<MR, k_gemm_nv>(kc, ap, bp, c, n, mr, nr);
                    else
                        gemm_micro_generic<MR, NR>(kc, ap, bp, c, n, mr, nr);
                }
            }
        }
    }
}

} // namespace roofcast::measure::suite
