#include "core/stats.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>

using roofcast::core::summarize;

TEST(Stats, MedianOddAndEven) {
    EXPECT_DOUBLE_EQ(*roofcast::core::median({3, 1, 2}), 2.0);
    EXPECT_DOUBLE_EQ(*roofcast::core::median({4, 1, 2, 3}), 2.5); // (2+3)/2
    EXPECT_FALSE(roofcast::core::median({}).has_value());
}

TEST(Stats, SummaryOfFixedSamples) {
    // samples 10, 10.2, 9.9, 10.1, 10.0: median 10.0, spread (10.2-9.9)/10 = 0.03 -> not noisy
    auto s = summarize({10.0, 10.2, 9.9, 10.1, 10.0});
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->median, 10.0);
    EXPECT_DOUBLE_EQ(s->min, 9.9);
    EXPECT_DOUBLE_EQ(s->max, 10.2);
    EXPECT_EQ(s->n, 5u);
    EXPECT_NEAR(*s->spread, 0.03, 1e-12);
    EXPECT_FALSE(s->noisy);
    EXPECT_EQ(s->samples.size(), 5u);
}

TEST(Stats, NoisyFlagAboveFivePercent) {
    // median 10, spread (11-9.5)/10 = 0.15 > 0.05
    auto s = summarize({9.5, 10.0, 11.0});
    EXPECT_TRUE(s->noisy);
    EXPECT_NEAR(*s->spread, 0.15, 1e-12);
}

TEST(Stats, UndefinedStatisticsAreNullopt) {
    EXPECT_FALSE(summarize({}).has_value());
    auto z = summarize({0.0, 0.0});
    EXPECT_FALSE(z->spread.has_value());
    EXPECT_FALSE(z->noisy);
}

TEST(Stats, RejectsNonFinite) {
    EXPECT_THROW(summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

TEST(Stats, RateFromTimesSwapsMinAndMax) {
    // 100 work units over times 1, 2, 4 s: rates 100, 50, 25 -> median 50, min 25, max 100
    auto t = summarize({1.0, 2.0, 4.0});
    auto r = roofcast::core::rate_from_times(*t, 100.0);
    EXPECT_DOUBLE_EQ(r.median, 50.0);
    EXPECT_DOUBLE_EQ(r.min, 25.0);
    EXPECT_DOUBLE_EQ(r.max, 100.0);
    EXPECT_NEAR(*r.spread, 1.5, 1e-12); // (100-25)/50
}

TEST(Stats, Quantile) {
    EXPECT_DOUBLE_EQ(*roofcast::core::quantile({0, 10}, 0.25), 2.5);
    EXPECT_FALSE(roofcast::core::quantile({1}, 1.5).has_value());
}

namespace roofcast::core {
TEST(BestKMedian, MedianOfTheLargest) {
    EXPECT_DOUBLE_EQ(*best_k_median({10, 50, 48, 20, 49}, 3), 49.0);
    EXPECT_DOUBLE_EQ(*best_k_median({10, 50}, 3), 30.0); // fewer than k: every value
    EXPECT_FALSE(best_k_median({}, 3));
    EXPECT_FALSE(best_k_median({1.0}, 0));
}
} // namespace roofcast::core

TEST(Stats, InterquartileSpreadIgnoresAHiccupAndSeesABurstOverAQuarter) {
    // {9, 10, 10, 11, 30}: Q1 10, median 10, Q3 11 -> 0.1; the 30 does not count.
    EXPECT_NEAR(*roofcast::core::interquartile_spread({9, 10, 10, 11, 30}), 0.1, 1e-12);
    EXPECT_DOUBLE_EQ(*roofcast::core::interquartile_spread({5, 5, 5}), 0.0);
    // Nine epochs, three of them (one round) 50 % slower: Q3 (position 6 of 0..8) is a slow epoch.
    const std::vector<double> round{1, 1, 1, 1, 1, 1, 1.5, 1.5, 1.5};
    EXPECT_NEAR(*roofcast::core::interquartile_spread(round), 0.5, 1e-12);
    const std::vector<double> hiccup{1, 1, 1, 1, 1, 1, 1, 1.5, 1.5};
    EXPECT_DOUBLE_EQ(*roofcast::core::interquartile_spread(hiccup), 0.0);
    EXPECT_FALSE(roofcast::core::interquartile_spread({}));
    EXPECT_FALSE(roofcast::core::interquartile_spread({0, 0, 0}));
    // Two samples: half their distance over their mean.
    EXPECT_NEAR(*roofcast::core::interquartile_spread({90, 110}), 10.0 / 100.0, 1e-12);
}

TEST(Stats, StudentTQuantile) {
    EXPECT_DOUBLE_EQ(roofcast::core::t_quantile_975(3), 3.182);
    EXPECT_NEAR(roofcast::core::t_quantile_975(100), 1.984, 1e-3);
    EXPECT_TRUE(std::isinf(roofcast::core::t_quantile_975(0)));
}
