// Placing a profile's regions on the roofline: which are placed, their intensity and measured
// performance, that the verdict is the mixed model's prediction for the same flops and bytes, and that
// totals and rates no run reaches are left out with a note.
#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/results.hpp"
#include "model/predict.hpp"
#include "model/profile_regions.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace roofcast::model {
namespace {

core::ProfileMetric region_metric(core::MetricOrigin o, const std::string& agg, std::vector<double> ranks) {
    core::ProfileMetric m;
    m.origin = o;
    m.aggregate = agg;
    m.per_rank = {std::move(ranks)};
    return m;
}

// A function as the callgrind backend records it for one rank: flops counted, time sampled, bytes per level
// counted at L1 and simulated beyond.
core::ProfileFunction counted_function(const std::string& name, const std::string& kind, double flops,
                                       double seconds, const std::map<std::string, double>& bytes) {
    core::ProfileFunction f{name, kind, {}};
    f.metrics["flops"] = region_metric(core::MetricOrigin::counted, "sum", {flops});
    f.metrics["time"] = region_metric(core::MetricOrigin::sampled, "max", {seconds});
    for (const auto& [level, b] : bytes)
        f.metrics["bytes_" + level] = region_metric(
            level == "L1" ? core::MetricOrigin::counted : core::MetricOrigin::simulated, "sum", {b});
    return f;
}

// The mixed model's prediction for those flops and bytes, once, on `threads` cores.
core::Prediction mixed_prediction(const core::Machine& m, const std::string& name, double flops,
                                  const std::map<std::string, double>& bytes, int threads) {
    KernelSpec k;
    k.name = name;
    k.flops_per_iteration = flops;
    k.iterations = 1;
    k.explicit_bytes = bytes;
    PredictOptions o;
    o.threads = threads;
    o.models = {"mixed"};
    return predict(k, m, o).at(0);
}

TEST(ProfileRegions, PlacesRegionsWithFlopsAndBytesWithTheMixedVerdict) {
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    core::Profile p;
    p.parameters = {{"ranks", 2}};
    p.ranks = 2;
    p.cores = 2;
    core::ProfileFunction dot{"main->dot", "region", {}};
    dot.metrics["flops"] = region_metric(core::MetricOrigin::declared, "sum", {1e9, 1e9});
    dot.metrics["bytes"] = region_metric(core::MetricOrigin::declared, "sum", {8e9, 8e9});
    dot.metrics["time"] = region_metric(core::MetricOrigin::counted, "max", {0.5, 1.0});
    core::ProfileFunction halo{"main->halo", "region", {}};
    halo.metrics["time"] = region_metric(core::MetricOrigin::counted, "max", {0.1, 0.1});
    core::ProfileFunction sim{"kernel", "function", {}};
    sim.metrics["LL_MISS_BYTES"] = region_metric(core::MetricOrigin::simulated, "sum", {6.4e3, 6.4e3});
    p.functions = {dot, halo, sim};

    const ProfilePlacement out = place_profile(p, m);
    ASSERT_EQ(out.verdicts.size(), 1u);
    const RegionVerdict& v = out.verdicts[0];
    EXPECT_EQ(v.name, "main->dot");
    EXPECT_DOUBLE_EQ(v.intensity, 2e9 / 16e9);
    ASSERT_TRUE(v.measured_gflops);
    EXPECT_DOUBLE_EQ(*v.measured_gflops, 2e9 / 1.0 * 1e-9); // summed flops over the slowest rank's time
    EXPECT_EQ(v.flops_origin, "declared");

    KernelSpec k;
    k.name = "main->dot";
    k.flops_per_iteration = 2e9;
    k.iterations = 1;
    k.explicit_bytes["MEM"] = 16e9;
    PredictOptions o;
    o.threads = 2;
    o.models = {"mixed"};
    const auto pred = predict(k, m, o).at(0);
    EXPECT_DOUBLE_EQ(v.bound_gflops, pred.gflops);
    EXPECT_EQ(v.bottleneck, pred.bottleneck);
    ASSERT_TRUE(v.fraction);
    EXPECT_DOUBLE_EQ(*v.fraction, *v.measured_gflops / pred.gflops);
    ASSERT_EQ(out.results.kernels.size(), 1u);
    EXPECT_EQ(out.results.kernels[0].predictions.at(0).model, "mixed");

    ASSERT_EQ(out.omitted.size(), 2u);
    EXPECT_EQ(out.omitted[0], "main->halo: flops and bytes unknown");
    EXPECT_EQ(out.omitted[1], "kernel: flops unknown");
}

TEST(ProfileRegions, WhatNoRunCountsIsLeftOutSoTheResultsReadBack) {
    // A big run's totals are placed as one iteration; totals beyond a run's events and repetitions faster
    // than any machine (wrong declared work or times) are left out and said, so the results stay in range.
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    core::Profile p;
    p.parameters = {{"ranks", 1}};
    core::ProfileFunction big{"big", "region", {}};
    big.metrics["flops"] = region_metric(core::MetricOrigin::declared, "sum", {1e24});
    big.metrics["bytes"] = region_metric(core::MetricOrigin::declared, "sum", {1e24});
    big.metrics["time"] = region_metric(core::MetricOrigin::counted, "max", {1e6});
    big.metrics["time"].per_rank.push_back({1e-3}); // a second repetition: 1e18 GFLOP/s
    core::ProfileFunction huge{"huge", "region", {}};
    huge.metrics["flops"] = region_metric(core::MetricOrigin::declared, "sum", {1e30, 1e30});
    huge.metrics["bytes"] = region_metric(core::MetricOrigin::declared, "sum", {8});
    p.functions = {big, huge};

    const ProfilePlacement out = place_profile(p, m);
    ASSERT_EQ(out.verdicts.size(), 1u);
    ASSERT_TRUE(out.verdicts[0].measured_gflops);
    EXPECT_DOUBLE_EQ(*out.verdicts[0].measured_gflops, 1e24 / 1e6 * 1e-9);
    ASSERT_EQ(out.omitted.size(), 2u);
    EXPECT_EQ(out.omitted[0],
              "big: 1 timed repetition(s) above 1.04858e+13 GFLOP/s, faster than any machine, "
              "left out of its measured performance");
    EXPECT_EQ(out.omitted[1], "huge: 2e+30 flops over 8 bytes is more than a run counts (1e+30)");
    std::vector<std::string> unread;
    (void)core::results_from_json(core::results_to_json(out.results), "r.json", &unread);
    EXPECT_TRUE(unread.empty());
}

TEST(ProfileRegions, AFunctionThatOnlyMovesDataGetsItsVerdictInBandwidth) {
    // memcpy under the callgrind backend: no flops, bytes per level, most of the program's time. It cannot
    // sit on a log-scale FLOP roofline, but its bound is the mixed model's time for those bytes.
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    core::Profile p;
    p.parameters = {{"ranks", 1}};
    p.cores = 1;
    const std::map<std::string, double> bytes = {{"L1", 3.2e9}, {"L2", 4.8e9}, {"L3", 4.8e9}, {"MEM", 4.8e9}};
    // strlen: no flops and no bytes, nothing to place.
    p.functions = {counted_function("__memcpy_avx_unaligned_erms", "library", 0, 0.5, bytes),
                   counted_function("strlen", "library", 0, 0.1, {})};

    const ProfilePlacement out = place_profile(p, m);
    ASSERT_EQ(out.verdicts.size(), 1u);
    const RegionVerdict& v = out.verdicts[0];
    EXPECT_EQ(v.intensity, 0);
    EXPECT_FALSE(v.measured_gflops);
    ASSERT_TRUE(v.measured_gbs);
    EXPECT_DOUBLE_EQ(*v.measured_gbs, 4.8e9 / 0.5 * 1e-9); // the memory bytes over the time

    const core::Prediction pred = mixed_prediction(m, v.name, 0, bytes, 1);
    EXPECT_DOUBLE_EQ(v.bound_gbs, 4.8e9 / pred.seconds_per_iteration * 1e-9);
    EXPECT_EQ(v.bottleneck, pred.bottleneck);
    ASSERT_TRUE(v.fraction);
    EXPECT_DOUBLE_EQ(*v.fraction, *v.measured_gbs / v.bound_gbs);
    ASSERT_GE(v.guidance.size(), 2u);
    EXPECT_NE(v.guidance[1].find("only moves data"), std::string::npos);
    ASSERT_EQ(out.results.kernels.size(), 1u);
    ASSERT_TRUE(out.results.kernels[0].measured_gbs);
    EXPECT_DOUBLE_EQ(out.results.kernels[0].measured_gbs->median, *v.measured_gbs);
    ASSERT_EQ(out.omitted.size(), 1u);
    EXPECT_EQ(out.omitted[0], "strlen: bytes unknown");
    // Faster than any machine moves: placed, but its timed repetition is left out with a note, so that the
    // report's results file reads back.
    p.functions = {counted_function("burst", "library", 0, 1e-9, {{"MEM", 1e25}})};
    const ProfilePlacement fast = place_profile(p, m);
    ASSERT_EQ(fast.verdicts.size(), 1u);
    EXPECT_FALSE(fast.verdicts[0].measured_gbs);
    ASSERT_EQ(fast.omitted.size(), 1u);
    EXPECT_NE(fast.omitted[0].find("faster than any machine"), std::string::npos) << fast.omitted[0];
}

} // namespace
TEST(ProfileRegions, CountedBytesPerLevelGiveOneDotPerLevelAndGuidance) {
    // The callgrind backend's functions and loops: flops counted, bytes per level counted (L1) and simulated
    // (L2 .. MEM); the bound is the mixed model's for exactly those bytes, the chart gets one dot per level.
    const core::Machine m =
        core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    core::Profile p;
    p.parameters = {{"ranks", 1}};
    p.cores = 1;
    const std::map<std::string, double> bytes = {{"L1", 24e9}, {"L2", 16e9}, {"L3", 8e9}, {"MEM", 1e9}};
    const core::ProfileFunction solve = counted_function("solve", "function", 2e9, 1.0, bytes);
    core::ProfileFunction loop = solve;
    loop.name = "solve -> loop at solve.c:42";
    loop.kind = "loop";
    core::ProfileFunction tiny{"init", "function", {}};
    tiny.metrics["flops"] = region_metric(core::MetricOrigin::counted, "sum", {1e6});
    tiny.metrics["time"] = region_metric(core::MetricOrigin::sampled, "max", {0.005});
    tiny.metrics["bytes_L1"] = region_metric(core::MetricOrigin::counted, "sum", {8e6});
    p.functions = {solve, loop, tiny};

    const ProfilePlacement out = place_profile(p, m);
    ASSERT_EQ(out.verdicts.size(), 2u);
    EXPECT_EQ(out.below_share, 1u); // init: 0.5 % of the time, 0.05 % of the flops
    const RegionVerdict& v = out.verdicts[1];
    EXPECT_EQ(v.kind, "loop");
    EXPECT_EQ(v.level_bytes, bytes);
    EXPECT_DOUBLE_EQ(v.intensity, 2e9 / 1e9);
    EXPECT_EQ(v.bytes_origin, "simulated");
    EXPECT_EQ(v.flops_origin, "counted");
    ASSERT_TRUE(v.time_share);
    EXPECT_DOUBLE_EQ(*v.time_share, 1.0 / 1.005);
    EXPECT_EQ(out.results.kernels[1].bytes_per_iteration, bytes);

    const core::Prediction pred = mixed_prediction(m, v.name, 2e9, bytes, 1);
    EXPECT_DOUBLE_EQ(v.bound_gflops, pred.gflops);
    EXPECT_EQ(v.bottleneck, pred.bottleneck);
    ASSERT_FALSE(v.guidance.empty());
    const std::string limit =
        (pred.bottleneck == "MEM" ? std::string("memory") : pred.bottleneck) + " bandwidth limits it";
    EXPECT_EQ(v.guidance.front(), pred.bottleneck == "compute" ? "the compute ceiling limits it" : limit);
}

} // namespace roofcast::model
