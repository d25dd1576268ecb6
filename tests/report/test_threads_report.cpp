// The threads reporters: JSON in roofcast scale's prediction layout with models and regimes beside, a
// well-formed SVG with one dot per measured point, one ring per size and one dashed line per cache in view,
// and a table that names every model and the best thread count per size.
#include "core/error.hpp"
#include "report/threads_table.hpp"
#include "xml.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace roofcast;
using namespace roofcast::model::threads;
using roofcast::test::parse_xml;

namespace {

ThreadsData synthetic() {
    ThreadsData d;
    d.context.kernel = "norm2";
    d.context.bytes_per_n = 8;
    d.context.caches = {{"L1", 32768.0}, {"L2", 1048576.0}};
    d.context.cores = 2;
    d.context.hw_threads = 2;
    d.context.machine_source = "test";
    roofcast::model::threads::Series s;
    s.api = "omp";
    for (const double n : {1000.0, 2000.0, 3000.0, 8000.0, 20000.0, 60000.0, 200000.0, 400000.0})
        for (int t = 1; t <= 4; ++t) {
            const double v = 1e-6 * t + 1e-9 * n / t + (n > 131072 ? 2e-9 * (n - 131072) : 0.0);
            s.points.push_back({n, t, *core::summarize({v, 1.01 * v, 0.99 * v})});
        }
    s.failures.push_back({5000.0, 3, "exit status 1"});
    s.overhead.push_back({2, *core::summarize({3e-6, 4e-6})});
    d.series.push_back(s);
    return d;
}

} // namespace

TEST(ThreadsReport, JsonHasPredictionsModelsAndBest) {
    const ThreadsAnalysis a = analyse(synthetic(), {{1e5, 3}}, 0);
    const auto j = nlohmann::json::parse(report::threads_json(a));
    EXPECT_EQ(j["format"], "roofcast-threads");
    const auto& s = j["series"][0];
    ASSERT_EQ(s["predictions"].size(), 1u);
    EXPECT_EQ(s["predictions"][0]["x"]["n"], 1e5);
    EXPECT_EQ(s["predictions"][0]["x"]["s"], 3);
    EXPECT_TRUE(s["predictions"][0]["value"].is_number());
    EXPECT_TRUE(s["predictions"][0].contains("lo") && s["predictions"][0].contains("hi"));
    EXPECT_EQ(s["models"].size(), 4u);
    EXPECT_FALSE(s["models"][0]["regimes"].empty());
    EXPECT_EQ(s["best"].size(), 9u); // 8 measured sizes and the predicted one
    EXPECT_EQ(s["measurements"][0]["count"], 3);
    EXPECT_EQ(s["failures"][0]["reason"], "exit status 1");
    // The file reads back to the same measurements.
    const ThreadsData back = data_from_json(j, "t.json");
    EXPECT_EQ(back.series[0].points.size(), 32u);
    ASSERT_EQ(back.series[0].overhead.size(), 1u);
    EXPECT_EQ(back.series[0].overhead[0].s, 2);
    EXPECT_DOUBLE_EQ(back.series[0].overhead[0].seconds.median, 3.5e-6);
}

// What `threads --json` writes is read back whole: the analysis beside the measurements is part of the
// format, so no key of the writer's own output is unknown to the reader.
TEST(ThreadsFile, WrittenFileHasNoUnknownKeysAndKeepsItsHoldout) {
    ThreadsData d = synthetic();
    d.series.push_back(d.series.front());
    d.series.back().api = "pthread";
    const ThreadsAnalysis a = analyse(d, {{1e5, 3}}, 3);
    const auto j = nlohmann::json::parse(report::threads_json(a));
    std::vector<std::string> unread = {"not cleared"};
    const ThreadsData back = data_from_json(j, "t.json", &unread);
    EXPECT_TRUE(unread.empty()) << unread.front();
    EXPECT_EQ(back.holdout, 3);
    EXPECT_EQ(back.series.size(), 2u);
    EXPECT_EQ(back.series[0].failures.size(), 1u);
}

TEST(ThreadsFile, MisspeltKeysAreNamedByTheirPath) {
    auto j = nlohmann::json::parse(report::threads_json(analyse(synthetic(), {}, 0)));
    j["context"]["bandwith_gbs"] = nlohmann::json::array();
    j["series"][0]["measurements"][4]["sample"] = {1.0};
    j["comment"] = "x";
    std::vector<std::string> unread;
    data_from_json(j, "t.json", &unread);
    EXPECT_EQ(unread, (std::vector<std::string>{"comment", "context.bandwith_gbs",
                                                "series[0].measurements[4].sample"}));
}

namespace {

// The field and message of the error that reading `j` gives, or "" when it reads.
std::string read_error(const nlohmann::json& j) {
    try {
        data_from_json(j, "t.json");
    } catch (const core::InputError& e) {
        return e.field() + ": " + e.message();
    }
    return "";
}

} // namespace

TEST(ThreadsFile, ValuesOutsideTheirRangesAreRefusedNamingTheField) {
    const auto good = nlohmann::json::parse(report::threads_json(analyse(synthetic(), {}, 0)));
    ASSERT_EQ(read_error(good), "");
    const auto with = [&](const nlohmann::json::json_pointer& at, const nlohmann::json& v) {
        auto j = good;
        j[at] = v;
        return read_error(j);
    };
    using P = nlohmann::json::json_pointer;
    EXPECT_NE(with(P("/context/cores"), 0).find("context.cores: expected a whole number from 1"),
              std::string::npos);
    EXPECT_NE(with(P("/context/hw_threads"), 1).find("context.hw_threads: expected a whole number from 2"),
              std::string::npos); // fewer hardware threads than cores
    EXPECT_NE(with(P("/context/caches/1/bytes"), 1e300).find("context.caches[1].bytes"), std::string::npos);
    EXPECT_NE(
        with(P("/context/kernel"), "stream").find("context.kernel: expected one of norm2, triad, command"),
        std::string::npos);
    // The api names the chart file of `roofcast report`: nothing but the three names may reach a path.
    EXPECT_NE(
        with(P("/series/0/api"), "../../etc/x").find("series[0].api: expected one of omp, pthread, command"),
        std::string::npos);
    EXPECT_NE(with(P("/series/0/measurements/7/s"), 2.5).find("series[0].measurements[7].s"),
              std::string::npos);
    EXPECT_NE(with(P("/series/0/measurements/2/samples/1"), 1e8).find("series[0].measurements[2].samples[1]"),
              std::string::npos);
    EXPECT_NE(with(P("/series/0/measurements/2/n"), -1).find("series[0].measurements[2].n"),
              std::string::npos);
    EXPECT_NE(with(P("/holdout"), 1).find("holdout: expected 0 or a whole number from 2 to 100"),
              std::string::npos);
    EXPECT_NE(with(P("/format_version"), 2).find("format_version"), std::string::npos);
    auto twice = good;
    twice["series"].push_back(good["series"][0]);
    EXPECT_NE(read_error(twice).find("series[1].api: expected each api once"), std::string::npos);
}

TEST(ThreadsReport, SvgIsWellFormedAndMarksPointsBestAndCaches) {
    const ThreadsAnalysis a = analyse(synthetic(), {}, 0);
    const auto root = parse_xml(report::threads_svg(a, 0));
    EXPECT_EQ(root->name, "svg");
    EXPECT_EQ(root->by_class("measured").size(), 32u);
    EXPECT_EQ(root->by_class("best").size(), 8u);
    EXPECT_EQ(root->by_class("cache").size(), 2u); // L1 (n = 4096) and L2 (n = 131072) are in view
}

TEST(ThreadsReport, TableNamesModelsAndBestThreads) {
    const ThreadsAnalysis a = analyse(synthetic(), {}, 0);
    const std::string t = report::threads_text(a);
    for (const char* want : {"roofcast", "doda", "doda-memory", "pmnf", "best thread count per size",
                             "left out n=5000 s=3: exit status 1", "measured on its own"})
        EXPECT_NE(t.find(want), std::string::npos) << want;
    const std::string html = report::threads_html_page(a);
    EXPECT_NO_THROW(parse_xml(html.substr(html.find("<html"))));
}
