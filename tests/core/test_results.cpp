#include "core/error.hpp"
#include "core/results.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace roofcast::core;

namespace {
Prediction pred(const std::string& model, double err, bool valid) {
    Prediction p;
    p.model = model;
    p.seconds_per_iteration = 1e-9;
    p.gflops = 2.0;
    p.bottleneck = "MEM";
    p.valid = valid;
    p.error_pct = err;
    return p;
}

// A kernel row of 2 flops per iteration measured at `gflops` (samples).
KernelResult measured_kernel(const std::string& name, std::vector<double> gflops) {
    KernelResult k;
    k.name = name;
    k.flops_per_iteration = 2;
    k.measured_gflops = *summarize(std::move(gflops));
    return k;
}
} // namespace

TEST(Results, AccuracyUsesValidPredictionsOnly) {
    // mixed errors: -4, +10, -30 (invalid, excluded) -> |e| = 4, 10 -> median 7, max 10
    std::vector<KernelResult> ks(3);
    ks[0].predictions = {pred("mixed", -4, true)};
    ks[1].predictions = {pred("mixed", 10, true), pred("roofline", 50, true)};
    ks[2].predictions = {pred("mixed", -30, false)};
    const auto a = accuracy_of(ks, "mixed");
    EXPECT_EQ(a.n, 2u);
    EXPECT_DOUBLE_EQ(*a.median_abs_error_pct, 7.0);
    EXPECT_DOUBLE_EQ(*a.max_abs_error_pct, 10.0);
    EXPECT_FALSE(accuracy_of(ks, "cache-aware").median_abs_error_pct.has_value());
}

TEST(Results, JsonRoundTrip) {
    Results r;
    KernelResult k = measured_kernel("stream_triad", {1.0, 1.1, 0.9});
    k.suite = "stream";
    k.iterations = 1e6;
    k.bytes_per_iteration = {{"L1", 24}, {"MEM", 32}};
    Prediction p = pred("roofline", 5.0, true);
    p.terms.push_back({"MEM", 32, 2.0 / 32, 30.0, "entered", 32 / 30e9});
    k.predictions.push_back(p);
    r.kernels.push_back(k);
    r.accuracy.push_back(accuracy_of(r.kernels, "roofline"));
    const auto j = results_to_json(r);
    const Results back = results_from_json(j, "r.json");
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
    EXPECT_EQ(back.kernels[0].predictions[0].terms[0].level, "MEM");
}

// The host judgement and each model's interval figures read back as written, and counts that cannot hold
// together are refused.
TEST(Results, HostSharingRoundTrips) {
    Results r;
    r.kernels.push_back(measured_kernel("stream_triad", {1.0, 1.1, 0.9}));
    AccuracySummary a = accuracy_of(r.kernels, "mixed");
    a.n_interval = 5;
    a.inside_interval = 3;
    a.within_tolerance = 4;
    a.max_beyond_pct = 22.5;
    r.accuracy.push_back(a);
    r.host = HostSharing{true, {"steal time 3.1 % of the run"}, 0.031, 2.3};
    const auto j = results_to_json(r);
    const Results back = results_from_json(j, "r.json");
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
    ASSERT_TRUE(back.host);
    EXPECT_TRUE(back.host->shared);
    EXPECT_EQ(back.accuracy[0].within_tolerance, 4u);
    auto bad = j;
    bad["accuracy"][0]["inside_interval"] = 5;
    try {
        results_from_json(bad, "r.json");
        FAIL() << "more inside than within the tolerance was read";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "accuracy[0].inside_interval");
    }
}

TEST(Results, RejectsOtherDocuments) {
    EXPECT_THROW(results_from_json(nlohmann::json::parse(R"({"kind": "something"})"), "x.json"), InputError);
    try {
        results_from_json(nlohmann::json::parse(R"({"kind": "roofcast-results", "format_version": 1,
            "kernels": [{"name": "k", "flops_per_iteration": "two"}]})"),
                          "x.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("kernels[0].flops_per_iteration"), std::string::npos);
    }
}

TEST(Results, NoiseRoundTripsAndTheStoredFlagSurvivesReading) {
    // Spread 20 % of a fixed-threshold summary is NOISY; the run's probe said the host moved as much, so
    // the row is not flagged, and reading the file back keeps the run's verdict.
    Results r;
    KernelResult k = measured_kernel("norm2", {2.0, 1.666, 2.0});
    k.measured_seconds = *summarize({1.0, 1.2, 1.0});
    ASSERT_TRUE(k.measured_seconds->noisy);
    k.noise = RowNoise{"memory", 0.1, 0.15};
    k.bound_fraction_rounds = {0.8, 0.9, 0.85};
    k.bound_fraction_median_round = 0.85;
    k.measured_seconds->noisy = k.measured_gflops->noisy = false;
    r.kernels.push_back(k);
    r.host_noise = HostNoise{{NoiseProbe{"memory", "calib-MEM-2F", {40.0, 31.5, 44.0}, 0.15}}, 1, 0};
    const auto j = results_to_json(r);
    EXPECT_FALSE(j["kernels"][0]["noise"]["flagged"].get<bool>());
    const Results back = results_from_json(j, "r.json");
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
    EXPECT_FALSE(back.kernels[0].measured_seconds->noisy);
    ASSERT_TRUE(back.host_noise);
    EXPECT_EQ(back.host_noise->probes[0].gbs.size(), 3u);
    EXPECT_EQ(back.kernels[0].bound_fraction_rounds, (std::vector<double>{0.8, 0.9, 0.85}));
}

TEST(Results, PerRoundAccuracyRoundTripsAndIsChecked) {
    Results r;
    r.kernels.push_back(measured_kernel("norm2", {2.0, 1.666, 2.0}));
    r.accuracy = {AccuracySummary{"mixed", 3, 4.0, 12.0, 2, 5.5, 9.0},
                  AccuracySummary{"roofline", 1, 2.0, 2.0}};
    const auto j = results_to_json(r);
    EXPECT_EQ(j["accuracy"][0]["n_round"], 2);
    EXPECT_DOUBLE_EQ(j["accuracy"][0]["median_round_abs_error_pct"].get<double>(), 5.5);
    EXPECT_TRUE(j["accuracy"][1]["max_round_abs_error_pct"].is_null());
    const Results back = results_from_json(j, "r.json");
    ASSERT_EQ(back.accuracy.size(), 2u);
    EXPECT_EQ(back.accuracy[0].n_round, 2u);
    EXPECT_DOUBLE_EQ(*back.accuracy[0].max_round_abs_error_pct, 9.0);
    EXPECT_FALSE(back.accuracy[1].median_round_abs_error_pct);
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
    // A file written before the per-round figures reads as none.
    auto old = j;
    for (auto& a : old["accuracy"])
        for (const char* key : {"n_round", "median_round_abs_error_pct", "max_round_abs_error_pct"})
            a.erase(key);
    EXPECT_EQ(results_from_json(old, "r.json").accuracy[0].n_round, 0u);
    auto bad = j;
    bad["accuracy"][0]["median_round_abs_error_pct"] = 10.0; // above its max
    try {
        results_from_json(bad, "r.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("median_round_abs_error_pct"), std::string::npos);
    }
}

TEST(Results, InCacheTimeRoundTripsAndIsPositive) {
    Results r;
    KernelResult k = measured_kernel("jacobi-3d-7pt-tuned", {2.0, 1.666, 2.0});
    k.in_cache_seconds = 1.05e-10;
    r.kernels.push_back(k);
    const auto j = results_to_json(r);
    EXPECT_DOUBLE_EQ(j["kernels"][0]["in_cache_seconds_per_iteration"].get<double>(), 1.05e-10);
    const Results back = results_from_json(j, "r.json");
    ASSERT_TRUE(back.kernels[0].in_cache_seconds);
    EXPECT_DOUBLE_EQ(*back.kernels[0].in_cache_seconds, 1.05e-10);
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
    auto bad = j;
    bad["kernels"][0]["in_cache_seconds_per_iteration"] = 0;
    try {
        results_from_json(bad, "r.json");
        ADD_FAILURE() << "a zero in-cache time was accepted";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(),
                     "r.json: field 'kernels[0].in_cache_seconds_per_iteration': expected a positive "
                     "number at most 1e+07, got 0");
    }
}

TEST(Results, SettleRoundsRoundTrip) {
    Results r;
    KernelResult k = measured_kernel("norm2", {2.0, 1.666, 2.0});
    k.settle = RoundSettle{5, false};
    r.kernels.push_back(k);
    const auto j = results_to_json(r);
    EXPECT_EQ(j["kernels"][0]["settle"]["rounds"].get<int>(), 5);
    const Results back = results_from_json(j, "r.json");
    ASSERT_TRUE(back.kernels[0].settle);
    EXPECT_EQ(back.kernels[0].settle->rounds, 5);
    EXPECT_FALSE(back.kernels[0].settle->settled);
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
}

TEST(Results, VerdictRoundTrips) {
    Results r;
    KernelResult k = measured_kernel("norm2", {2.0, 1.666, 2.0});
    k.verdict = Verdict{"undetermined", 0.9, 0.8, 0.95, 0.75, "epochs and rounds", 0.85, 2.5, "memory"};
    r.kernels.push_back(k);
    const auto j = results_to_json(r);
    EXPECT_EQ(j["kernels"][0]["verdict"]["state"], "undetermined");
    const Results back = results_from_json(j, "r.json");
    ASSERT_TRUE(back.kernels[0].verdict);
    EXPECT_EQ(back.kernels[0].verdict->probe, "memory");
    EXPECT_EQ(results_to_json(back).dump(), j.dump());
}

namespace {

// Reading `body` as a results file fails with an error that names `field`.
void bad(const std::string& field, const std::string& body) {
    try {
        results_from_json(nlohmann::json::parse(body), "x.json");
        ADD_FAILURE() << "accepted " << body;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
}

} // namespace

TEST(Results, BadNoiseFieldsNameTheField) {
    const std::string head = R"({"kind": "roofcast-results", "format_version": 1, )";
    bad("kernels[0].noise.probe", head + R"("kernels": [{"name": "k", "flops_per_iteration": 1,
        "noise": {"probe": "disk", "spread": 0.1, "floor": 0.1}}]})");
    bad("kernels[0].noise.spread", head + R"("kernels": [{"name": "k", "flops_per_iteration": 1,
        "noise": {"probe": "core", "spread": -1, "floor": 0.1}}]})");
    bad("kernels[0].settle.rounds", head + R"("kernels": [{"name": "k", "flops_per_iteration": 1,
        "settle": {"rounds": 0, "settled": true}}]})");
    bad("kernels[0].settle.settled", head + R"("kernels": [{"name": "k", "flops_per_iteration": 1,
        "settle": {"rounds": 2, "settled": "yes"}}]})");
    bad("kernels[0].verdict.state", head + R"("kernels": [{"name": "k", "flops_per_iteration": 1,
        "verdict": {"state": "maybe", "fraction": 1, "lo": 1, "hi": 1, "confidence": 0, "basis": "epochs",
        "threshold": 0.85}}]})");
    bad("kernels[0].verdict.hi", head + R"("kernels": [{"name": "k", "flops_per_iteration": 1,
        "verdict": {"state": "below", "fraction": 1, "lo": 0.9, "hi": 0.5, "confidence": 0, "basis": "epochs",
        "threshold": 0.85}}]})");
    bad("host_noise.flagged",
        head + R"("kernels": [], "host_noise": {"probes": [], "rows": 1, "flagged": 2}})");
    bad("host_noise.rows",
        head + R"("kernels": [], "host_noise": {"probes": [], "rows": 1.5, "flagged": 0}})");
    bad("host_noise.probes[0].gbs[1]", head + R"("kernels": [], "host_noise": {"probes": [{"kind": "memory",
        "kernel": "p", "floor": 0.1, "gbs": [1, "x"]}], "rows": 0, "flagged": 0}})");
}

TEST(Results, KernelEnumsAndCountsAreCheckedBeforeUse) {
    const std::string head = R"({"kind": "roofcast-results", "format_version": 1, )";
    bad("kernels[0].precision",
        head + R"("kernels": [{"name": "k", "flops_per_iteration": 1, "precision": "quad"}]})");
    bad("kernels[0].threads",
        head + R"("kernels": [{"name": "k", "flops_per_iteration": 1, "threads": 1e300}]})");
    bad("kernels[0].threads",
        head + R"("kernels": [{"name": "k", "flops_per_iteration": 1, "threads": 2.5}]})");
    bad("format_version", R"({"kind": "roofcast-results", "format_version": 1e300, "kernels": []})");
}

namespace {

// what() of reading `body` as a results file; "(no error)" when it is accepted.
std::string results_error_of(const std::string& body) {
    try {
        results_from_json(nlohmann::json::parse(body), "x.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST(Results, NumericFieldsHaveRanges) {
    // docs/formats.md, "Results file": one line naming the file, the field and the range.
    const std::string head =
        R"({"kind": "roofcast-results", "format_version": 1, "kernels": [{"name": "k", )";
    const std::string pred = R"("flops_per_iteration": 2, "predictions": [{"model": "roofline", )";
    const std::pair<std::string, std::string> cases[] = {
        {head + R"("flops_per_iteration": 1e31}]})",
         "x.json: field 'kernels[0].flops_per_iteration': expected a number from 0 to 1e+30, got 1e+31"},
        {head + R"("flops_per_iteration": 2, "iterations": -1}]})",
         "x.json: field 'kernels[0].iterations': expected a number from 0 to 9.22337e+18, got -1"},
        {head + R"("flops_per_iteration": 2, "bytes_per_iteration": {"MEM": -8}}]})",
         "x.json: field 'kernels[0].bytes_per_iteration.MEM': expected a number from 0 to 1e+30, got -8"},
        {head + R"("flops_per_iteration": 2, "measured": {"gbs": {"samples": [3, 2e12]}}}]})",
         "x.json: field 'kernels[0].measured.gbs.samples[1]': expected a number from 0 to 1.04858e+12, got "
         "2000000000000.0"},
        {head + R"("flops_per_iteration": 2, "measured": {"seconds": {"median": 0}}}]})",
         "x.json: field 'kernels[0].measured.seconds.median': expected a positive number at most 1e+07, got "
         "0"},
        {head + R"("flops_per_iteration": 2, "measured": {"gflops": {"median": 2, "min": 3}}}]})",
         "x.json: field 'kernels[0].measured.gflops': expected min <= median <= max"},
        {head + pred + R"("seconds_per_iteration": 1e-9, "gflops": -1, "bottleneck": "MEM"}]}]})",
         "x.json: field 'kernels[0].predictions[0].gflops': expected a number from 0 to 1e+07, got -1"},
        {head + pred + R"("seconds_per_iteration": -1e-9, "gflops": 1, "bottleneck": "MEM"}]}]})",
         "x.json: field 'kernels[0].predictions[0].seconds_per_iteration': expected a number >= 0, got "
         "-1e-09"},
        {head + pred +
             R"("seconds_per_iteration": 1e-9, "gflops": 1, "bottleneck": "MEM", "error_pct": -150}]}]})",
         "x.json: field 'kernels[0].predictions[0].error_pct': expected a number >= -100, got -150"},
        {head + pred + R"("seconds_per_iteration": 1e-9, "gflops": 1, "bottleneck": "MEM",
             "terms": [{"level": "MEM", "bytes_per_iteration": 8, "bandwidth_gbs": 0}]}]}]})",
         "x.json: field 'kernels[0].predictions[0].terms[0].bandwidth_gbs': expected a positive number at "
         "most "
         "1e+06, got 0"},
        {head + R"("flops_per_iteration": 2, "thread_imbalance": 0}]})",
         "x.json: field 'kernels[0].thread_imbalance': expected a positive number at most 1.04858e+06, got "
         "0"},
        {head + R"("flops_per_iteration": 2, "bound_fraction": -0.5}]})",
         "x.json: field 'kernels[0].bound_fraction': expected a number >= 0, got -0.5"},
        {R"({"kind": "roofcast-results", "format_version": 1, "kernels": [],
            "accuracy": [{"model": "mixed", "n": -1}]})",
         "x.json: field 'accuracy[0].n': expected a whole number from 0 to 1048576, got -1"},
        {R"({"kind": "roofcast-results", "format_version": 1, "kernels": [],
            "accuracy": [{"model": "mixed", "n": 2, "median_abs_error_pct": 9, "max_abs_error_pct": 3}]})",
         "x.json: field 'accuracy[0].median_abs_error_pct': expected at most max_abs_error_pct"},
    };
    for (const auto& [body, message] : cases)
        EXPECT_EQ(results_error_of(body), message) << body;
    // A kernel without flops measures 0 GFLOP/s; a profiled region's totals and whole-run rate are in range.
    EXPECT_EQ(
        results_error_of(head + R"("flops_per_iteration": 0, "measured": {"gflops": {"median": 0}}}]})"),
        "(no error)");
    EXPECT_EQ(results_error_of(head + R"("flops_per_iteration": 3e23, "iterations": 1, "measured": {"gflops":
                                  {"median": 1e9}}}]})"),
              "(no error)");
}

TEST(Results, KeysTheFormatDoesNotReadAreNamedWithTheirPath) {
    Results r;
    KernelResult k = measured_kernel("triad", {1.0, 1.1, 0.9});
    k.predictions.push_back(pred("roofline", 5.0, true));
    r.kernels.assign(4, k);
    Machine m;
    m.name = "m";
    m.peak_gflops["double"] = 10;
    m.levels.push_back({});
    m.levels.back().name = "MEM";
    m.levels.back().bandwidth_gbs = 10;
    r.machine = m;
    auto j = results_to_json(r);
    std::vector<std::string> unread{"stale"};
    (void)results_from_json(j, "r.json", &unread);
    EXPECT_EQ(unread, std::vector<std::string>{}) << "what roofcast writes is all part of the format";

    j["kernels"][3]["precison"] = "single";
    j["kernels"][0]["predictions"][0]["terms"] =
        nlohmann::json::array({{{"level", "MEM"}, {"bytes_per_iteration", 8}, {"bandwith_gbs", 3}}});
    j["machine"]["levels"][0]["bandwith_gbs"] = 9;
    j["comment"] = "hand-edited";
    (void)results_from_json(j, "r.json", &unread);
    EXPECT_EQ(unread, (std::vector<std::string>{"comment", "kernels[0].predictions[0].terms[0].bandwith_gbs",
                                                "kernels[3].precison", "machine.levels[0].bandwith_gbs"}));
}

TEST(Results, RoundAccuracyColumnsOnlyWhenAModelHasThem) {
    EXPECT_FALSE(has_round_accuracy({}));
    EXPECT_FALSE(has_round_accuracy(
        {AccuracySummary{"mixed", 3, 4.0, 12.0}, AccuracySummary{"roofline", 1, 2.0, 2.0}}));
    EXPECT_TRUE(has_round_accuracy(
        {AccuracySummary{"roofline", 1, 2.0, 2.0}, AccuracySummary{"mixed", 3, 4.0, 12.0, 2, 5.5, 9.0}}));
}
