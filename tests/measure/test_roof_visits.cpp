// The schedule of roof visits on a fake clock: the first call visits, later ones only after the interval
// and never more than the share of time; every visit's rates are kept per level in time order.
#include "measure/roof_visits.hpp"

#include <gtest/gtest.h>

namespace roofcast::measure {
namespace {

struct Fake {
    double now = 100.0;
    double visit_cost = 0.01; // seconds a visit of one level takes
    int calls = 0;
};

RoofVisits make(Fake& f, std::size_t levels, RoofVisitOptions o) {
    return RoofVisits(
        levels,
        [&f](std::size_t level) {
            ++f.calls;
            f.now += f.visit_cost;
            return std::vector<double>{static_cast<double>(10 * level + f.calls),
                                       static_cast<double>(10 * level + f.calls) + 0.5};
        },
        o, [&f] { return f.now; });
}

TEST(RoofVisits, FirstCallVisitsLaterOnesWaitForTheInterval) {
    Fake f;
    RoofVisitOptions o;
    o.interval_seconds = 0.25;
    o.max_share = 0.5;
    RoofVisits v = make(f, 2, o);
    EXPECT_EQ(v.window_seconds(), 0.0);
    EXPECT_TRUE(v.maybe_visit()); // 100.00 - 100.02
    EXPECT_EQ(v.visits(), 1u);
    f.now += 0.1;
    EXPECT_FALSE(v.maybe_visit()); // 0.12 s after the first start
    f.now += 0.13;
    EXPECT_TRUE(v.maybe_visit()); // 0.25 s after: 100.25 - 100.27
    EXPECT_EQ(v.visits(), 2u);
    EXPECT_EQ(f.calls, 4);
    EXPECT_NEAR(v.window_seconds(), 0.27, 1e-9);
    EXPECT_NEAR(v.spent_seconds(), 0.04, 1e-9);
    // Level 0 saw calls 1 and 3, level 1 calls 2 and 4, two rates each, in time order.
    EXPECT_EQ(v.samples(0), (std::vector<double>{1, 1.5, 3, 3.5}));
    EXPECT_EQ(v.samples(1), (std::vector<double>{12, 12.5, 14, 14.5}));
    EXPECT_EQ(v.levels(), 2u);
}

TEST(RoofVisits, ASlowVisitKeepsItsShareOfTheTime) {
    // A visit of 0.2 s with a share of 1/8: the next no sooner than 1.6 s after its start, whatever the
    // interval asks.
    Fake f;
    f.visit_cost = 0.1;
    RoofVisitOptions o;
    o.interval_seconds = 0.25;
    o.max_share = 0.125;
    RoofVisits v = make(f, 2, o);
    EXPECT_TRUE(v.maybe_visit());
    f.now += 1.0; // 1.2 s after the start
    EXPECT_FALSE(v.maybe_visit());
    f.now += 0.4; // 1.6 s
    EXPECT_TRUE(v.maybe_visit());
}

TEST(RoofVisits, AForcedVisitIgnoresTheSchedule) {
    Fake f;
    RoofVisits v = make(f, 1, {});
    v.visit();
    v.visit();
    EXPECT_EQ(v.visits(), 2u);
    EXPECT_EQ(v.samples(0).size(), 4u);
    EXPECT_THROW((void)v.samples(1), std::out_of_range);
}

} // namespace
} // namespace roofcast::measure
