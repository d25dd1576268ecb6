#include "core/error.hpp"
#include "core/results.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
    KernelResult k;
    k.name = "stream_triad";
    k.suite = "stream";
    k.flops_per_iteration = 2;
    k.iterations = 1e6;
    k.bytes_per_iteration = {{"L1", 24}, {"MEM", 32}};
    k.measured_gflops = *summarize({1.0, 1.1, 0.9});
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
