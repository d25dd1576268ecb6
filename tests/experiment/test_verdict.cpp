// Three-valued verdicts (experiment/verdict.hpp): the interval of a kernel's fraction of its bound from its
// rounds or its epochs, and the state it supports.
#include "experiment/diagnosis.hpp"
#include "experiment/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

namespace roofcast::model {
namespace {

core::KernelResult kernel_with(std::vector<double> seconds_per_call, std::vector<double> rounds = {}) {
    core::KernelResult k;
    k.name = "k";
    k.iterations = 10;
    core::Prediction p;
    p.model = "mixed";
    p.seconds_per_iteration = 0.1; // a bound of 1 s per call
    k.predictions.push_back(p);
    core::Summary s;
    s.samples = std::move(seconds_per_call);
    if (!s.samples.empty())
        s.min = *std::min_element(s.samples.begin(), s.samples.end());
    s.n = s.samples.size();
    k.measured_seconds = s;
    k.bound_fraction_rounds = std::move(rounds);
    return k;
}

TEST(Verdict, EpochsGiveMedianToBest) {
    // Bound 1 s per call: fractions 1, 1/1.1 and 1/1.3; the median epoch reaches 0.909.
    const auto at = kernel_verdict(kernel_with({1.1, 1.0, 1.3}), 0.85);
    ASSERT_TRUE(at);
    EXPECT_EQ(at->basis, "epochs");
    EXPECT_DOUBLE_EQ(at->fraction, 1.0);
    EXPECT_DOUBLE_EQ(at->hi, 1.0);
    EXPECT_DOUBLE_EQ(at->lo, 1.0 / 1.1);
    EXPECT_EQ(at->confidence, 0);
    EXPECT_EQ(at->state, "at-bound");
    EXPECT_EQ(kernel_verdict(kernel_with({1.0, 1.3, 1.4}), 0.85)->state, "undetermined");
    EXPECT_EQ(kernel_verdict(kernel_with({2.0, 2.5, 3.0}), 0.85)->state, "below");
    // One probe-normalised round is not an interval: the epochs alone decide.
    EXPECT_EQ(kernel_verdict(kernel_with({2.0, 2.5}, {0.9}), 0.85)->basis, "epochs");
}

TEST(Verdict, RoundsWidenTheIntervalWithTheirOrderStatistics) {
    // Epochs 0.952-1.0; the rounds against their probes 0.80-0.95.
    const auto v = kernel_verdict(kernel_with({1.0, 1.05, 1.05}, {0.95, 0.80, 0.90}), 0.85, 2.3, "memory");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->basis, "epochs and rounds");
    EXPECT_DOUBLE_EQ(v->fraction, 1.0);
    EXPECT_DOUBLE_EQ(v->lo, 0.80);
    EXPECT_DOUBLE_EQ(v->hi, 1.0);
    EXPECT_DOUBLE_EQ(v->confidence, 0.75); // 1 - 2 x 0.5^3
    EXPECT_EQ(v->state, "undetermined");
    const std::string text = undetermined_text(*v);
    EXPECT_NE(text.find("80-100 %"), std::string::npos) << text;
    EXPECT_NE(text.find("bandwidth from memory moved 2.30x"), std::string::npos) << text;
    // Rounds above the epochs widen the upper end; all of it above the threshold is at the bound.
    const auto up = kernel_verdict(kernel_with({1.0, 1.1}, {0.9, 1.2, 1.0, 0.95, 0.92}), 0.85);
    EXPECT_DOUBLE_EQ(up->hi, 1.2);
    EXPECT_DOUBLE_EQ(up->confidence, 1 - 2 * std::pow(0.5, 5));
    EXPECT_EQ(up->state, "at-bound");
    EXPECT_EQ(kernel_verdict(kernel_with({2.0, 2.1}, {0.5, 0.6, 0.84}), 0.85)->state, "below");
}

TEST(Verdict, NeedsABoundAndATime) {
    core::KernelResult k = kernel_with({1.0});
    k.predictions.clear();
    EXPECT_FALSE(kernel_verdict(k, 0.85));
    EXPECT_FALSE(kernel_verdict(kernel_with({}), 0.85));
    const auto one = kernel_verdict(kernel_with({2.0}), 0.85);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->basis, "one epoch");
    EXPECT_EQ(one->state, "below");
}

} // namespace
} // namespace roofcast::model
