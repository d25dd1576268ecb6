// /proc/stat parsing on fixture text and the thread-scaling check.
#include "measure/host_noise.hpp"

#include <gtest/gtest.h>

namespace roofcast::measure {
namespace {

constexpr const char* k_before = "cpu  100 10 50 1000 5 1 2 30 0 0\ncpu0 50 5 25 500 2 0 1 15 0 0\nintr 1\n";
constexpr const char* k_after = "cpu  200 10 70 1100 5 1 2 90 0 0\ncpu0 100 5 35 550 2 0 1 45 0 0\n";

TEST(ProcStat, ParsesTheAggregateLine) {
    const auto t = parse_proc_stat(k_before);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->busy, 100u + 10 + 50 + 1 + 2);
    EXPECT_EQ(t->idle, 1000u + 5);
    EXPECT_EQ(t->steal, 30u);
}

TEST(ProcStat, StealFractionBetweenReadings) {
    const auto a = parse_proc_stat(k_before);
    const auto b = parse_proc_stat(k_after);
    ASSERT_TRUE(a && b);
    // busy +120, idle +100, steal +60: 60 / 280
    EXPECT_DOUBLE_EQ(*steal_fraction(*a, *b), 60.0 / 280.0);
    EXPECT_FALSE(steal_fraction(*a, *a)); // no time passed
}

TEST(ProcStat, OldKernelWithoutStealAndMalformedText) {
    const auto t = parse_proc_stat("cpu  1 2 3 4\n");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->steal, 0u);
    EXPECT_FALSE(parse_proc_stat("intr 1 2\n"));
    EXPECT_FALSE(parse_proc_stat("cpu  1 2 x 4\n"));
    EXPECT_FALSE(parse_proc_stat("cpu  1 2\n"));
}

TEST(ThreadScaling, PrivateLevelNearKTimesOneThread) {
    EXPECT_TRUE(scales_with_threads(100, 190, 2, 0.15));
    EXPECT_FALSE(scales_with_threads(100, 110, 2, 0.15)); // two threads at one thread's rate
}

} // namespace
} // namespace roofcast::measure

namespace roofcast::measure {

namespace {
core::BandwidthPoint bandwidth_point(int threads, std::vector<double> gbs) {
    core::BandwidthPoint p;
    p.kernel = "triad";
    p.threads = threads;
    p.gbs = *core::summarize(std::move(gbs));
    return p;
}
} // namespace

TEST(ThreadScaling, FinalRoofOverThreadsTimesOneThreadWithItsVisits) {
    core::Level l1;
    l1.name = "L1";
    l1.measurements = {bandwidth_point(1, {290, 300, 300, 300}), bandwidth_point(2, {400, 470, 480, 475})};
    // Best three at two threads 470, 475, 480: median 475 over 2 x 300.
    EXPECT_DOUBLE_EQ(*roof_thread_scaling(l1, "triad", 2, {}, 3), 475.0 / 600.0);
    // Visits that found both cores free lift the roof: best three 590, 595, 600.
    EXPECT_DOUBLE_EQ(*roof_thread_scaling(l1, "triad", 2, {590, 600, 595, 300}, 3), 595.0 / 600.0);
    EXPECT_FALSE(roof_thread_scaling(l1, "triad", 1, {}, 3)); // one thread: nothing to scale
    EXPECT_FALSE(roof_thread_scaling(l1, "load", 2, {}, 3));  // no such kernel
    EXPECT_FALSE(roof_thread_scaling(l1, "triad", 4, {}, 3)); // no four-thread measurement
}

} // namespace roofcast::measure
