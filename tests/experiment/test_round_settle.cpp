#include "experiment/round_settle.hpp"

#include <gtest/gtest.h>

using namespace roofcast::model;

TEST(RoundSettle, SteadyHostSettlesOnTwoRounds) {
    EXPECT_TRUE(round_settled({1.00, 1.02}));        // within 3 %
    EXPECT_TRUE(round_settled({1.30, 1.00, 1.029})); // a slow round does not matter once two agree
    EXPECT_FALSE(round_settled({1.00}));             // one round: nothing to agree with
    EXPECT_FALSE(round_settled({}));
}

TEST(RoundSettle, NeighbourBurstKeepsAKernelOpenUntilAFastRoundComesBack) {
    // The kernel's first round ran beside a neighbour (30 % slower), the second ran alone: unsettled, since
    // the only fast round has no partner; the third meets the second's best.
    std::vector<double> best = {1.30, 1.00};
    EXPECT_FALSE(round_settled(best));
    best.push_back(1.25); // the neighbour again
    EXPECT_FALSE(round_settled(best));
    best.push_back(1.01);
    EXPECT_TRUE(round_settled(best));
}

TEST(RoundSettle, StolenVcpuRoundIsNotTheBest) {
    // A vCPU taken away for one round halves its rate: two rounds at full speed settle whatever it did.
    EXPECT_TRUE(round_settled({1.0, 2.0, 1.0}));
    EXPECT_FALSE(round_settled({2.0, 1.0, 1.9}));
}

TEST(RoundSettle, OnlyUnsettledKernelsRunAgain) {
    const std::vector<std::vector<double>> best = {{1.0, 1.01}, {1.0, 1.2}, {2.0}, {3.0, 3.0}};
    EXPECT_EQ(unsettled_kernels(best), (std::vector<std::size_t>{1, 2}));
    EXPECT_TRUE(unsettled_kernels({{1.0, 1.0}}).empty());
}

TEST(RoundSettle, CapStopsOnRoundsOrTime) {
    const RoundSettleCap cap{2, 0.5};
    EXPECT_TRUE(another_round(cap, 0, 0.0, 10.0));
    EXPECT_TRUE(another_round(cap, 1, 4.9, 10.0));
    EXPECT_FALSE(another_round(cap, 1, 5.0, 10.0));                    // half the pass spent
    EXPECT_FALSE(another_round(cap, 2, 0.0, 10.0));                    // rounds spent
    EXPECT_FALSE(another_round(RoundSettleCap{0, 0.0}, 0, 0.0, 10.0)); // settling off
}

TEST(RoundSettle, QuickRunsGetMoreOfTheirShortPass) {
    const RoundSettleCap q = round_settle_cap(true);
    const RoundSettleCap f = round_settle_cap(false);
    EXPECT_GT(q.max_time_share, f.max_time_share);
    EXPECT_GE(q.max_extra_rounds, 1);
    EXPECT_GE(f.max_extra_rounds, 1);
}
