// `roofcast bench` as a library: selects kernels of the built-in suite, measures them (measure layer),
// turns the calibration loops into effective figures (model/calibration.hpp), and compares every
// other kernel with every model's prediction. The comparison itself (compare_kernel) and the summaries
// (accuracy, the mixed family's memory-bound -> cache-bound switch) are pure functions of measured
// times, kernel specs and the machine, unit-tested without timing anything.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "experiment/suite_catalogue.hpp"
#include "model/calibration.hpp"
#include "model/kernel.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

struct BenchOptions {
    std::string suite = "all"; // stream | calibrate | mixed | apps | all
    std::string kernel;        // one kernel by name (overrides suite)
    int threads = 0;           // 0 = every core of the machine
    bool quick = false;        // fewer and shorter epochs
    int rounds = 0;            // passes over the suite (0 = default: 3, quick 1); see run_bench
    std::string machine_file;  // names the machine in errors
    // Reference probes before every kernel of every round, for the host's noise floor (experiment/noise.hpp).
    bool probes = true;
    // Extra rounds for kernels whose two best rounds disagree (experiment/round_settle.hpp).
    bool settle = true;
};

// The mixed family's switch from memory-bound to cache-bound, along the members with the fewest flops
// (l = n) in order of n. Predicted: the first member whose mixed-model bottleneck is a cache level.
// Measured: the first member whose best time per iteration exceeds that of the first member by more
// than k_switch_rise (memory-bound members all take the time of their memory streams).
inline constexpr double k_switch_rise = 0.10;
struct FamilySwitch {
    std::string cache; // C
    std::vector<std::string> members;
    std::vector<int> neighbours;
    std::optional<std::size_t> predicted; // index into members
    std::optional<std::size_t> measured;
};

struct BenchReport {
    core::Results results;
    std::optional<Calibration> calibration;
    std::optional<FamilySwitch> mixed_switch;
    int threads = 1;
};

using Progress = std::function<void(const std::string&)>;

// Throws InputError for an unknown suite or kernel (listing the valid names) and for machines whose
// cache sizes are unknown.
BenchReport run_bench(const BenchOptions& o, const core::Machine& m, const Progress& progress = {});

// Measured time per call against every model: traffic and rates derived from the spec, predictions from
// predict(), error_pct = (predicted rate - measured rate) / measured rate * 100 on the best epoch (the
// shortest time, as STREAM reports its best rate: the models bound what the machine can attain, and
// on a shared host the best epoch is the one least disturbed). Median, min..max and n stay in the result.
// The calibration points and the family switch use the best epoch too.
core::KernelResult compare_kernel(const KernelSpec& spec, const std::string& suite, int threads,
                                  const core::Summary& seconds_per_call, const core::Machine& m);

// The overlap loops' best times per iteration (kernels with overlap_reuses > 0).
std::vector<OverlapPoint> overlap_points(const std::vector<SuiteKernel>& kernels,
                                         const std::vector<core::KernelResult>& results);
// Calibration points of measured calibration loops (kernels and results in the same order).
std::vector<CalibrationPoint> calibration_points(const std::vector<SuiteKernel>& kernels,
                                                 const std::vector<core::KernelResult>& results);

FamilySwitch family_switch(const std::vector<SuiteKernel>& kernels,
                           const std::vector<core::KernelResult>& results);

// Model accuracy per model over the validation kernels (role "validation": the mixed family, STREAM, the
// tuned and reference kernels), never the calibration loops or the untuned kernels (core::accuracy_of).
std::vector<core::AccuracySummary> accuracy_summary(const std::vector<core::KernelResult>& results);

// The same over a subset: the models' errors on the kernels whose mixed prediction is valid (the mixed
// family "inside validity"), so classic roofline's error is shown on the same members.
std::vector<core::AccuracySummary> accuracy_on_mixed_valid(const std::vector<core::KernelResult>& results);

} // namespace roofcast::model
