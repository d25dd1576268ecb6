#include "measure/working_sets.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <stdexcept>

using namespace roofcast;
using namespace roofcast::measure;

namespace {

constexpr std::uint64_t k_ws_kib = 1024;
constexpr std::uint64_t k_ws_mib = 1024 * 1024;

core::Topology working_set_topology(std::optional<std::uint64_t> l3_effective) {
    core::Topology t;
    t.cores = 2;
    t.hw_threads = 2;
    t.caches = {{"L1", 48 * k_ws_kib, 64, 12, 1, 2, std::nullopt, ""},
                {"L2", 2 * k_ws_mib, 64, 16, 1, 2, std::nullopt, ""},
                {"L3", 260 * k_ws_mib, 64, 20, 2, 1, l3_effective, ""}};
    return t;
}

} // namespace

TEST(SweepSizes, GeometricRoundedToPagesEndingAtOrAboveHi) {
    // 4096; 6144 -> 8192; 9216 -> 8192 (duplicate, skipped); 13824 -> 12288 >= 10000: stop.
    EXPECT_EQ(sweep_sizes(4096, 10000, 1.5), (std::vector<std::uint64_t>{4096, 8192, 12288}));
}

TEST(SweepSizes, IncreasingAndCoversTheRange) {
    const auto s = sweep_sizes(4096, 1024 * k_ws_mib, 1.2);
    ASSERT_GE(s.size(), 2u);
    EXPECT_EQ(s.front(), 4096u);
    EXPECT_GE(s.back(), 1024 * k_ws_mib);
    for (std::size_t i = 1; i < s.size(); ++i) {
        EXPECT_GT(s[i], s[i - 1]);
        EXPECT_EQ(s[i] % 4096, 0u);
    }
    // Above 1 MiB, page rounding is negligible: consecutive steps are 1.2x within 1 %.
    for (std::size_t i = 1; i < s.size(); ++i) {
        if (s[i - 1] > k_ws_mib) {
            EXPECT_NEAR(static_cast<double>(s[i]) / static_cast<double>(s[i - 1]), 1.2, 0.012);
        }
    }
}

TEST(SweepSizes, RejectsNonsense) {
    EXPECT_THROW(sweep_sizes(0, 10, 1.2), std::invalid_argument);
    EXPECT_THROW(sweep_sizes(100, 10, 1.2), std::invalid_argument);
    EXPECT_THROW(sweep_sizes(4096, 8192, 1.0), std::invalid_argument);
}

TEST(LevelWorkingSets, OneThreadFromTheReportedTopology) {
    const auto w = level_working_sets(working_set_topology(std::nullopt), 1, 4096 * k_ws_mib);
    ASSERT_EQ(w.size(), 4u);
    EXPECT_EQ(w[0].level, "L1");
    EXPECT_EQ(w[0].bytes, 24 * k_ws_kib); // half of 48 KiB
    EXPECT_EQ(w[1].level, "L2");
    EXPECT_EQ(w[1].bytes, 1 * k_ws_mib); // half of 2 MiB (>= 2 x 48 KiB)
    EXPECT_EQ(w[2].level, "L3");
    EXPECT_EQ(w[2].bytes, 130 * k_ws_mib); // half of 260 MiB
    EXPECT_EQ(w[3].level, "MEM");
    EXPECT_EQ(w[3].bytes, 1040 * k_ws_mib); // 4 x 260 MiB
}

TEST(LevelWorkingSets, EffectiveL3DrivesL3AndMemory) {
    // The L3 trap: 96 MiB measured instead of 260 MiB reported.
    const auto w1 = level_working_sets(working_set_topology(96 * k_ws_mib), 1, 4096 * k_ws_mib);
    EXPECT_EQ(w1[2].bytes, 48 * k_ws_mib);  // half of 96 MiB
    EXPECT_EQ(w1[3].bytes, 384 * k_ws_mib); // 4 x 96 MiB
    EXPECT_NE(w1[2].rule.find("effective"), std::string::npos) << w1[2].rule;
    // Two threads share the one L3 instance: 48 MiB each, half of it per thread = 24 MiB, 48 MiB total.
    // L1 and L2 are private: 24 KiB and 1 MiB per thread.
    const auto w2 = level_working_sets(working_set_topology(96 * k_ws_mib), 2, 4096 * k_ws_mib);
    EXPECT_EQ(w2[0].bytes, 48 * k_ws_kib);
    EXPECT_EQ(w2[1].bytes, 2 * k_ws_mib);
    EXPECT_EQ(w2[2].per_thread, 24 * k_ws_mib);
    EXPECT_EQ(w2[2].bytes, 48 * k_ws_mib);
    EXPECT_EQ(w2[3].bytes, 384 * k_ws_mib); // 192 MiB per thread
}

TEST(LevelWorkingSets, AtLeastTwiceThePreviousLevel) {
    // A 64 KiB L2 behind a 48 KiB L1: half of it (32 KiB) is below 2 x 48 KiB = 96 KiB, so the
    // rule raises the L2 working set to 96 KiB.
    core::Topology t = working_set_topology(std::nullopt);
    t.caches[1].size_bytes = 64 * k_ws_kib;
    const auto w = level_working_sets(t, 1, 4096 * k_ws_mib);
    EXPECT_EQ(w[1].bytes, 96 * k_ws_kib);
    EXPECT_EQ(w[1].rule, "twice the previous level per thread");
}

TEST(LevelWorkingSets, CappedByMaxSize) {
    const auto w = level_working_sets(working_set_topology(std::nullopt), 2, 256 * k_ws_mib);
    EXPECT_EQ(w[3].bytes, 256 * k_ws_mib);
    EXPECT_NE(w[3].rule.find("capped"), std::string::npos);
    EXPECT_EQ(w[2].bytes, 130 * k_ws_mib); // 2 x 65 MiB, under the cap
}

TEST(LevelWorkingSets, NoCachesMeansOnlyMemory) {
    core::Topology t;
    const auto w = level_working_sets(t, 1, 4096 * k_ws_mib);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].level, "MEM");
    EXPECT_EQ(w[0].bytes, 64 * k_ws_mib);
}

TEST(LevelRanges, PrivateCachesAddUpSharedOnesDoNot) {
    const auto one = level_ranges(working_set_topology(96 * k_ws_mib), 1);
    ASSERT_EQ(one.size(), 4u);
    EXPECT_EQ(one[0].level, "L1");
    EXPECT_DOUBLE_EQ(one[0].lo, 0.0);
    EXPECT_DOUBLE_EQ(one[0].hi, 48.0 * k_ws_kib);
    EXPECT_DOUBLE_EQ(one[1].lo, 48.0 * k_ws_kib);
    EXPECT_DOUBLE_EQ(one[1].hi, 2.0 * k_ws_mib);
    EXPECT_DOUBLE_EQ(one[2].hi, 96.0 * k_ws_mib); // the effective size, not the reported 260 MiB
    EXPECT_EQ(one[3].level, "MEM");
    EXPECT_DOUBLE_EQ(one[3].lo, 96.0 * k_ws_mib);
    EXPECT_TRUE(std::isinf(one[3].hi));
    // Two threads use both private L1 and L2 instances but share the one L3.
    const auto two = level_ranges(working_set_topology(std::nullopt), 2);
    EXPECT_DOUBLE_EQ(two[0].hi, 96.0 * k_ws_kib);
    EXPECT_DOUBLE_EQ(two[1].hi, 4.0 * k_ws_mib);
    EXPECT_DOUBLE_EQ(two[2].lo, 4.0 * k_ws_mib);
    EXPECT_DOUBLE_EQ(two[2].hi, 260.0 * k_ws_mib);
    // More threads than instances: capped at the instances there are.
    EXPECT_DOUBLE_EQ(level_ranges(working_set_topology(std::nullopt), 8)[1].hi, 4.0 * k_ws_mib);
}

TEST(LevelCurves, SplitsTheSweepAtTheRanges) {
    const std::vector<LevelRange> ranges = {{"L1", 0, 48.0 * k_ws_kib},
                                            {"L2", 48.0 * k_ws_kib, 2.0 * k_ws_mib},
                                            {"MEM", 2.0 * k_ws_mib, std::numeric_limits<double>::infinity()}};
    // Unsorted on input; one point on the L1/L2 boundary belongs to both.
    const std::vector<std::pair<double, double>> sweep = {{4.0 * k_ws_mib, 20},   {8.0 * k_ws_kib, 300},
                                                          {48.0 * k_ws_kib, 250}, {16.0 * k_ws_kib, 310},
                                                          {1.0 * k_ws_mib, 140},  {64.0 * k_ws_mib, 15}};
    const auto c = level_curves(sweep, ranges);
    ASSERT_EQ(c.size(), 3u);
    ASSERT_TRUE(c[0]);
    ASSERT_EQ(c[0]->points.size(), 3u);
    EXPECT_EQ(c[0]->x, "working_set");
    EXPECT_DOUBLE_EQ(c[0]->points[0].first, 8.0 * k_ws_kib);
    EXPECT_DOUBLE_EQ(c[0]->points[2].second, 250);
    ASSERT_TRUE(c[1]);
    ASSERT_EQ(c[1]->points.size(), 2u);
    EXPECT_DOUBLE_EQ(c[1]->eval(0.5 * k_ws_mib), 250 + (140 - 250) * (0.5 * k_ws_mib - 48.0 * k_ws_kib) /
                                                           (1.0 * k_ws_mib - 48.0 * k_ws_kib));
    ASSERT_TRUE(c[2]);
    EXPECT_DOUBLE_EQ(c[2]->eval(1e12), 15); // beyond the last point: the last value
    // A level with fewer than two points in its range gets no curve.
    const auto sparse = level_curves({{8.0 * k_ws_kib, 300}, {1.0 * k_ws_mib, 140}}, ranges);
    EXPECT_FALSE(sparse[0]);
    EXPECT_FALSE(sparse[1]);
    EXPECT_FALSE(sparse[2]);
}
