// The fraction of the bound round by round against the probe beside the kernel (model/round_verdict.hpp).
#include "model/round_verdict.hpp"

#include <gtest/gtest.h>

using namespace roofcast::model;

TEST(RoundVerdict, DriftThatProbeAndKernelShareCancels) {
    // The host runs at 100 %, 80 %, 50 % of its best in three rounds; the kernel reaches 90 % of a 1 s bound
    // in each, so its best epochs take 1/0.9, 1/(0.9 x 0.8), 1/(0.9 x 0.5) s. The probe saw 50, 40, 25 GB/s.
    const std::vector<double> times{1 / 0.9, 1.2, 1.3, 1 / 0.72, 1.5, 1.6, 1 / 0.45, 2.5, 2.4};
    const auto f = round_fractions(times, 3, {50, 40, 25}, 1.0, 50);
    ASSERT_EQ(f.size(), 3u);
    for (double x : f)
        EXPECT_NEAR(x, 0.9, 1e-12);
}

TEST(RoundVerdict, ABurstOnTheKernelAloneShowsInItsRound) {
    // Round 2: the probe ran at its best, the kernel at half speed: that round's fraction halves.
    const auto f = round_fractions({1.0, 1.0, 2.0, 2.0, 1.0, 1.0}, 3, {10, 10, 10}, 0.8, 10);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_DOUBLE_EQ(f[0], 0.8);
    EXPECT_DOUBLE_EQ(f[1], 0.4);
    EXPECT_DOUBLE_EQ(f[2], 0.8);
}

TEST(RoundVerdict, CountsThatDoNotLineUpGiveNothing) {
    EXPECT_TRUE(round_fractions({1, 1, 1}, 2, {1, 1}, 1, 1).empty()); // 3 epochs in 2 rounds
    EXPECT_TRUE(round_fractions({1, 1}, 2, {1}, 1, 1).empty());       // one probe unit for two rounds
    EXPECT_TRUE(round_fractions({1, 1}, 2, {1, 0}, 1, 1).empty());    // a probe unit of zero
    EXPECT_TRUE(round_fractions({1, 1}, 2, {1, 1}, 0, 1).empty());    // no bound
    EXPECT_TRUE(round_fractions({1, 1}, 0, {}, 1, 1).empty());
    EXPECT_TRUE(round_fractions({}, 1, {1}, 1, 1).empty());
}
