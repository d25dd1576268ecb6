#include "experiment/bench.hpp"

#include "experiment/bench_phases.hpp"
#include "measure/harness.hpp"

namespace roofcast::model {

// The phases in run order (experiment/bench_phases.hpp); the rounds time with the steady clock.
BenchReport run_bench(const BenchOptions& o, const core::Machine& m, const Progress& progress) {
    using namespace bench_phases;
    BenchRun run;
    BenchReport rep;
    plan(run, o, m);
    const measure::Clock now = measure::steady_clock();
    interleaved_rounds(run, progress, now);
    settle_rounds(run, progress, now);
    kernel_times(run);
    calibrate_machine(run, rep);
    compare_kernels(run, rep);
    record_settling(run, rep);
    judge_noise(run, rep);
    kernel_verdicts(run, rep);
    summarize(run, rep);
    return rep;
}

} // namespace roofcast::model
