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

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace roofcast::measure {

// Vector ISAs usable on this CPU (CPUID + OS XSAVE support via __builtin_cpu_supports), narrowest first,
// from {"scalar","sse","avx2","avx512"}.
std::vector<std::string> available_isas();

struct ClockReading {
    core::Summary ghz;      // one sample per epoch of the dependent add chain, timed with steady_clock
    double tsc_ghz = 0;     // time-stamp counter frequency, rdtsc calibrated against steady_clock
    double ghz_via_tsc = 0; // the same add chain timed with rdtsc: cross-check of the steady_clock figure
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
};

struct ComputeResult {
    std::vector<core::ComputeCeiling> ceilings; // one per precision x isa x op x threads, each with ghz
    core::Summary clock_ghz;                    // all clock readings taken during the run
    double tsc_ghz = 0;
    bool clock_drift = false; // clock moved > 5 % between readings
    std::map<std::string, double>
        peak_gflops;   // theoretical: cores x SIMD lanes x 2 (FMA) x FMA units x clock
    int fma_units = 0; // per core, as used for the theoretical peak
    int cores = 0;     // physical cores the theoretical peak counts
    std::vector<std::string> isas;
    std::vector<std::string> notes; // e.g. how fma_units was determined, drift warnings
};

ComputeResult measure_compute(const ComputeOptions& opt);

// Names accepted by ComputeOptions, in the order results are produced.
const std::vector<std::string>& known_isas();       // scalar, sse, avx2, avx512
const std::vector<std::string>& known_precisions(); // double, single
const std::vector<std::string>& known_ops();        // fma, add, mul, addmul, chain

} // namespace roofcast::measure
