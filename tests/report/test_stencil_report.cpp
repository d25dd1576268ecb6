// The stencil reports: the JSON fields docs/stencil.md promises, and the verdict line of the text table.
#include "report/stencil_report.hpp"

#include <gtest/gtest.h>

namespace ms = roofcast::model::stencil;

namespace {

ms::MeasuredStencil measured() {
    ms::MeasuredStencil m;
    m.kernel = "jacobi7";
    m.ranks = 2;
    m.steps = 4;
    for (int k = 1; k <= 2; ++k) {
        ms::MeasuredK r;
        r.k = k;
        r.seconds_per_step.min = k == 1 ? 1.8e-5 : 0.9e-5;
        r.seconds_per_step.median = k == 1 ? 2e-5 : 1e-5;
        r.seconds_per_step.max = k == 1 ? 2.5e-5 : 1.4e-5;
        r.seconds_per_step.n = 3;
        for (const auto& name : ms::k_phase_names)
            r.phase_seconds_per_block[name].median = 1e-6;
        m.runs.push_back(r);
    }
    return m;
}

} // namespace

TEST(StencilReport, SweepJsonHasThePromisedFields) {
    const auto m = measured();
    std::vector<ms::KPrediction> p(2);
    p[0].k = 1;
    p[0].seconds = 3;
    p[0].seconds_per_step = 0.75;
    p[1].k = 2;
    p[1].seconds = 2;
    p[1].seconds_per_step = 0.5;
    const auto c = ms::compare(m, p);
    roofcast::report::StencilHeader h;
    h.kernel = "jacobi7";
    h.grid = {8, 6, 4};
    h.dims = {2, 1, 1};
    h.ranks = 2;
    const auto j = roofcast::report::stencil_sweep_json(h, m, c);
    EXPECT_EQ(j["grid"], nlohmann::json({4, 6, 8}));
    ASSERT_EQ(j["sweep"].size(), 2u);
    EXPECT_EQ(j["sweep"][1]["k"], 2);
    EXPECT_DOUBLE_EQ(j["sweep"][1]["predicted_seconds_per_step"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(j["sweep"][1]["measured_seconds_per_step"].get<double>(), 0.9e-5); // the fastest
    EXPECT_DOUBLE_EQ(j["sweep"][1]["measured_seconds_per_step_median"].get<double>(), 1e-5);
    EXPECT_TRUE(j["sweep"][0]["phase_seconds_per_block"].contains("mpi"));
    EXPECT_EQ(j["best_predicted_k"], 2);
    EXPECT_EQ(j["best_measured_k"], 2);
    EXPECT_EQ(j["predicted_best_hit"], true);
    const std::string text = roofcast::report::format_stencil_sweep(h, m, c);
    EXPECT_NE(text.find("best measured k = 2, best predicted k = 2: the measured best"), std::string::npos)
        << text;
}

TEST(StencilReport, NoMachineNoPrediction) {
    const auto m = measured();
    const auto c = ms::compare(m, {});
    roofcast::report::StencilHeader h;
    const auto j = roofcast::report::stencil_sweep_json(h, m, c);
    EXPECT_TRUE(j["sweep"][0]["predicted_seconds_per_step"].is_null());
    EXPECT_TRUE(j["best_predicted_k"].is_null());
    EXPECT_NE(roofcast::report::format_stencil_sweep(h, m, c).find("no machine file (--no-machine)"),
              std::string::npos);
}
