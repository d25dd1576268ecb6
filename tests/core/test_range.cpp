// core::Range: which values a range holds and the one wording of its error, shared by every reader.
#include "core/range.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using roofcast::core::Range;

TEST(Range, HoldsFiniteValuesWithinItsBoundsOnly) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::nan("");
    EXPECT_TRUE(Range::between(-1, 1).contains(-1));
    EXPECT_TRUE(Range::between(-1, 1).contains(1));
    EXPECT_FALSE(Range::between(-1, 1).contains(1.0000001));
    EXPECT_FALSE(Range::between(-1, 1).contains(nan));
    EXPECT_FALSE(Range::positive_at_most(10).contains(0));
    EXPECT_TRUE(Range::positive_at_most(10).contains(1e-300));
    EXPECT_TRUE(Range::non_negative_at_most(10).contains(0));
    EXPECT_FALSE(Range::non_negative_at_most(10).contains(-0.5));
    EXPECT_TRUE(Range::at_least(2).contains(1e308));
    EXPECT_FALSE(Range::at_least(2).contains(inf)); // finite, even without an upper bound
    EXPECT_TRUE(Range::whole(1, 4).contains(4));
    EXPECT_FALSE(Range::whole(1, 4).contains(2.5));
    EXPECT_FALSE(Range::whole(1, 4).contains(5));
}

TEST(Range, SaysWhatWasExpectedAndWhatCame) {
    EXPECT_EQ(Range::between(0, 1e6).expected("-3"), "expected a number from 0 to 1e+06, got -3");
    EXPECT_EQ(Range::positive_at_most(1e6).expected("1e308"),
              "expected a positive number at most 1e+06, got 1e308");
    EXPECT_EQ(Range::non_negative_at_most(1e30).expected("-1"),
              "expected a non-negative number at most 1e+30, got -1");
    EXPECT_EQ(Range::at_least(-100).expected("-101"), "expected a number >= -100, got -101");
    EXPECT_EQ(Range::whole(1, 1048576).expected("0"), "expected a whole number from 1 to 1048576, got 0");
}
