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

core::Machine example_machine() {
    return core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
}

// A profile of one process on one core, its functions to be added.
core::Profile one_core_profile() {
    core::Profile p;
    p.parameters = {{"ranks", 1}};
    p.cores = 1;
    return p;
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
    const core::Machine m = example_machine();
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
    const core::Machine m = example_machine();
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
    const core::Machine m = example_machine();
    core::Profile p = one_core_profile();
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
    EXPECT_DOUBLE_EQ(*v.measured_gbs, 4.8e9 / 0.5 * 1e-9); // its limiting level's bytes over the time

    const core::Prediction pred = mixed_prediction(m, v.name, 0, bytes, 1);
    EXPECT_DOUBLE_EQ(v.bound_gbs, 4.8e9 / pred.seconds_per_iteration * 1e-9);
    EXPECT_EQ(v.bottleneck, pred.bottleneck);
    ASSERT_TRUE(v.fraction);
    EXPECT_DOUBLE_EQ(*v.fraction, *v.measured_gbs / v.bound_gbs);
    // Near its bound: bandwidth limits it and it only moves data; far below: its time goes elsewhere.
    ASSERT_GE(v.guidance.size(), 2u);
    const bool far = *v.fraction < 0.5;
    EXPECT_NE(v.guidance[0].find(far ? "its time goes elsewhere" : "bandwidth limits it"), std::string::npos)
        << v.guidance[0];
    EXPECT_NE(v.guidance[1].find(far ? "first time (page faults)" : "only moves data"), std::string::npos)
        << v.guidance[1];
    for (const double fraction : {0.9, 0.2}) {
        core::Profile q = p;
        q.functions = {counted_function("copy", "library", 0, pred.seconds_per_iteration / fraction, bytes)};
        const std::vector<std::string> g = place_profile(q, m).verdicts.at(0).guidance;
        ASSERT_GE(g.size(), 2u);
        const std::string level = pred.bottleneck == "MEM" ? "memory" : pred.bottleneck;
        EXPECT_EQ(g[0], fraction > 0.5
                            ? level + " bandwidth limits it"
                            : level + " bandwidth bounds it, but at 20 % of that bound its time goes "
                                      "elsewhere")
            << fraction;
        EXPECT_NE(g[1].find(fraction > 0.5 ? "only moves data" : "page faults"), std::string::npos) << g[1];
    }
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
    const core::Machine m = example_machine();
    core::Profile p = one_core_profile();
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
    EXPECT_EQ(v.bytes_origin, "simulated");
    EXPECT_EQ(v.flops_origin, "counted");
    ASSERT_TRUE(v.time_share);
    EXPECT_DOUBLE_EQ(*v.time_share, 1.0 / 1.005);
    EXPECT_EQ(out.results.kernels[1].bytes_per_iteration, bytes);

    const core::Prediction pred = mixed_prediction(m, v.name, 2e9, bytes, 1);
    EXPECT_DOUBLE_EQ(v.bound_gflops, pred.gflops);
    EXPECT_EQ(v.bottleneck, pred.bottleneck);
    // The intensity is taken at the level that limits it (the largest data term where compute does).
    ASSERT_TRUE(bytes.count(v.bytes_level)) << v.bytes_level;
    if (pred.bottleneck != "compute") {
        EXPECT_EQ(v.bytes_level, pred.bottleneck);
    }
    EXPECT_DOUBLE_EQ(v.intensity, 2e9 / bytes.at(v.bytes_level));
    ASSERT_FALSE(v.guidance.empty());
    const std::string limit =
        (pred.bottleneck == "MEM" ? std::string("memory") : pred.bottleneck) + " bandwidth limits it";
    EXPECT_EQ(v.guidance.front(), pred.bottleneck == "compute" ? "the compute ceiling limits it" : limit);
}

TEST(ProfileRegions, ALoopWhoseDataStayInACacheIsPlacedAtTheLevelThatLimitsIt) {
    // HPCG's SpMV on a small grid: its L2 traffic limits it and a few lines still miss to memory. Flops over
    // those memory bytes would read thousands of FLOP/B; its intensity is taken at the limiting level.
    const core::Machine m = example_machine();
    core::Profile p = one_core_profile();
    const std::map<std::string, double> bytes = {{"L1", 7e9}, {"L2", 5.8e9}, {"L3", 2.4e9}, {"MEM", 1e5}};
    p.functions = {counted_function("spmv", "function", 7e7, 0.02, bytes)};
    const ProfilePlacement out = place_profile(p, m);
    ASSERT_EQ(out.verdicts.size(), 1u);
    const RegionVerdict& v = out.verdicts[0];
    const core::Prediction pred = mixed_prediction(m, "spmv", 7e7, bytes, 1);
    ASSERT_NE(pred.bottleneck, "MEM");
    ASSERT_NE(pred.bottleneck, "compute");
    EXPECT_EQ(v.bytes_level, pred.bottleneck);
    EXPECT_DOUBLE_EQ(v.intensity, 7e7 / bytes.at(pred.bottleneck));
    EXPECT_LT(v.intensity, 1.0);

    // One that only moves data: its verdict's bandwidth at the limiting level, the results file's (which the
    // HTML report reads) at the farthest level that moves data, as the suite's copy loops.
    const std::map<std::string, double> packed = {{"L1", 2e9}, {"L2", 1e9}, {"L3", 1e6}, {"MEM", 1e3}};
    p.functions = {counted_function("pack", "function", 0, 0.5, packed)};
    const ProfilePlacement moved = place_profile(p, m);
    ASSERT_EQ(moved.verdicts.size(), 1u);
    const RegionVerdict& pack = moved.verdicts[0];
    ASSERT_TRUE(pack.measured_gbs);
    EXPECT_EQ(pack.bytes_level, mixed_prediction(m, "pack", 0, packed, 1).bottleneck);
    EXPECT_DOUBLE_EQ(*pack.measured_gbs, packed.at(pack.bytes_level) / 0.5 * 1e-9);
    ASSERT_TRUE(moved.results.kernels[0].measured_gbs);
    EXPECT_DOUBLE_EQ(moved.results.kernels[0].measured_gbs->median, 1e3 / 0.5 * 1e-9);
}

TEST(ProfileRegions, ASampledTimeCarriesTheIntervalOfItsSampleCount) {
    // A loop two perf samples timed: its fraction of the bound within the Poisson limits of 2 samples; one
    // of 4000 samples, within a few per cent.
    const core::Machine m = example_machine();
    core::Profile p = one_core_profile();
    const std::map<std::string, double> bytes = {{"L1", 8e9}, {"L2", 4e9}, {"L3", 2e9}, {"MEM", 1e9}};
    core::ProfileFunction few = counted_function("few", "loop", 1e9, 0.0005, bytes);
    few.metrics["time_samples"] = region_metric(core::MetricOrigin::sampled, "max", {2});
    core::ProfileFunction many = counted_function("many", "loop", 1e9, 1.0, bytes);
    many.metrics["time_samples"] = region_metric(core::MetricOrigin::sampled, "max", {4000});
    const core::ProfileFunction unsampled = counted_function("unsampled", "loop", 1e9, 1.0, bytes);
    p.functions = {few, many, unsampled};
    const ProfilePlacement out = place_profile(p, m, 0.0);
    ASSERT_EQ(out.verdicts.size(), 3u);
    const RegionVerdict& a = out.verdicts[0];
    ASSERT_TRUE(a.fraction && a.fraction_lo && a.fraction_hi && a.time_samples);
    const auto [lo, hi] = core::poisson_interval_95(2);
    EXPECT_DOUBLE_EQ(*a.time_samples, 2);
    EXPECT_DOUBLE_EQ(*a.fraction_lo, *a.fraction * 2 / hi);
    EXPECT_DOUBLE_EQ(*a.fraction_hi, *a.fraction * 2 / lo);
    EXPECT_LT(*a.fraction_lo, 0.3 * *a.fraction);
    EXPECT_GT(*a.fraction_hi, 8 * *a.fraction);
    const RegionVerdict& b = out.verdicts[1];
    ASSERT_TRUE(b.fraction_lo && b.fraction_hi);
    EXPECT_GT(*b.fraction_lo, 0.96 * *b.fraction);
    EXPECT_LT(*b.fraction_hi, 1.04 * *b.fraction);
    EXPECT_FALSE(out.verdicts[2].fraction_lo); // no sample count: no sampling interval
}

} // namespace roofcast::model
