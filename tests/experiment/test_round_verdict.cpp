// The fraction of the bound round by round against the probe beside the kernel
// (experiment/round_verdict.hpp).
#include "experiment/round_verdict.hpp"
#include "model/overlap.hpp"

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

TEST(RoundVerdict, EachTermFollowsTheProbeOfItsResource) {
    // A three-way mix: memory 1.0 s, L3 0.8 s, compute 0.6 s per call, combined with p = 2 and q = 1.5. In
    // round 2 memory delivers half its best while the L3 and the cores hold; in round 3 the cores run at 80
    // %. The kernel takes what the host allows divided by 0.9 in every round: the fraction stays 0.9, where
    // one probe for the whole bound (memory's) would call round 2 far better than the others.
    const double p = 2.0, q = 1.5;
    const std::vector<double> mem{40, 20, 40}, l3{200, 200, 200}, compute{100, 100, 80};
    std::vector<double> times;
    for (std::size_t r = 0; r < 3; ++r) {
        const double allowed =
            mixed_time({1.0 * 40 / mem[r], 0.8 * 200 / l3[r]}, 0.6 * 100 / compute[r], p, q);
        times.insert(times.end(), {allowed / 0.9, allowed / 0.8});
    }
    const auto f = round_fractions_of_terms(times, 3, {{1.0, mem, 40}, {0.8, l3, 200}},
                                            ProbedTerm{0.6, compute, 100}, p, q);
    ASSERT_EQ(f.size(), 3u);
    for (double x : f)
        EXPECT_NEAR(x, 0.9, 1e-12);
    const auto one = round_fractions(times, 3, mem, mixed_time({1.0, 0.8}, 0.6, p, q), 40);
    ASSERT_EQ(one.size(), 3u);
    EXPECT_GT(one[1],
              1.1); // 1.18: memory's probe alone credits round 2 with the L3's and the cores' steadiness
    // With a cache/cache exponent the caches' terms are combined as the model combines them: two cache terms
    // and memory's, each at its probe's best, taken in exactly the time they allow.
    const CacheOverlap pc{1.5, true};
    const double allowed = mixed_time({0.5, 0.7, 1.0}, 0.2, p, q, pc);
    const auto c = round_fractions_of_terms({allowed}, 1, {{0.5, {7}, 7}, {0.7, {8}, 8}, {1.0, {9}, 9}},
                                            ProbedTerm{0.2, {3}, 3}, p, q, pc);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0], 1.0, 1e-12);
    EXPECT_GT(allowed, mixed_time({0.5, 0.7, 1.0}, 0.2, p, q)); // pc below p: the caches overlap less
    // Without exponents the terms combine by the max (the hierarchical roofline).
    const auto h = round_fractions_of_terms({2.0, 2.0}, 1, {{1.0, {10}, 10}}, ProbedTerm{1.5, {5}, 10},
                                            std::nullopt, std::nullopt);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_DOUBLE_EQ(h[0], 3.0 / 2.0); // the compute term at half its probe's best: 3 s allowed, 2 s taken
    // A term whose probe has a unit missing or zero gives nothing.
    EXPECT_TRUE(
        round_fractions_of_terms({1, 1}, 2, {{1.0, {1, 0}, 1}}, std::nullopt, 2.0, std::nullopt).empty());
    EXPECT_TRUE(
        round_fractions_of_terms({1, 1}, 2, {{1.0, {1}, 1}}, std::nullopt, 2.0, std::nullopt).empty());
    EXPECT_TRUE(round_fractions_of_terms({1, 1}, 2, {}, std::nullopt, 2.0, std::nullopt).empty());
}
