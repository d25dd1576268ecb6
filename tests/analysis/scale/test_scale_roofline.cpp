// The roofline at scale: a function's fitted flops, bytes per level and time placed at the target as a
// measured profile is placed, and the point where its bottleneck changes on the way.
#include "analysis/scale/roofline_forecast.hpp"
#include "core/machine.hpp"
#include "model/profile_regions.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace roofcast::model::scale {
namespace {

// A function whose flops grow as n^3 and whose memory traffic as n^3 log n (a term of the PMNF search space):
// the exact values at n (a roofcast profile of one function, one rank).
core::Profile exact(double n) {
    core::Profile p;
    core::ProfileFunction f{"solve", "region", {}};
    const auto put = [&](const std::string& name, double v) {
        core::ProfileMetric m;
        m.origin = core::MetricOrigin::declared;
        m.per_rank = {{v}};
        f.metrics[name] = m;
    };
    put("flops", 2 * n * n * n);
    put("bytes_L1", 16 * n * n * n);
    put("bytes_MEM", n * n * n * std::log2(n) / 4);
    put("time", 2 * n * n * n / 1e9);
    p.functions = {f};
    return p;
}

Dataset measured(const std::vector<double>& ns) {
    Dataset d;
    d.parameters = {"n"};
    for (const std::string metric : {"flops", "bytes_L1", "bytes_MEM", "time"}) {
        Series s{"solve", metric, {}, {}};
        for (const double n : ns)
            s.points.push_back(Point{Coord{n, 0}, {exact(n).functions[0].metrics.at(metric).per_rank[0][0]}});
        d.series.push_back(s);
    }
    return d;
}

std::string bottleneck_at(double n, const core::Machine& m) {
    return place_profile(exact(n), m, 0.0).verdicts.at(0).bottleneck;
}

TEST(ScaleRoofline, PlacesTheFittedFunctionAtTheTargetAndFindsWhereItsBottleneckChanges) {
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    const ScaleResult r = forecast(measured({8, 16, 32, 64, 128}), Selection::forecast, {Coord{8192, 0}});
    const RooflineForecast f = roofline_forecast(r, m, Coord{8192, 0});
    ASSERT_EQ(f.functions.size(), 1u);
    const FunctionRoofline& s = f.functions[0];
    EXPECT_EQ(f.largest_measured[0], 128);
    // Noise-free power laws are fitted exactly: the dots are the exact ones.
    const RegionVerdict now = place_profile(exact(128), m, 0.0).verdicts.at(0);
    const RegionVerdict then = place_profile(exact(8192), m, 0.0).verdicts.at(0);
    EXPECT_NEAR(s.measured.bound_gflops / now.bound_gflops, 1.0, 1e-6);
    EXPECT_EQ(s.measured.bottleneck, now.bottleneck);
    EXPECT_NEAR(s.predicted.bound_gflops / then.bound_gflops, 1.0, 1e-6);
    EXPECT_EQ(s.predicted.bottleneck, then.bottleneck);
    ASSERT_NE(now.bottleneck, then.bottleneck) << "the example must change its bottleneck";
    // The change is found at the first grid point whose exact bottleneck differs: the grid point before it
    // still has the measured one.
    ASSERT_TRUE(s.change_at);
    const double at = (*s.change_at)[0];
    EXPECT_EQ(bottleneck_at(at, m), then.bottleneck);
    const double step = std::pow(8192.0 / 128.0, 1.0 / k_roofline_steps);
    EXPECT_EQ(bottleneck_at(at / step * (1 + 1e-9), m), now.bottleneck);
    EXPECT_NE(s.change.find("memory-bound"), std::string::npos) << s.change;
    EXPECT_NE(s.change.find("from about n="), std::string::npos) << s.change;
}

TEST(ScaleRoofline, OnlyFunctionsHoldingAShareAreShownMostFlopsFirst) {
    // solve (all but a sliver of the work), a helper with 1/1000 of solve's flops and time, and a bigger
    // second function listed before solve: the helper is counted out, the rest ordered by flops at the
    // target.
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    Dataset d = measured({8, 16, 32, 64, 128});
    const auto scaled_copy = [&d](const std::string& name, double factor) {
        std::vector<Series> out;
        for (Series s : d.series) {
            s.function = name;
            for (auto& pt : s.points)
                for (double& v : pt.values)
                    v *= factor;
            out.push_back(s);
        }
        return out;
    };
    std::vector<Series> all = scaled_copy("helper", 1e-3);
    for (auto& s : scaled_copy("setup", 0.5))
        all.push_back(s);
    for (auto& s : d.series)
        all.push_back(s);
    d.series = all;
    const ScaleResult r = forecast(d, Selection::forecast, {Coord{8192, 0}});
    const RooflineForecast f = roofline_forecast(r, m, Coord{8192, 0});
    ASSERT_EQ(f.functions.size(), 2u);
    EXPECT_EQ(f.functions[0].function, "solve");
    EXPECT_EQ(f.functions[1].function, "setup");
    EXPECT_EQ(f.below_share, 1u);
    EXPECT_EQ(roofline_forecast(r, m, Coord{8192, 0}, 0.0).functions.size(), 3u);
}

TEST(ScaleRoofline, FunctionsWithoutFlopsAndBytesAreNamed) {
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    Dataset d;
    d.parameters = {"n"};
    Series s{"io", "time", {}, {}};
    for (const double n : {1.0, 2.0, 4.0, 8.0, 16.0})
        s.points.push_back(Point{Coord{n, 0}, {n}});
    d.series.push_back(s);
    const ScaleResult r = forecast(d, Selection::forecast, {Coord{64, 0}});
    const RooflineForecast f = roofline_forecast(r, m, Coord{64, 0});
    EXPECT_TRUE(f.functions.empty());
    ASSERT_EQ(f.omitted.size(), 1u);
    EXPECT_EQ(f.omitted[0], "io: no fitted flops and bytes to place");
}

} // namespace
} // namespace roofcast::model::scale
