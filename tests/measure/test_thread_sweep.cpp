// The thread sweep's command handling (splitting, substitution, printed times, failures) and its
// automatic grids; the kernels themselves are timed only by bench/threads-accuracy.sh.
#include "core/error.hpp"
#include "core/process.hpp"
#include "measure/thread_sweep.hpp"

#include <chrono>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

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

// std::regex recursed per character: a printed time of 50,000 digits overflowed the stack (a crash).
// Lines longer than the bound are skipped and counted.
TEST(ThreadSweep, HugePrintedNumbersNeitherCrashNorMatch) {
    const std::string digits(50000, '1');
    std::size_t long_lines = 0;
    EXPECT_FALSE(parse_printed_time("time: " + digits + "\n", "time: ([0-9.]+)", &long_lines));
    EXPECT_EQ(long_lines, 1u);
    // The longest line searched, with a nested pattern.
    const std::string line(k_time_line_max_chars - 6, '7');
    const auto t =
        parse_printed_time("junk " + digits + "\ntime: " + line + "\n", "time: ((\\d)|x|y)+", &long_lines);
    EXPECT_EQ(long_lines, 1u);
    ASSERT_TRUE(t); // the first group holds the last digit the repetition matched
    EXPECT_DOUBLE_EQ(*t, 7);
    EXPECT_DOUBLE_EQ(*parse_printed_time("a\ntime: 2.5\n" + digits, "time: ([0-9.]+)"), 2.5);
}

TEST(ThreadSweep, TimeRegexesAreBoundedAndChecked) {
    EXPECT_NO_THROW(check_time_regex(""));
    EXPECT_NO_THROW(check_time_regex("t= ([0-9.]+)"));
    EXPECT_THROW(check_time_regex("t= ([0-9.]+"), core::InputError);
    EXPECT_THROW(check_time_regex(std::string(k_time_regex_max_chars + 1, 'a')), core::InputError);
    // Nesting as deep as the length allows compiles without exhausting the stack.
    const std::size_t depth = k_time_regex_max_chars / 2;
    EXPECT_NO_THROW(check_time_regex(std::string(depth, '(') + std::string(depth, ')')));
    // Repetitions that multiply into a program past the memory bound are refused, not compiled for minutes.
    EXPECT_THROW(check_time_regex("((((a{100}){100}){100}){100})"), core::InputError);
}

// A backtracking engine spent time quadratic in a line's length on a run of digits that a realistic
// pattern almost matches (a fuzz timeout: 4 lines of 1,500-3,100 digits took 2.5 s); RE2 is linear, so the
// longest searchable lines are searched in milliseconds (the bound is wide for a loaded host).
TEST(ThreadSweep, AlmostMatchingLinesCostTimeLinearInTheirLength) {
    std::string output;
    for (int i = 0; i < 64; ++i)
        output += std::string(k_time_line_max_chars, '1') + "\n";
    std::size_t long_lines = 0;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(parse_printed_time(output, "([0-9.]+) s", &long_lines));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(long_lines, 0u);
    EXPECT_LT(seconds, 5.0) << "256 KiB of almost-matching lines";
}

// A size per element of inf or NaN made both bounds 0 and the sweep's loop endless.
TEST(ThreadSweep, AutomaticSizesOfImpossibleElementSizesAreEmpty) {
    const std::vector<double> caches{32768, 1048576};
    for (const double bpn : {std::numeric_limits<double>::infinity(), std::nan(""), 0.0, -8.0})
        EXPECT_TRUE(auto_sizes(caches, bpn).empty()) << bpn;
    for (const double tiny : {1e-300, 5e-324}) {
        const auto n = auto_sizes(caches, tiny);
        EXPECT_TRUE(n.empty() || static_cast<double>(n.back()) <= k_max_auto_size) << tiny;
    }
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
