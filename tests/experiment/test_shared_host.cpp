// Accuracy on a shared host (experiment/shared_host.hpp): whether the host was shared, and each prediction's
// distance beyond the measured interval.
#include "core/results.hpp"
#include "experiment/shared_host.hpp"

#include <gtest/gtest.h>

namespace roofcast::model {
namespace {

// A kernel bounded by the mixed model at 1 s per iteration whose verdict's fraction of that bound spans
// [lo, hi], with a roofline prediction of `roofline_s` seconds per iteration.
core::KernelResult interval_kernel(double lo, double hi, double roofline_s) {
    core::KernelResult k;
    k.name = "k";
    k.iterations = 4;
    core::Prediction mixed;
    mixed.model = "mixed";
    mixed.seconds_per_iteration = 1.0;
    core::Prediction roof;
    roof.model = "roofline";
    roof.seconds_per_iteration = roofline_s;
    k.predictions = {mixed, roof};
    core::Verdict v;
    v.lo = lo;
    v.hi = hi;
    v.state = "undetermined";
    k.verdict = v;
    return k;
}

core::HostNoise probes(std::vector<double> memory_gbs) {
    core::HostNoise n;
    core::NoiseProbe p;
    p.kind = "memory";
    p.kernel = "calib";
    p.gbs = std::move(memory_gbs);
    n.probes.push_back(p);
    return n;
}

core::Prediction roofline_at(double seconds) {
    core::Prediction p;
    p.model = "roofline";
    p.seconds_per_iteration = seconds;
    return p;
}

} // namespace

// The measured rate spans [0.8, 1.1] of the bound's: a prediction of the bound's own rate lies inside; one
// twice as fast lies 2 / 1.1 - 1 beyond the upper end; one half as fast 1 - 0.5 / 0.8 below the lower end.
TEST(SharedHost, BeyondIsTheDistanceFromTheNearerEnd) {
    const core::KernelResult k = interval_kernel(0.8, 1.1, 1.0);
    EXPECT_DOUBLE_EQ(*beyond_interval(k, k.predictions[0]), 0.0);
    EXPECT_DOUBLE_EQ(*beyond_interval(interval_kernel(0.8, 1.1, 0.5), roofline_at(0.5)), 2.0 / 1.1 - 1.0);
    EXPECT_DOUBLE_EQ(*beyond_interval(interval_kernel(0.8, 1.1, 2.0), roofline_at(2.0)), 1.0 - 0.5 / 0.8);
    core::KernelResult none = k;
    none.verdict.reset();
    EXPECT_FALSE(beyond_interval(none, k.predictions[0]));
}

TEST(SharedHost, IntervalAccuracyCountsEachModel) {
    const std::vector<core::KernelResult> kernels = {interval_kernel(0.9, 1.05, 1.0), // roofline inside
                                                     interval_kernel(0.9, 1.0, 0.95), // 1/0.95 - 1 = 5.3 %
                                                     interval_kernel(0.9, 1.0, 0.5)}; // 100 % beyond
    std::vector<core::AccuracySummary> acc(2);
    acc[0].model = "mixed";
    acc[1].model = "roofline";
    add_interval_accuracy(acc, kernels);
    EXPECT_EQ(acc[0].n_interval, 3u); // the bound itself: inside every interval that reaches 1
    EXPECT_EQ(acc[0].inside_interval, 3u);
    EXPECT_EQ(acc[1].n_interval, 3u);
    EXPECT_EQ(acc[1].inside_interval, 1u);
    EXPECT_EQ(acc[1].within_tolerance, 2u);
    EXPECT_NEAR(*acc[1].max_beyond_pct, 100.0, 1e-9);
}

TEST(SharedHost, JudgedFromStealProbesAndCeilings) {
    const core::Machine m;
    const core::HostSharing quiet = judge_host(0.001, probes({20.0, 20.5, 21.0}), m);
    EXPECT_FALSE(quiet.shared);
    EXPECT_NEAR(*quiet.probe_moved, 1.05, 1e-12);
    const core::HostSharing stolen = judge_host(0.031, probes({20.0, 21.0}), m);
    ASSERT_TRUE(stolen.shared);
    EXPECT_EQ(stolen.reasons.front(), "steal time 3.1 % of the run");
    const core::HostSharing moved = judge_host(std::nullopt, probes({14.6, 20.0, 33.9}), m);
    ASSERT_TRUE(moved.shared);
    EXPECT_EQ(moved.reasons.front(), "the memory probe moved 2.32x");
    core::Machine two_groups;
    core::ComputeCeiling c;
    c.precision = "double";
    c.isa = "avx2";
    c.op = "fma";
    c.threads = 2;
    c.gflops.samples = {47, 49, 51, 52, 54, 56, 87, 88, 88, 89};
    two_groups.ceilings.push_back(c);
    const core::HostSharing grouped = judge_host(0.0, std::nullopt, two_groups);
    ASSERT_TRUE(grouped.shared);
    EXPECT_EQ(grouped.reasons.front(),
              "the double avx2 fma ceiling's samples fell in two groups (2 threads)");
}

} // namespace roofcast::model
