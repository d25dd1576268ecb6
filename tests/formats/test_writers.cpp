// The registry's writers: Extra-P text read back gives the same series and the same fitted models (the
// writer is the reader's inverse), and Hatchet's literal JSON has the shape Hatchet's literal reader takes.
#include "analysis/scale/fit.hpp"
#include "core/profile.hpp"
#include "formats/format.hpp"
#include "test_inputs.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tuple>

namespace roofcast::model::formats {
namespace {

using roofcast::test::input_error_of;

scale::Dataset extrap_round_trip(const scale::Dataset& d) {
    const std::string text = find("extrap-text")->write_dataset(d, "out.txt");
    return scale::read_extrap_text(text, "out.txt");
}

// Series in (function, metric) order: Extra-P text groups them by metric.
scale::Dataset sorted(scale::Dataset d) {
    std::sort(d.series.begin(), d.series.end(), [](const auto& a, const auto& b) {
        return std::tie(a.function, a.metric) < std::tie(b.function, b.metric);
    });
    return d;
}

void expect_same_series(const scale::Dataset& a_in, const scale::Dataset& b_in) {
    const scale::Dataset a = sorted(a_in);
    const scale::Dataset b = sorted(b_in);
    ASSERT_EQ(a.parameters, b.parameters);
    ASSERT_EQ(a.series.size(), b.series.size());
    for (std::size_t i = 0; i < a.series.size(); ++i) {
        const auto& s = a.series[i];
        const auto& t = b.series[i];
        SCOPED_TRACE(s.function + " " + s.metric);
        EXPECT_EQ(s.function, t.function);
        EXPECT_EQ(s.metric, t.metric);
        ASSERT_EQ(s.points.size(), t.points.size());
        for (std::size_t k = 0; k < s.points.size(); ++k) {
            EXPECT_EQ(s.points[k].x, t.points[k].x);
            EXPECT_EQ(s.points[k].values, t.points[k].values); // bit for bit
        }
    }
}

void expect_same_models(const scale::Dataset& a_in, const scale::Dataset& b_in) {
    const scale::Dataset a = sorted(a_in);
    const scale::Dataset b = sorted(b_in);
    for (std::size_t i = 0; i < a.series.size(); ++i) {
        const auto fa = scale::fit_series(a.series[i], a.parameters.size(), scale::Selection::forecast);
        const auto fb = scale::fit_series(b.series[i], b.parameters.size(), scale::Selection::forecast);
        EXPECT_EQ(fa.model.formula(a.parameters), fb.model.formula(b.parameters));
        EXPECT_EQ(fa.model.coef, fb.model.coef);
        EXPECT_EQ(fa.mape, fb.mape);
    }
}

TEST(FormatWriters, ExtrapTextRoundTripOneParameter) {
    // The shipped profiles of one series of runs, merged as `roofcast scale` merges them.
    scale::Dataset d;
    for (int cores : {8, 16, 32, 64, 128}) {
        const std::string path = fmt::format("{}/data/profiles/run-{:03}.json", ROOFCAST_SOURCE_DIR, cores);
        scale::merge(d, read_dataset(path), path);
    }
    // Extra-P text holds series measured at every point (`convert` leaves the others out, naming them).
    const std::size_t before = d.series.size();
    std::erase_if(d.series, [&](const scale::Series& s) { return s.points.size() != d.point_count(); });
    ASSERT_FALSE(d.series.empty());
    ASSERT_LT(d.series.size(), before); // the shipped profiles have a function missing at some points
    const scale::Dataset back = extrap_round_trip(d);
    expect_same_series(d, back);
    expect_same_models(d, back);
}

TEST(FormatWriters, ExtrapTextRoundTripTwoParametersAndAwkwardValues) {
    scale::Dataset d;
    d.parameters = {"p", "n"};
    scale::Series s{"main->solve", "time", {}, {}};
    double v = 0.1;
    for (double p : {2.0, 4.0, 8.0, 16.0})
        for (double n : {1e3, 1e6 / 3.0}) {
            s.points.push_back({{p, n}, {v, v * (1.0 + 1e-15), 1e-300 + v}});
            v = v * 3.7 + 0.2;
        }
    d.series.push_back(s);
    s.function = "main";
    s.metric = "PAPI_L1_DCM";
    d.series.push_back(s);
    scale::normalize(d);
    const scale::Dataset back = extrap_round_trip(d);
    expect_same_series(d, back);
    expect_same_models(d, back);
}

TEST(FormatWriters, ExtrapTextRefusesWhatItCannotHold) {
    scale::Dataset d;
    d.parameters = {"p"};
    d.series.push_back({"f", "time", {{{1, 0}, {1.0}}, {{2, 0}, {2.0}}}, {}});
    d.series.push_back({"g", "time", {{{1, 0}, {1.0}}}, {}});
    EXPECT_EQ(
        input_error_of([&] { (void)find("extrap-text")->write_dataset(d, "o.txt"); }),
        "o.txt: field 'g': metric 'time' has no value at p=2: Extra-P text needs one DATA line per point");
    d.series.pop_back();
    d.series[0].function = "two\nlines";
    EXPECT_NE(input_error_of([&] { (void)find("extrap-text")->write_dataset(d, "o.txt"); }).find("one line"),
              std::string::npos);
}

core::ProfileMetric writer_metric(std::string aggregate, std::vector<std::vector<double>> per_rank) {
    core::ProfileMetric m;
    m.aggregate = std::move(aggregate);
    m.per_rank = std::move(per_rank);
    return m;
}

TEST(FormatWriters, HatchetLiteralTree) {
    core::Profile p;
    p.parameters = {{"ranks", 2}};
    p.ranks = 2;
    core::ProfileFunction f;
    f.name = "main";
    f.metrics["time"] = writer_metric("max", {{3.0, 5.0}, {4.0, 6.0}}); // max per repetition: 5, 6 -> 5.5
    p.functions.push_back(f);
    f.name = "main->solve->dot";
    f.kind = "region";
    f.metrics.clear();
    f.metrics["time"] = writer_metric("sum", {{1.0, 2.0}}); // 3
    f.metrics["flops"] = writer_metric("sum", {{10.0, 30.0}});
    p.functions.push_back(f);
    f.name = "init";
    f.kind = "function";
    f.metrics.clear();
    f.metrics["time"] = writer_metric("mean", {{1.0, 2.0}}); // 1.5
    p.functions.push_back(f);

    const auto j = nlohmann::json::parse(find("hatchet")->write_profile(p, "p.json"));
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 2u); // roots main and init
    const auto& main = j[0];
    EXPECT_EQ(main["frame"], (nlohmann::json{{"name", "main"}, {"type", "function"}}));
    EXPECT_EQ(main["metrics"], (nlohmann::json{{"flops", 0.0}, {"time", 5.5}}));
    const auto& solve = main["children"][0]; // on the path only: every metric, 0
    EXPECT_EQ(solve["frame"]["name"], "solve");
    EXPECT_EQ(solve["metrics"], (nlohmann::json{{"flops", 0.0}, {"time", 0.0}}));
    const auto& dot = solve["children"][0];
    EXPECT_EQ(dot["frame"], (nlohmann::json{{"name", "dot"}, {"type", "region"}}));
    EXPECT_EQ(dot["metrics"], (nlohmann::json{{"flops", 40.0}, {"time", 3.0}}));
    EXPECT_FALSE(dot.contains("children"));
    // Hatchet lists the metrics of the last root: it carries all of them.
    EXPECT_EQ(j[1]["metrics"], (nlohmann::json{{"flops", 0.0}, {"time", 1.5}}));
}

} // namespace
} // namespace roofcast::model::formats
