// The phases of `roofcast bench` (run_bench, experiment/bench.hpp), in the order it runs them: the plan
// (threads, kernels, rounds, probes), the interleaved rounds, the extra rounds of unsettled kernels, the
// kernels' times, the calibration, the comparison with every model (and the diagnosis's evidence), the
// settling record, the noise judgement (probes, round verdicts), the three-valued verdicts and the report's
// summaries. The state they share is one BenchRun; each phase reads and writes it (and the report) and
// nothing else, so a phase that measures nothing runs in a unit test on a made-up run, and the rounds take
// an injected clock.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "experiment/bench.hpp"
#include "experiment/noise.hpp"
#include "experiment/suite_catalogue.hpp"
#include "measure/harness.hpp"
#include "measure/host_noise.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::model::bench_phases {

// A reference probe of the run (experiment/noise.hpp): a calibration loop, timed for one short epoch before
// every kernel of every round, with its own arrays. Its rate is bytes per second of its resident level, or
// for the compute probe flops per second.
struct Probe {
    SuiteKernel kernel;
    ProbeRounds epochs;
    double units_per_call = 0;     // bytes (memory, cache, core) or flops (compute) per call
    std::uint64_t repetitions = 0; // calibrated by the first epoch, then fixed so every epoch is alike
};

struct BenchRun {
    const BenchOptions* options = nullptr;
    const core::Machine* machine_file = nullptr; // the machine as given
    int threads = 0;
    int rounds = 0;
    std::vector<SuiteKernel> kernels;
    std::optional<measure::CpuTimes> stat_before; // steal time over the suite (judge_host)
    measure::suite::SuiteOptions suite_options;
    measure::suite::Workspace workspace;
    std::vector<Probe> probes;
    measure::suite::Workspace probe_workspace;
    // Per kernel: the run's rounds' samples (`samples`, in the rounds' layout), those of the extra rounds
    // of settling (`extra`, outside it), each round's best and the least thread imbalance seen.
    std::vector<std::vector<double>> samples;
    std::vector<std::vector<double>> extra;
    std::vector<std::vector<double>> round_best;
    std::vector<std::optional<double>> imbalance;
    double pass_seconds = 0; // the interleaved rounds' time, which caps the settling's
    int extra_rounds = 0;
    std::vector<core::Summary> times; // per kernel, over all its samples
    core::Machine machine;            // calibrated in this run where it had calibration loops
    // Per kernel: how far the probe beside it moved over the rounds, and that probe's kind.
    std::vector<std::pair<std::optional<double>, std::string>> moved;
};

// Threads, kernels, rounds, the suite's options and the probes; reads the host's steal time counters.
// Throws InputError as run_bench does.
void plan(BenchRun& run, const BenchOptions& o, const core::Machine& m);
// `run.rounds` interleaved rounds: every round runs each kernel once, a probe epoch before each.
void interleaved_rounds(BenchRun& run, const Progress& progress, const measure::Clock& now);
// Extra rounds of the kernels whose two best rounds disagree, within the cap (experiment/round_settle.hpp).
void settle_rounds(BenchRun& run, const Progress& progress, const measure::Clock& now);
// Each kernel's summary over its samples of the rounds and of settling.
void kernel_times(BenchRun& run);
// Fits the calibration to the calibration loops and applies it to `run.machine`.
void calibrate_machine(BenchRun& run, BenchReport& rep);
// One result per kernel against the calibrated machine; below its bound a kernel's compiled loop and its
// time in cache join the diagnosis's evidence.
void compare_kernels(BenchRun& run, BenchReport& rep);
// Rounds each kernel ran and whether it settled (with settling on).
void record_settling(const BenchRun& run, BenchReport& rep);
// The noise statistics and the round-by-round fractions of the bound against the probes.
void judge_noise(BenchRun& run, BenchReport& rep);
// Three-valued verdicts: causes are named for a kernel whose whole interval lies below its bound only.
void kernel_verdicts(const BenchRun& run, BenchReport& rep);
// Version, date, machine, accuracy, host judgement, family switch and the run's notes.
void summarize(const BenchRun& run, BenchReport& rep);

} // namespace roofcast::model::bench_phases
