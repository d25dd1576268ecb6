// The bench's phases on made-up runs (experiment/bench_phases.hpp): kernels whose "measurements" are scripted
// times and a clock that advances one second per kernel call, so the rounds, the settling and its cap are
// checked without timing anything.
#include "core/stats.hpp"
#include "experiment/bench_phases.hpp"
#include "experiment/round_settle.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::model;
using namespace roofcast::model::bench_phases;

namespace {

// A kernel whose n-th call takes script[n] seconds (the last one repeated), each call three equal samples;
// every call advances `clock` by one second.
SuiteKernel scripted_kernel(const std::string& name, std::vector<double> script, double& clock) {
    SuiteKernel k;
    k.name = name;
    k.suite = "stream";
    auto calls = std::make_shared<std::size_t>(0);
    k.run = [script, calls, &clock](const measure::suite::SuiteOptions&, measure::suite::Workspace&) {
        const double t = script[std::min(*calls, script.size() - 1)];
        ++*calls;
        clock += 1.0;
        measure::suite::Measurement m;
        m.seconds_per_call = *core::summarize({t, t, t});
        return m;
    };
    return k;
}

void size_run(BenchRun& run, const BenchOptions& o, int rounds) {
    run.options = &o;
    run.rounds = rounds;
    const std::size_t n = run.kernels.size();
    run.samples.assign(n, {});
    run.extra.assign(n, {});
    run.round_best.assign(n, {});
    run.imbalance.assign(n, std::nullopt);
}

} // namespace

TEST(BenchPhases, OnlyTheUnsettledKernelRunsExtraRoundsUntilTwoAgree) {
    double clock = 0;
    BenchOptions o;
    o.settle = true;
    BenchRun run;
    run.kernels = {scripted_kernel("steady", {1.0}, clock),
                   scripted_kernel("disturbed", {1.0, 1.5, 1.4, 1.01}, clock)};
    size_run(run, o, 2);
    const measure::Clock now = [&clock] { return clock; };
    std::vector<std::string> lines;
    const Progress progress = [&lines](const std::string& s) { lines.push_back(s); };
    interleaved_rounds(run, progress, now);
    EXPECT_DOUBLE_EQ(run.pass_seconds, 4.0); // two rounds of two kernels
    EXPECT_EQ(run.samples[0].size(), 6u);    // three samples per round, in the rounds' layout
    EXPECT_EQ(run.samples[1].size(), 6u);
    settle_rounds(run, progress, now);
    EXPECT_EQ(run.extra_rounds, 2); // 1.4 leaves it open, 1.01 meets the first round's 1.0
    EXPECT_TRUE(run.extra[0].empty());
    EXPECT_EQ(run.extra[1].size(), 6u);
    EXPECT_TRUE(round_settled(run.round_best[1]));
    ASSERT_EQ(lines.size(), 6u);
    EXPECT_EQ(lines.front(), "[round 1/2] [1/2] steady");
    EXPECT_EQ(lines.back(), "[settling 2] [1/1] disturbed");

    kernel_times(run); // the run's rounds and the extra rounds together
    ASSERT_EQ(run.times.size(), 2u);
    EXPECT_EQ(run.times[1].samples.size(), 12u);
    EXPECT_DOUBLE_EQ(run.times[1].min, 1.0);
}

TEST(BenchPhases, SettlingStopsAtTheCap) {
    const RoundSettleCap cap = round_settle_cap(false);
    double clock = 0;
    BenchOptions o;
    o.settle = true;
    BenchRun run;
    run.kernels = {scripted_kernel("never", {1.0, 1.5}, clock)};
    size_run(run, o, 2);
    const measure::Clock now = [&clock] { return clock; };
    interleaved_rounds(run, {}, now);
    const double before = clock;
    settle_rounds(run, {}, now);
    EXPECT_FALSE(round_settled(run.round_best[0]));
    EXPECT_GT(run.extra_rounds, 0);
    EXPECT_FALSE(another_round(cap, run.extra_rounds, clock - before, run.pass_seconds));
    EXPECT_TRUE(another_round(cap, run.extra_rounds - 1, clock - before - 1.0, run.pass_seconds));
}

TEST(BenchPhases, NoSettlingWithoutTheOption) {
    double clock = 0;
    BenchOptions o;
    o.settle = false;
    BenchRun run;
    run.kernels = {scripted_kernel("never", {1.0, 1.5}, clock)};
    size_run(run, o, 2);
    const measure::Clock now = [&clock] { return clock; };
    interleaved_rounds(run, {}, now);
    settle_rounds(run, {}, now);
    EXPECT_EQ(run.extra_rounds, 0);
    EXPECT_EQ(run.round_best[0].size(), 2u);
}

TEST(BenchPhases, AKernelWithoutSamplesIsAnError) {
    BenchOptions o;
    BenchRun run;
    double clock = 0;
    run.kernels = {scripted_kernel("empty", {1.0}, clock)};
    size_run(run, o, 1);
    EXPECT_THROW(kernel_times(run), std::runtime_error);
}
