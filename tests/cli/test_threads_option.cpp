#include "cli/threads_option.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>
#include <string>

namespace roofcast::cli {
namespace {

// The hardware thread count is a parameter, so these cases do not depend on the host.
constexpr int k_hw = 2;

std::string message_of(const ThreadsOption& o) {
    try {
        resolve_thread_count(o, 4, k_hw);
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.field(), "--threads");
        return e.message();
    }
    ADD_FAILURE() << "no error for '" << o.text << "'";
    return {};
}

TEST(ThreadsOption, AbsentAndZeroAreEveryCore) {
    EXPECT_EQ(resolve_thread_count({"", false}, 6, k_hw), 6);
    EXPECT_EQ(resolve_thread_count({"0", false}, 6, k_hw), 6);
    EXPECT_EQ(resolve_thread_count({"", false}, 0, k_hw), 1); // never fewer than one thread
}

TEST(ThreadsOption, CountIsThatManyThreads) {
    EXPECT_EQ(resolve_thread_count({"1", false}, 6, k_hw), 1);
    EXPECT_EQ(resolve_thread_count({"8", false}, 6, k_hw), 8); // exactly 4 x the hardware threads
}

TEST(ThreadsOption, ListOnlyWhereASweepIsAsked) {
    EXPECT_EQ(resolve_thread_counts({"1,2,0", false}, 3, k_hw, {}), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(resolve_thread_counts({"", false}, 3, k_hw, {1, 0}), (std::vector<int>{1, 3}));
    EXPECT_NE(message_of({"1,2", false}).find("expected 0 (every core) or a thread count from 1 to 8"),
              std::string::npos);
}

TEST(ThreadsOption, OneWordingForEveryBadValue) {
    const std::string expected = "expected 0 (every core) or a thread count from 1 to 8 (4 x the hardware "
                                 "threads; --oversubscribe allows more), got '";
    for (const std::string bad : {"-1", "x", "2.5", "", "9", "100000", "1,", "99999999999999999999"}) {
        if (bad.empty())
            continue; // empty text is "absent"
        EXPECT_EQ(message_of({bad, false}), expected + bad + "'") << bad;
    }
    EXPECT_THROW(resolve_thread_counts({"1,,2", false}, 3, k_hw, {}), core::InputError);
    EXPECT_THROW(resolve_thread_counts({"1,9", false}, 3, k_hw, {}), core::InputError);
}

TEST(ThreadsOption, OversubscribeLiftsTheBoundButNotTheCeiling) {
    EXPECT_EQ(resolve_thread_count({"100", true}, 4, k_hw), 100);
    EXPECT_EQ(resolve_thread_count({std::to_string(k_max_threads), true}, 4, k_hw), k_max_threads);
    EXPECT_THROW(resolve_thread_count({"100000", true}, 4, k_hw), core::InputError);
}

TEST(ThreadsOption, NoHostBoundForCountsNotRunHere) {
    // predict and stencil --simulate: the count is for the machine file, not this host.
    EXPECT_EQ(resolve_thread_count({"64", false}, 4, 0), 64);
    EXPECT_THROW(resolve_thread_count({"-3", false}, 4, 0), core::InputError);
}

TEST(ThreadsOption, LimitIsFourTimesTheHardwareThreads) {
    EXPECT_EQ(thread_limit(false, 2), 8);
    EXPECT_EQ(thread_limit(false, 1000), k_max_threads);
    EXPECT_EQ(thread_limit(true, 2), k_max_threads);
}

} // namespace
} // namespace roofcast::cli
