#include "experiment/bench.hpp"

#include "core/error.hpp"
#include "experiment/bench_phases.hpp"
#include "measure/harness.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>
#include <thread>
#include <vector>

namespace roofcast::model {

int bench_threads(const BenchOptions& o, const core::Machine& m) {
    if (o.threads < 0)
        throw core::InputError("", "threads",
                               "expected a thread count >= 1, got " + std::to_string(o.threads));
    if (o.threads > 0)
        return o.threads;
    // Every core of the machine file, but no more than this host can run at once (a machine file
    // written by hand may describe a larger machine).
    const int here = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (m.topology && m.topology->cores > 0)
        return std::min(m.topology->cores, here);
    return here;
}

std::vector<SuiteKernel> select_kernels(const BenchOptions& o, const core::Machine& m, int threads) {
    const bool all = o.suite == "all";
    if (!all && std::find(k_suite_names.begin(), k_suite_names.end(), o.suite) == k_suite_names.end())
        throw core::InputError("", "suite",
                               "unknown suite '" + o.suite + "'; valid: " +
                                   fmt::format("{}", fmt::join(k_suite_names, ", ")) + ", all");
    std::vector<SuiteKernel> cat = suite_catalogue(m, threads, o.machine_file);
    std::vector<SuiteKernel> out;
    if (!o.kernel.empty()) {
        for (auto& k : cat)
            if (k.name == o.kernel)
                out.push_back(std::move(k));
        if (out.empty()) {
            std::vector<std::string> names;
            for (const auto& k : cat)
                names.push_back(k.name);
            throw core::InputError("", "kernel",
                                   "unknown kernel '" + o.kernel +
                                       "'; valid: " + fmt::format("{}", fmt::join(names, ", ")));
        }
        return out;
    }
    for (auto& k : cat)
        if (k.suite == "calibrate" && (all || o.suite == "calibrate"))
            out.push_back(k);
    for (auto& k : cat)
        if (k.suite != "calibrate" && (all || o.suite == k.suite))
            out.push_back(k);
    return out;
}

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
