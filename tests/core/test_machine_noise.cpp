#include "core/machine_noise.hpp"

#include <gtest/gtest.h>

using namespace roofcast::core;

namespace {

Summary of(std::vector<double> samples) {
    return *summarize(std::move(samples));
}

// n epochs around `median` with an interquartile spread of about `iqr` (evenly spaced samples: the
// interquartile range of n evenly spaced values over [a, b] is (b - a) / 2).
Summary spread_by(double median, double iqr, int n = 9) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(median * (1 + iqr * (static_cast<double>(i) / (n - 1) - 0.5) * 2));
    return of(v);
}

Machine with_ceilings(const std::vector<double>& iqrs) {
    Machine m;
    for (double s : iqrs) {
        ComputeCeiling c;
        c.gflops = spread_by(50, s);
        m.ceilings.push_back(c);
    }
    return m;
}

} // namespace

TEST(MachineNoise, EvenlySpacedSamplesHaveTheIntendedSpread) {
    EXPECT_NEAR(*interquartile_spread(spread_by(100, 0.04).samples), 0.04, 1e-12);
}

TEST(MachineNoise, AKindWithEnoughRowsIsJudgedAgainstTheFenceOfItsOwnSpreads) {
    // Ten ceilings on a loaded host: nine with 10-18 % spread, one with 60 %. A fixed 5 % would flag all ten;
    // the floor (Tukey's upper fence of the ten spreads) flags the one that moved by itself.
    Machine m = with_ceilings({0.10, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.60});
    const auto kinds = flag_machine_noise(m);
    ASSERT_EQ(kinds.size(), 1u);
    EXPECT_EQ(kinds[0].kind, "core");
    EXPECT_TRUE(kinds[0].own_floor);
    EXPECT_EQ(kinds[0].rows, 10u);
    EXPECT_EQ(kinds[0].flagged, 1u);
    // Q1 at position 2.25: 0.1225; Q3 at 6.75: 0.1675; fence 0.1675 + 1.5 * 0.045 = 0.235.
    EXPECT_NEAR(kinds[0].floor, 0.235, 1e-9);
    for (std::size_t i = 0; i < 9; ++i)
        EXPECT_FALSE(m.ceilings[i].gflops.noisy) << i;
    EXPECT_TRUE(m.ceilings[9].gflops.noisy);
}

TEST(MachineNoise, AHostThatDisturbsEveryRowAlikeFlagsNone) {
    Machine m = with_ceilings({0.20, 0.22, 0.25, 0.27, 0.30, 0.31, 0.33, 0.35, 0.38, 0.40});
    const auto kinds = flag_machine_noise(m);
    EXPECT_EQ(kinds[0].flagged, 0u);
    EXPECT_GT(kinds[0].floor, 0.40);
}

TEST(MachineNoise, AQuietHostKeepsTheFixedFivePerCentAsItsFloor) {
    // Spreads of 0.1-0.9 % and one of 2 %: an outlier among them, but not noisy.
    Machine m = with_ceilings({0.001, 0.002, 0.002, 0.003, 0.003, 0.004, 0.004, 0.005, 0.006, 0.02});
    auto kinds = flag_machine_noise(m);
    EXPECT_DOUBLE_EQ(kinds[0].floor, k_noisy_spread);
    EXPECT_EQ(kinds[0].flagged, 0u);
    m.ceilings[9].gflops = spread_by(50, 0.08);
    kinds = flag_machine_noise(m);
    EXPECT_EQ(kinds[0].flagged, 1u);
}

TEST(MachineNoise, FewRowsUseTheFixedThresholdOnTheInterquartileSpread) {
    Machine m = with_ceilings({0.02, 0.08});
    const auto kinds = flag_machine_noise(m);
    EXPECT_FALSE(kinds[0].own_floor);
    EXPECT_DOUBLE_EQ(kinds[0].floor, k_noisy_spread);
    EXPECT_FALSE(m.ceilings[0].gflops.noisy);
    EXPECT_TRUE(m.ceilings[1].gflops.noisy);
}

TEST(MachineNoise, LevelsAreJudgedWithTheirKindAndEnteredFiguresNeverFlagged) {
    Machine m;
    Topology t;
    t.caches = {{"L2", 1 << 20, 64, 16, 1, 2, std::nullopt, ""},
                {"L3", 32 << 20, 64, 16, 2, 1, std::nullopt, ""}};
    m.topology = t;
    EXPECT_EQ(machine_noise_kind(m, "L2"), "core");
    EXPECT_EQ(machine_noise_kind(m, "L3"), "memory");
    EXPECT_EQ(machine_noise_kind(m, "MEM"), "memory");
    EXPECT_EQ(machine_noise_kind(m, "L9"), "core");
    Level mem;
    mem.name = "MEM";
    mem.measurements.push_back({"copy", 2, 1 << 28, spread_by(30, 0.2), 1.5});
    Summary entered = of({30});
    entered.noisy = true;
    mem.bandwidth = entered;
    m.levels.push_back(mem);
    const auto kinds = flag_machine_noise(m);
    ASSERT_EQ(kinds.size(), 1u);
    EXPECT_EQ(kinds[0].kind, "memory");
    EXPECT_EQ(kinds[0].rows, 1u);
    EXPECT_TRUE(m.levels[0].measurements[0].gbs.noisy);
    EXPECT_FALSE(m.levels[0].bandwidth->noisy);
}

TEST(MachineNoise, ARowAloneIsJudgedByItsInterquartileSpread) {
    // One slow epoch among steady ones widens the range past 5 % but not the interquartile spread: a row
    // measured alone (roofcast bandwidth, ceiling) is not flagged for it; a row whose middle half moves is.
    Summary burst = of({50, 50.2, 49.9, 50.1, 50, 49.8, 50.1, 35});
    ASSERT_GT(*burst.spread, k_noisy_spread);
    EXPECT_FALSE(flag_row_alone(burst));
    EXPECT_FALSE(burst.noisy);
    Summary wide = spread_by(50, 2 * k_noisy_spread);
    EXPECT_TRUE(flag_row_alone(wide));
    EXPECT_TRUE(wide.noisy);
    Summary entered;
    entered.median = 50;
    entered.noisy = true;
    EXPECT_FALSE(flag_row_alone(entered)); // no samples: never flagged
}

TEST(MachineNoise, KindsOfAConstMachineMatchTheFlagsWithoutSettingThem) {
    Machine m = with_ceilings({0.01, 0.012, 0.011, 0.013, 0.01, 0.012, 0.011, 0.01, 0.4});
    m.ceilings[0].gflops.noisy = true; // a stale flag: judging leaves it, flagging replaces it
    const auto judged = machine_noise_kinds(m);
    EXPECT_TRUE(m.ceilings[0].gflops.noisy);
    const auto flagged = flag_machine_noise(m);
    ASSERT_EQ(judged.size(), flagged.size());
    EXPECT_EQ(judged[0].flagged, flagged[0].flagged);
    EXPECT_EQ(judged[0].flagged, 1u);
    EXPECT_DOUBLE_EQ(judged[0].floor, flagged[0].floor);
    EXPECT_FALSE(m.ceilings[0].gflops.noisy);
    EXPECT_TRUE(m.ceilings[8].gflops.noisy);
}
