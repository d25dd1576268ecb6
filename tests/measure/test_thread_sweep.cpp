// The thread sweep's command handling (splitting, substitution, printed times, failures) and its
// automatic grids; the kernels themselves are timed only by bench/threads-accuracy.sh.
#include "core/error.hpp"
#include "core/process.hpp"
#include "measure/thread_sweep.hpp"

#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::measure;

TEST(ThreadSweep, SplitsCommandsAndRequiresTheSize) {
    EXPECT_EQ(split_command("./app -n {n} 'a b' \"{s}\""),
              (std::vector<std::string>{"./app", "-n", "{n}", "a b", "{s}"}));
    EXPECT_THROW(split_command("./app {s}"), core::InputError);
    EXPECT_THROW(split_command("   "), core::InputError);
    EXPECT_THROW(split_command("./app '{n}"), core::InputError);
}

TEST(ThreadSweep, SubstitutesSizeAndThreads) {
    EXPECT_EQ(substitute({"x", "--n={n}", "{s}x{s}"}, 1000, 3),
              (std::vector<std::string>{"x", "--n=1000", "3x3"}));
}

TEST(ThreadSweep, ParsesPrintedTimes) {
    EXPECT_DOUBLE_EQ(*parse_printed_time("init\ntime: 1.5e-3 s\n", "time: ([0-9.eE+-]+)"), 1.5e-3);
    EXPECT_DOUBLE_EQ(*parse_printed_time("0.25", "[0-9.]+"), 0.25);
    EXPECT_FALSE(parse_printed_time("time: fast", "time: (\\S+)"));
    EXPECT_FALSE(parse_printed_time("nothing", "time: (\\S+)"));
    EXPECT_FALSE(parse_printed_time("time: -1", "time: (\\S+)"));
}

TEST(ThreadSweep, AutomaticSizesCrossEveryCache) {
    const std::vector<double> caches{32768, 1048576, 33554432};
    const auto n = auto_sizes(caches, 8.0);
    ASSERT_FALSE(n.empty());
    EXPECT_LE(n.front() * 8.0, caches.front());
    EXPECT_GE(n.back() * 8.0, 3.9 * caches.back());
    for (std::size_t i = 1; i < n.size(); ++i)
        EXPECT_LE(static_cast<double>(n[i]) / static_cast<double>(n[i - 1]), 1.42);
}

TEST(ThreadSweep, AutomaticThreadsOversubscribe) {
    EXPECT_EQ(auto_threads(2, 2), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
    const auto t = auto_threads(24, 48);
    EXPECT_EQ(t.back(), 192);
    EXPECT_NE(std::find(t.begin(), t.end(), 24), t.end());
    EXPECT_NE(std::find(t.begin(), t.end(), 48), t.end());
    EXPECT_LT(t.size(), 40u);
}

TEST(ThreadSweep, CommandPointsKeepTheirSpreadAndFailuresAreLeftOut) {
    if (!core::find_in_path("sh"))
        GTEST_SKIP() << "no sh in PATH";
    CommandOptions o;
    o.args = {"sh", "-c", "test {n} -ne 20 || exit 3; echo t= {s}.5"};
    o.time_regex = "t= ([0-9.]+)";
    o.repetitions = 2;
    const SweepResult r = sweep_command(o, {10, 20}, {1, 2});
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[1].threads, 2);
    EXPECT_DOUBLE_EQ(r.points[1].seconds.median, 2.5);
    EXPECT_EQ(r.points[1].seconds.n, 2u);
    ASSERT_EQ(r.failures.size(), 2u);
    EXPECT_EQ(r.failures[0].n, 20u);
    EXPECT_EQ(r.failures[0].reason, "exit status 3");
    o.args = {"sh", "-c", "echo t= soon {n}"};
    EXPECT_THROW(sweep_command(o, {10}, {1}), core::InputError);
}
