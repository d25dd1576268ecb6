// Compute ceilings of this machine: the horizontal roofs of the roofline model (Williams, Waterman &
// Patterson, "Roofline: an insightful visual performance model for multicore architectures", CACM 52(4),
// 2009, section 4: the in-core ceilings from missing ILP, SIMD and FMA/balanced add-mul).
//
// Contract:
// - available_isas() lists the vector ISAs the CPU *and* the OS support, narrowest first.
// - measure_clock() measures the core clock with a register-register dependent add chain (one cycle per
//   add) timed by steady_clock, and calibrates the time-stamp counter against steady_clock.
// - measure_compute() runs one peak kernel per precision x ISA x op x thread count (threads pinned, one per
//   physical core), keeps every sample, records the clock measured around each ceiling, flags drift, and
//   derives the theoretical peak. Bad option values throw core::InputError (field = the option).
// Nothing here depends on hardware performance counters.
#pragma once

#include "core/machine.hpp"
#include "core/stats.hpp"
#include "measure/fp_peak.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

// Vector ISAs usable on this CPU (CPUID + OS XSAVE support via __builtin_cpu_supports), narrowest first,
// from {"scalar","sse","avx2","avx512"}.
std::vector<std::string> available_isas();

struct ClockReading {
    core::Summary ghz;      // one sample per epoch of the dependent add chain, timed with steady_clock
    double tsc_ghz = 0;     // time-stamp counter frequency, rdtsc calibrated against steady_clock
    double ghz_via_tsc = 0; // the same epochs timed with rdtsc, best one: cross-check of ghz.max
};

// Actual core clock from a register-register dependent add chain (1-cycle latency) timed with
// steady_clock, cross-checked against the TSC (rdtsc) frequency.
ClockReading measure_clock(int samples = 7);

struct ComputeOptions {
    std::vector<std::string> precisions{"double", "single"};
    std::vector<std::string> isas; // empty = all available; unknown/unsupported name -> core::InputError
    std::vector<std::string> ops{"fma", "add", "mul", "addmul", "chain"};
    std::vector<int> threads; // empty = {1, number of cores}
    bool quick = false;       // quick: fewer epochs, shorter epochs; whole compute part < ~8 s
    std::function<void(const std::string&)> progress; // may be empty
    std::function<void()> between;                    // called after every ceiling; may be empty
};

struct ComputeResult {
    // One per precision x isa x op x threads, each with the clock probed while it ran (ghz).
    std::vector<core::ComputeCeiling> ceilings;
    // Clock readings of the run, one per ceiling (the median of the probes around its epochs).
    core::Summary clock_ghz;
    double tsc_ghz = 0;
    bool clock_drift = false; // clock moved > 5 % between readings
    // The CPU whose documented issue rates give the theoretical peak (measure/fp_peak.hpp); empty vendor:
    // unknown, the FMA units are then inferred from the best FMA epoch.
    CpuIdentity cpu;
    // Theoretical, per precision: cores x SIMD lanes x 2 (FMA) x FMA units x clock.
    std::map<std::string, double> peak_gflops;
    // Measured, per precision: the best epoch of any ceiling.
    std::map<std::string, double> best_gflops;
    int fma_units = 0; // per core, as used for the theoretical peak
    int cores = 0;     // physical cores the theoretical peak counts
    std::vector<std::string> isas;
    std::vector<std::string> notes; // e.g. how fma_units was determined, drift warnings
    // Per ceiling (same order): flops per core and cycle of its best timed epoch, at the clock probed
    // around that epoch. Divided by lanes x 2 x fma_units it is the fraction of the theoretical peak.
    std::vector<double> best_flops_per_cycle;
};

ComputeResult measure_compute(const ComputeOptions& opt);

// The derivation measure_compute() ends with (pure, no timing; theoretical_peak.cpp): from r.cpu, r.isas,
// r.ceilings, r.best_flops_per_cycle, r.cores and r.clock_ghz, sets r.fma_units and r.peak_gflops and
// appends notes (where the FMA units come from, each ceiling's fraction of its op's peak, the FMA latency).
// The FMA units are the CPU's documented count (fp_peak.hpp); only for a CPU the table does not list (or
// lists with a range) are they inferred from the best FMA epoch of the widest ISA (clamped to the range).
void derive_theoretical_peak(ComputeResult& r);

// A measured ceiling against its op's theoretical peak per core and cycle (fp_peak.hpp's rule at the upper
// end of the documented rates, or for an unlisted CPU the most any listed core issues): never a figure taken
// from the epoch being judged. `basis` says which. The fraction is best_flops_per_cycle over that peak.
struct PeakJudgement {
    double peak_flops_per_cycle = 0;
    double fraction = 0;
    std::string basis;
};
PeakJudgement judge_against_peak(const CpuIdentity& cpu, const core::ComputeCeiling& c,
                                 double best_flops_per_cycle);
// Largest accepted fraction of the peak: the margin covers the clock probe's own spread, which is taken
// around an epoch but not during it (docs/measure-compute.md).
inline constexpr double k_peak_margin = 1.05;

// Ceilings that disagree with their kind (issue 22 section 1): one instruction kind on one vector width
// retires the same flops per core, cycle and SIMD lane whatever the precision and the thread count (every
// x86 core issues the packed single and double forms of add, mul and FMA at one rate, and the per-core rate
// counts min(threads, cores)), so a ceiling whose best epoch falls below `agreement` x the best of its
// (ISA, op) group was measured while something else held the FP units (a neighbour on the core's other
// hardware thread, a descheduled vCPU). The balanced add+mul ceiling is left out: its rate depends on how
// the core's scheduler spreads adds and multiplies over the pipes, so it moves against its kind's best from
// run to run where no other ceiling does (docs/noise.md).
// Indices into r.ceilings, in order; ceilings without a best epoch (best_flops_per_cycle 0) are neither
// judged nor used as the group's best.
constexpr double k_ceiling_agreement = 0.9;
std::vector<std::size_t> short_ceilings(const ComputeResult& r, double agreement = k_ceiling_agreement);

struct PeakKernel;
struct KernelCeiling {
    core::ComputeCeiling ceiling;
    double best_flops_per_cycle = 0; // as ComputeResult::best_flops_per_cycle
};
// Re-measures every short ceiling (short_ceilings) up to `retries` times, each time calling
// remeasure(i), and keeps a re-measurement when its best epoch is higher (a roof is an attainable bound:
// interference only lowers a rate); stops early once none is short. One note per ceiling that was short
// says what it was, what it became and whether it still disagrees. Call before derive_theoretical_peak.
void settle_ceilings(ComputeResult& r, const std::function<KernelCeiling(std::size_t)>& remeasure,
                     int retries);

// One ceiling of one kernel variant (e.g. from accumulator_sweep_kernels()), measured as
// measure_compute() does, with the clock probed while it ran. Throws core::Unsupported when the CPU
// lacks the kernel's instructions.
KernelCeiling measure_peak_kernel(const PeakKernel& kernel, int threads, bool quick);

// One compute ceiling measured exactly as `roofcast machine` measures it (same kernel, pinning, harness,
// clock probes), with its best epoch judged against its op's theoretical peak (judge_against_peak): the
// counterpart of `likwid-bench -t peakflops_avx512_fma`, for comparisons run by run.
// Unknown or unsupported names and threads < 1 throw core::InputError (field = the option).
struct CeilingPoint {
    core::ComputeCeiling ceiling;
    double best_flops_per_cycle = 0;
    PeakJudgement peak; // the op's theoretical peak per core and cycle and the best epoch's fraction of it
    int fma_units = 0;  // per core, of the machine's theoretical peak (0 when not derived)
    std::vector<std::string> notes;
};
CeilingPoint measure_ceiling_point(const std::string& precision, const std::string& isa,
                                   const std::string& op, int threads, bool quick);

// Names accepted by ComputeOptions, in the order results are produced.
const std::vector<std::string>& known_isas();       // scalar, sse, avx2, avx512
const std::vector<std::string>& known_precisions(); // double, single
const std::vector<std::string>& known_ops();        // fma, add, mul, addmul, chain

} // namespace roofcast::measure
