// The catalogue of roofcast's built-in kernel suite: one row per kernel, next to the bodies in
// measure/suite. Each row declares the kernel ONCE as a model::KernelSpec (flops per iteration and, where
// the access pattern is affine, its loop nest; explicit per-level bytes where residency rather than
// reuse decides the traffic), and holds the runner that measures it with the sizes chosen here from the
// machine's cache sizes. Every derived number (traffic per level, rates, predictions) comes from the
// spec through derive_traffic/derive_rates/predict, never from the row.
#pragma once

#include "core/cache_sharing.hpp"
#include "core/machine.hpp"
#include "measure/suite/runners.hpp"
#include "model/kernel.hpp"

#include <functional>
#include <string>
#include <vector>

namespace roofcast::model {

inline const std::vector<std::string> k_suite_names{"stream", "calibrate", "mixed", "apps"};
// What --suite takes: a suite's name, or all of them.
inline std::vector<std::string> suite_choices() {
    std::vector<std::string> out = k_suite_names;
    out.emplace_back("all");
    return out;
}

struct SuiteKernel {
    std::string name;
    std::string suite; // stream | calibrate | mixed | apps
    // An application kernel kept in its untuned form (the demonstration of the diagnosis, issue 13): it
    // is listed with its fraction of the bound and never enters model accuracy.
    bool untuned = false;
    // Demangled name of the runner whose OpenMP body holds the kernel's loop (measure/disasm.hpp), for the
    // diagnosis' code evidence; empty where several kernels share one templated runner.
    std::string code_symbol;
    // What this host decided about the kernel's code when the catalogue was built (a tuned kernel's timed
    // choices, with their times); the results carry them among the kernel's notes.
    std::vector<std::string> notes;
    KernelSpec spec; // spec.iterations = iterations per call
    // calibrate: the level the arrays reside in, and the requested (application) bytes per iteration.
    std::string resident_level;
    double requested_bytes = 0;
    // calibrate, overlap loops: K reuse loads per iteration served by level `overlap_cache` (0: not one).
    int overlap_reuses = 0;
    std::string overlap_cache;
    std::size_t overlap_row = 0; // W: elements per window row (n is a multiple of it)
    int overlap_extra_fmas = 0;  // Q: 0 (the data/data exponent's loops) or 3K (the compute/data exponent's)
    // mixed: the family coordinates (m memory streams, n cache accesses in level C, l flops).
    int mixed_n = 0;
    int mixed_flop_level = 0;
    std::string mixed_cache;
    std::function<measure::suite::Measurement(const measure::suite::SuiteOptions&,
                                              measure::suite::Workspace&)>
        run;
    // The same body on an instance whose arrays fit half the team's L2s, with `in_cache_iterations` per call:
    // the loop's in-core time with its L1 and L2 transfers (diagnosis evidence, docs/diagnosis.md); empty for
    // kernels without one (those whose data already lives in the caches, the loops of the other suites).
    std::function<measure::suite::Measurement(const measure::suite::SuiteOptions&,
                                              measure::suite::Workspace&)>
        run_in_cache;
    double in_cache_iterations = 0;
};

using core::CacheLevel;

// Bytes of a row of a reuse window rounded up to an odd number of 64-byte cache lines: rows one power-of-two
// stride apart fall into the same set of every cache whose set span (size / associativity) divides the
// stride, so n + 2 rows in an 8- or 12-way L1 evict each other between the reuses of a line (cache
// thrashing, Minami et al. §6-7; array padding, Hager & Wellein, "Introduction to High Performance
// Computing for Scientists and Engineers", §3.3). An odd line count maps consecutive rows to distinct sets
// of any power-of-two set count. The family's and the overlap loops' rows are sized with it.
std::size_t odd_line_bytes(double bytes);

// The whole catalogue for `threads` threads on machine `m` (sizes depend on both, the caches'
// core::cache_levels(m)); kernels are listed suite by suite in the order of k_suite_names. InputError naming
// `machine_file` when L1 or L2 has no size.
std::vector<SuiteKernel> suite_catalogue(const core::Machine& m, int threads,
                                         const std::string& machine_file);

// InputError naming "suite" unless `suite` is one of k_suite_names or "all".
void require_known_suite(const std::string& suite);
// The kernels of `catalogue` that `suite` (a name of k_suite_names, or "all") and `kernel` (one kernel's
// name, or empty: every kernel of the suite) select, in run order: calibration loops first, so that the
// others are predicted with the calibrated figures. InputError naming "kernel" for a name the catalogue
// lacks.
std::vector<SuiteKernel> select_kernels(std::vector<SuiteKernel> catalogue, const std::string& suite,
                                        const std::string& kernel);

} // namespace roofcast::model
