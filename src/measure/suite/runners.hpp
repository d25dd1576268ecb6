// Measurement of the built-in kernel suite: each runner allocates its arrays 64-byte aligned, writes
// them first with the same threads and static schedule as the timed loop (first touch), pins the
// OpenMP threads one per physical core with the bandwidth kernels' placement (measure::pin_team), and
// times whole calls with the one harness (measure/harness.hpp), one parallel region per epoch. Runners only
// measure: sizes come from the caller (the catalogue chooses them from the machine's caches) and no runner
// knows flops or bytes.
#pragma once

#include "measure/harness.hpp"
#include "measure/pages.hpp"
#include "measure/suite/kernels.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::suite {

struct SuiteOptions {
    int threads = 1;
    HarnessOptions harness;
};

struct Measurement {
    core::Summary seconds_per_call;
    std::uint64_t repetitions = 1; // calls per epoch
    double checksum = 0;           // a value computed from the output, so the work cannot be elided
    // Load balance: per timed call of the team, the slowest thread's busy time (its calls, without the
    // closing barrier) over the mean; the smallest over the calls, as the epochs' best time (a thread a
    // neighbour preempts looks busy longer, so the least disturbed call shows the kernel's own balance).
    // Empty for one thread.
    std::optional<double> thread_imbalance;
};

// Reusable arrays across runs: a runner asks for `slot` with n elements and gets the slot's buffer,
// reallocated only when it is too small. Page faults of fresh memory then happen once per suite rather
// than once per kernel; every runner still writes its arrays itself before timing (first touch on the
// first use, the same static schedule afterwards).
class Workspace {
public:
    template <class T> T* array(std::size_t slot, std::size_t n) {
        if (m_slots.size() <= slot)
            m_slots.resize(slot + 1);
        if (m_slots[slot].size() < n * sizeof(T))
            m_slots[slot] = AlignedArray<unsigned char>(n * sizeof(T));
        return reinterpret_cast<T*>(m_slots[slot].data());
    }

private:
    std::vector<AlignedArray<unsigned char>> m_slots;
};

struct Grid3 {
    std::size_t nk = 0, nj = 0, ni = 0; // outermost first; i is contiguous
    std::size_t points() const { return nk * nj * ni; }
};

// First touch of the three STREAM/calibration arrays, with the loop construct of their bodies.
void stream_init(double* a, double* b, double* c, std::size_t n);

// The two calibration loops: the copy with stores (calibration_body; memory, whose traffic in the
// mixed model streams one load and one store) and the read-only sum (calibration_load_body; the cache
// levels, whose traffic in the mixed model is reuse loads).
enum class CalibrationShape { copy, load };

// Extra multiply-add counts of the calibration loops (moved bytes per flop 12, 6, 4, 3, 2, 1.33, 1, 0.67,
// 0.5 for the copy; 8, 4.8, 3.4, 2.7, 1.8, 1.3, 0.96, 0.65, 0.49 for the read-only loop).
inline constexpr std::array<int, 9> k_calibration_fmas{0, 1, 2, 3, 5, 8, 11, 17, 23};

// Reuse counts K of the overlap calibration loops (overlap_body): from memory-bound (K = 1) across the
// memory/cache switch to cache-bound, for caches 1.3 to 5 times faster than memory.
inline constexpr std::array<int, 7> k_overlap_reuses{1, 2, 3, 4, 6, 8, 12};
// The same loops with 3K extra multiply-adds (1 + K + 6K flops): the three-way mix of memory, cache and
// compute on which the mixed model's compute/data exponent is calibrated (model/calibration.hpp). 3K lies
// between the mixed family's flop levels (1.5n and 4.5n), so no calibration loop is a family member.
constexpr int overlap_compute_fmas(int reuses) {
    return 3 * reuses;
}

// The mixed family's neighbour counts n and, per n, three flop levels: Q = 0, round(1.5 n),
// round(4.5 n) extra multiply-adds, i.e. l = n + 2Q ~ n, 4n, 10n flops per iteration. n = 1 (one
// reused row) is memory-bound wherever a cache delivers more than 1 1/3 x the memory bandwidth, so the
// family starts on the memory side of its switch.
inline constexpr std::array<int, 10> k_mixed_neighbours{1, 2, 3, 4, 5, 6, 8, 10, 12, 14};
inline constexpr int k_mixed_flop_levels = 3;
constexpr int mixed_extra_fmas(int n, int level) {
    return level == 0 ? 0 : level == 1 ? (3 * n + 1) / 2 : (9 * n + 1) / 2;
}

Measurement run_stream(StreamOp op, std::size_t n, const SuiteOptions& opt, Workspace& ws);
// `extra_fmas` must be one of k_calibration_fmas (std::invalid_argument otherwise).
Measurement run_calibration(CalibrationShape shape, int extra_fmas, std::size_t n, const SuiteOptions& opt,
                            Workspace& ws);
// `reuses` must be one of k_overlap_reuses with extra_fmas 0 or overlap_compute_fmas(reuses) (the suite's
// loops), or (reuses, extra_fmas) a member (n, Q) of the mixed family below (bench/overlap-compute.sh);
// std::invalid_argument otherwise. n a multiple of `window_row` (W, elements per window row).
Measurement run_overlap(int reuses, std::size_t n, std::size_t window_row, const SuiteOptions& opt,
                        Workspace& ws, int extra_fmas = 0);
// (neighbours, extra_fmas) must be a member of the family above (std::invalid_argument otherwise).
Measurement run_mixed(int neighbours, int extra_fmas, const Grid3& g, const SuiteOptions& opt, Workspace& ws);
Measurement run_jacobi7(const Grid3& g, const SuiteOptions& opt, Workspace& ws);
Measurement run_himeno(const Grid3& g, const SuiteOptions& opt, Workspace& ws);
// Tuned forms (tuned_kernels.hpp). Himeno with merged coefficients: g.ni a multiple of 16.
Measurement run_himeno_merged(const Grid3& g, const SuiteOptions& opt, Workspace& ws);
// Jacobi blocked in j: blocks of `jb` rows, threads sharing the blocks.
// stream: b written with non-temporal stores where the layout allows (tuned_kernels.hpp); false for a run
// whose data must stay in the caches.
Measurement run_jacobi7_blocked(const Grid3& g, std::size_t jb, const SuiteOptions& opt, Workspace& ws,
                                bool stream = true);

struct SpmvShape {
    std::size_t rows = 0;
    int nnz_per_row = 16;
    std::size_t band = 64; // columns lie within row +- band
};
// Deterministic column pattern of row r (sorted, distinct, inside [0, rows) and within +- band).
void spmv_columns(const SpmvShape& s, std::size_t r, std::int32_t* out);
Measurement run_spmv(const SpmvShape& s, const SuiteOptions& opt, Workspace& ws);
// The same matrix in SELL-C-1 with C = sell_chunk_rows() (rows must be a multiple of it), x gathered as
// spmv_gather_choice() says.
Measurement run_spmv_sell(const SpmvShape& s, const SuiteOptions& opt, Workspace& ws);
// How the tuned SpMV loads x[col[..]] into a vector: with the ISA's gather instruction, or with scalar
// loads joined by shuffles. Which is faster is a property of the core, not of the ISA (the gather
// instruction lost on an AMD Zen 4 core and won on an Intel Emerald Rapids core; docs/benchmarks.md), so,
// as an autotuner's install-time search does (ATLAS: Whaley & Dongarra, SC 1998,
// Sect. 3), both are timed once per process on one thread with the matrix in L2 (1024 rows of the suite's
// pattern, the fastest of 9 interleaved calls each after one untimed call: measure::fastest_interleaved;
// nanoseconds per non-zero) and the faster is used from then on.
struct SpmvGatherChoice {
    bool hardware = false;
    double hardware_ns = 0, shuffle_ns = 0;
};
const SpmvGatherChoice& spmv_gather_choice();
// The demangled-name prefix of the SELL body that spmv_gather_choice() selects (the diagnosis
// disassembles that one).
std::string spmv_sell_symbol();
// Rows per SELL chunk and the register block of the packed matmul: properties of the ISA the suite is
// compiled for (the catalogue, compiled portably, asks here rather than reading the macros itself).
int sell_chunk_rows();
struct GemmTile {
    int mr = 0, nr = 0;
};
GemmTile gemm_tile();
// The packed matmul's k block, chosen among `candidates` ((kc, mc) pairs, the first the analytic rule): a
// longer k loop spreads the micro-kernel's update of its C block (MR rows ldc apart) over more multiply-adds,
// while a shorter one keeps the kc x NR micro-panel of B in less of L1, and which wins is a property of the
// core (as ATLAS's install-time search decides such blocks by timing: Whaley & Dongarra, SC 1998, Sect. 3).
// Each pair is timed on one thread, the packed body on an n x n product (the fastest of 3 interleaved calls
// after one untimed call, measure::fastest_interleaved), once per process and set of candidates: the index of
// the fastest and each candidate's best seconds per call (empty where there was nothing to choose).
struct BlockChoice {
    std::size_t index = 0;
    std::vector<double> seconds;
};
BlockChoice gemm_block_choice(std::size_t n,
                              const std::vector<std::pair<std::size_t, std::size_t>>& candidates);
// Packed, register-blocked matmul (n x n), blocks of mc rows and kc along k.
Measurement run_matmul_packed(std::size_t n, std::size_t mc, std::size_t kc, const SuiteOptions& opt,
                              Workspace& ws);
// n must be a multiple of tile.
Measurement run_matmul(std::size_t n, std::size_t tile, const SuiteOptions& opt, Workspace& ws);
Measurement run_norm(std::size_t n, const SuiteOptions& opt, Workspace& ws);

} // namespace roofcast::measure::suite
