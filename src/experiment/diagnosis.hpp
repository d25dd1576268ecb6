// Why a kernel falls short of its prediction (issue 13 §1, docs/diagnosis.md). The mixed model predicts
// attainable performance; Minami et al. (cache-aware roofline, §6-7) list why untuned programs fall short
// of it (no SIMD or software pipelining, cache thrashing, TLB thrashing, FP units poorly used) and tune
// until the measured performance reaches about 85 % of the prediction. Below that fraction roofcast names
// the likely causes, each with the figure it measured or derived and the limit that figure was held
// against. Two steps: evidence (gathered by the caller from the loop nest, the machine file, the
// disassembly and per-thread times) and rules (diagnose, a pure function tested on synthetic evidence).
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "model/kernel.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

// Below this fraction of its prediction a kernel is diagnosed (Minami et al. §7: tuning ends at ~85 %).
inline constexpr double k_diagnosis_fraction = 0.85;
// A load imbalance max/mean = x leaves the team idle for 1 - 1/x of the time: it is named when that
// alone would put a kernel below k_diagnosis_fraction, x > 1 / 0.85.
inline constexpr double k_imbalance_limit = 1.0 / k_diagnosis_fraction;
// A calibrated memory bandwidth this much above the machine run's measurement would alone put a kernel that
// runs at the measured figure below k_diagnosis_fraction: it is named then (memory-drift).
inline constexpr double k_memory_drift_limit = 1.0 / k_diagnosis_fraction;
// An in-core resource (L1 loads/stores, FP issue) that alone explains this share of the measured time binds.
inline constexpr double k_in_core_share = 0.70;
// The compiled loop's width or FP mix is named a cause only when its flops at the matching ceiling explain at
// least this share of the time (a memory-bound loop may be scalar without losing anything).
inline constexpr double k_code_share = 0.50;

// From the disassembly of the kernel's innermost loop (measure/disasm.hpp, `roofcast inspect`).
struct CodeEvidence {
    std::string function;
    int vector_bits = 0; // widest FP arithmetic width in the loop (0: scalar only)
    int fp_scalar = 0;   // scalar FP arithmetic instructions
    int fp_vector = 0;   // packed FP arithmetic instructions
    int fma = 0, add = 0, mul = 0;
    int gathers = 0;
    int fma_chains = 0; // FMA accumulators carried across passes (measure::LoopInspection::fma_chains)
    int loads = 0;      // instructions with a memory source in one pass
    int stores = 0;     // instructions with a memory destination in one pass
};

struct SetConflict {
    std::string level;
    int streams_per_set = 0; // most streams mapping into one set (model/access_streams.hpp)
    int associativity = 0;
    double span_bytes = 0; // size / associativity: addresses this far apart share a set
};

struct DiagnosisEvidence {
    double fraction = 1;         // measured / predicted
    int machine_vector_bits = 0; // widest SIMD the machine offers (0: unknown)
    std::optional<CodeEvidence> code;
    std::optional<int> streams; // concurrent streams of the innermost loop
    std::string capacity_level; // the level whose stream capacity `stream_capacity` is
    std::optional<int> stream_capacity;
    std::optional<double> capacity_fraction; // bandwidth at `streams` over the best stream count's
    // The same with the points' ranges in the count's favour (core::StreamCapacity::upper_fraction_at): the
    // cause is named only where this too lies below the limit, i.e. beyond the curve's own spread.
    std::optional<double> capacity_upper_fraction;
    std::vector<SetConflict> sets;   // every cache level with a known associativity
    std::optional<int> pages;        // distinct 4 KiB pages in flight
    std::optional<int> tlb_entries;  // first-level data TLB, 4 KiB pages
    std::string huge_pages;          // transparent huge pages: always | madvise | never | ""
    std::optional<double> l1_share;  // L1 bytes at the L1 roof over the measured time
    std::optional<double> fp_share;  // flops at the ceiling of the code's width over the measured time
    std::string fp_ceiling;          // that ceiling's name
    std::optional<double> imbalance; // slowest thread's busy time over the mean
    // The lowest ceiling above the measured rate (the one the kernel sits directly under) when it is an
    // in-core compute ceiling below the peak ("AVX2 without ILP", "scalar FMA"), with measured / it.
    std::string under_ceiling;
    std::optional<double> under_share;
    // FMA accumulators that hide the FMA latency on every FMA unit: the machine's FMA ceiling over its
    // one-chain ceiling at the compiled loop's width (one thread), rounded to the nearest whole number.
    std::optional<int> fma_chains_needed;
    // The mixed prediction's terms against the measured time (seconds per iteration): the exponent at which
    // the kernel's data terms give the measured time (overlap_exponent_for) and the calibrated p it was
    // held against (the lower end of its 95 % interval, else p itself).
    std::optional<double> overlap_equivalent;
    std::optional<double> overlap_calibrated;
    std::optional<double>
        overlap_calibrated_high; // upper end of p's interval (absent: unbounded or no interval)
    double overlap_fitted = 0;   // the calibrated p itself
    std::string largest_term;    // level (or "compute") of the largest term
    double largest_seconds = 0, terms_sum_seconds = 0, measured_seconds = 0;
    // The same body with its arrays in L2 (core::KernelResult::in_cache_seconds) and the bound prediction's
    // memory term, seconds per iteration.
    std::optional<double> in_cache_seconds;
    double memory_seconds = 0;
    double memory_bytes = 0; // the memory term's bytes per iteration (its bandwidth: bytes / seconds)
    // The prediction's memory bandwidth when it was calibrated by the bench's copy loops, the machine run's
    // own measurement for the kernel's access mix (choose_bandwidth without the calibration), and the
    // kernel's fraction of the bound with that measurement in the memory term.
    std::optional<double> memory_calibrated_gbs;
    std::optional<double> memory_calibrated_half_width_gbs; // its 95 % half-width over the copy loops
    std::optional<double> memory_measured_gbs;
    std::string memory_measured_source;
    std::string memory_measured_when; // when the machine file was measured (its `created`), when it says
    std::optional<double> fraction_with_measured_memory;
};

// The causes evidence supports: first memory-drift (the bound's memory bandwidth, not the kernel), then the
// kernel's own, most specific first (cache-conflict, stream-capacity, tlb-reach, vector-width, fp-mix,
// gather, in-core, load-imbalance, overlap), memory-rate only where none of those fires; empty when
// fraction >= k_diagnosis_fraction; one "unexplained" entry listing what was checked when no rule fires.
std::vector<core::Diagnosis> diagnose(const DiagnosisEvidence& e);

// The kernel's ceilings at its intensity in the roofline paper's order (core::Ceiling), each marked
// `above` when it exceeds `measured_gflops`. Compute ceilings of the kernel's precision at its thread
// count (one-thread ceilings times the threads where the machine has none at that count); bandwidth
// ceilings of every level the kernel moves bytes at.
std::vector<core::Ceiling> kernel_ceilings(const core::KernelResult& k, const core::Machine& m,
                                           std::optional<double> measured_gflops);

// The code evidence of the loop with the most FP arithmetic of `symbol` in the running binary
// (measure::inspect_function on measure::self_binary()); nullopt, with the reason in `why`, when objdump
// is missing or no loop is found.
std::optional<CodeEvidence> code_evidence(const std::string& symbol, std::string* why = nullptr);

// Widest SIMD width in bits among the machine's ISAs (topology.isa), 0 when unknown.
int machine_vector_bits(const core::Machine& m);

// The prediction a kernel's fraction is taken against: the valid mixed prediction, else the first
// valid one of hierarchical, cache-aware, roofline; nullptr when none is valid.
const core::Prediction* bound_prediction(const core::KernelResult& k);

// Best epoch over the bound prediction (what k.bound_fraction holds), nullopt without a valid prediction
// or a measured time.
std::optional<double> fraction_of_bound(const core::KernelResult& k);

// Fills k.bound_fraction (best epoch over the bound prediction), k.ceilings and, below
// k_diagnosis_fraction, k.diagnosis from the evidence available: the loop nest's streams against the
// caches' sets, the TLB and the machine's stream capacity, the prediction's L1 term, the disassembly
// (`code`, optional), the per-thread imbalance (k.thread_imbalance, optional) and the in-cache time
// (k.in_cache_seconds, optional).
void diagnose_kernel(core::KernelResult& k, const KernelSpec& spec, const core::Machine& m,
                     const std::optional<CodeEvidence>& code = std::nullopt);

} // namespace roofcast::model
