#include "core/machine.hpp"
#include "core/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>

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

TEST(Stats, PoissonIntervalOfACount) {
    using roofcast::core::poisson_interval_95;
    // Garwood's exact 95 % limits as tabulated (e.g. Ulm, Am. J. Epidemiol. 131(2), 1990, Table 1).
    const std::vector<std::array<double, 3>> table = {{0, 0.0, 3.689},     {1, 0.0253, 5.572},
                                                      {2, 0.2422, 7.225},  {5, 1.623, 11.668},
                                                      {10, 4.795, 18.390}, {100, 81.364, 121.627}};
    for (const auto& [n, lo, hi] : table) {
        const auto [l, h] = poisson_interval_95(n);
        EXPECT_NEAR(l, lo, 1e-3 * std::max(1.0, lo)) << n;
        EXPECT_NEAR(h, hi, 1e-3 * hi) << n;
    }
    // Past 1000 the approximation joins the exact limits, and tends to n -/+ 1.96 sqrt(n).
    const auto exact = poisson_interval_95(1000), approx = poisson_interval_95(1000.5);
    EXPECT_NEAR(approx.first, exact.first, 1.0);
    EXPECT_NEAR(approx.second, exact.second, 1.0);
    const auto big = poisson_interval_95(1e6);
    EXPECT_NEAR(big.first, 1e6 - 1960, 5);
    EXPECT_NEAR(big.second, 1e6 + 1960, 5);
    EXPECT_EQ(poisson_interval_95(-1), (std::pair<double, double>{0.0, 0.0}));
}

namespace roofcast::core {

TEST(Stats, SplitsSamplesInTwoGroupsAtTheirGap) {
    // Twenty samples of a ceiling, as a shared host gave them: twelve at 47-56, eight at 87-89 GFLOP/s.
    std::vector<double> s{47, 48, 49, 50,   51, 51.5, 52,   52.5, 53, 54,
                          55, 56, 87, 87.5, 88, 88,   88.5, 88.5, 89, 89};
    std::reverse(s.begin(), s.end());
    const auto g = split_groups(s);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->lower.n, 12u);
    EXPECT_EQ(g->upper.n, 8u);
    EXPECT_DOUBLE_EQ(g->lower.max, 56);
    EXPECT_DOUBLE_EQ(g->upper.min, 87);
    EXPECT_DOUBLE_EQ(g->upper.median, 88.25);
    EXPECT_DOUBLE_EQ(g->gap, 87.0 / 56.0);
}

TEST(Stats, KeepsOneGroupWithoutAGapOrWithTooFewBeyondIt) {
    EXPECT_FALSE(split_groups({50, 51, 52, 53, 54, 55, 56, 57, 58, 59}));
    // Two fast samples of twenty are a lucky moment, not a group (at least max(3, n / 5) each side).
    std::vector<double> lucky(18, 50.0);
    lucky.push_back(90);
    lucky.push_back(91);
    EXPECT_FALSE(split_groups(lucky));
    EXPECT_FALSE(split_groups({1, 2, 3, 10, 20}));
    EXPECT_FALSE(split_groups({}));
}

TEST(Stats, ACeilingInTwoGroupsIsTheUpperGroupsMedian) {
    ComputeCeiling c;
    c.gflops = *summarize({47, 48, 49, 50, 51, 52, 53, 54, 87, 88, 89, 89});
    EXPECT_DOUBLE_EQ(c.gflops.median, 52.5);
    ASSERT_TRUE(ceiling_from_groups(c));
    EXPECT_DOUBLE_EQ(c.gflops.median, 88.5);
    ComputeCeiling steady;
    steady.gflops = *summarize({87, 88, 89, 89, 90, 91});
    EXPECT_FALSE(ceiling_from_groups(steady));
    EXPECT_DOUBLE_EQ(steady.gflops.median, 89);
}

} // namespace roofcast::core
