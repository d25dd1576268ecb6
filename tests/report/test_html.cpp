#include "core/error.hpp"
#include "core/io.hpp"
#include "fixtures.hpp"
#include "report/html.hpp"
#include "xml.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace roofcast;
using test::parse_xml;

namespace {

const test::XmlNode* by_id(const test::XmlNode& root, const std::string& id) {
    std::vector<const test::XmlNode*> out;
    root.collect([&](const test::XmlNode& n) { return n.attr("id") == id; }, out);
    return out.empty() ? nullptr : out.front();
}

} // namespace

TEST(HtmlReport, FixtureStructure) {
    const std::string html = report::html_report(test::fixture_results());
    const auto root = parse_xml(html);
    EXPECT_EQ(root->name, "html");
    // Self-contained: one inline script (the suite filter, nothing to fetch), no external stylesheets,
    // images or fonts.
    const auto scripts = root->by_name("script");
    ASSERT_EQ(scripts.size(), 1u);
    EXPECT_TRUE(scripts[0]->attr("src").empty());
    EXPECT_NE(scripts[0]->text.find("data-suite"), std::string::npos);
    // One filter checkbox per suite of the fixture (stream, calibrate, apps).
    EXPECT_EQ(by_id(*root, "charts")->by_name("input").size(), 3u);
    EXPECT_TRUE(root->by_name("link").empty());
    EXPECT_TRUE(root->by_name("img").empty());
    EXPECT_EQ(html.find("url(http"), std::string::npos);
    EXPECT_EQ(html.find("src="), std::string::npos);
    // Four inline charts, the calibration loops' collapsed; the classic roofline has one dot per placeable
    // kernel but the calibration loop daxpy_l2 (4 of 6), which is on its own chart.
    EXPECT_EQ(root->by_name("svg").size(), 4u);
    const auto* calibration = by_id(*root, "calibration-chart");
    ASSERT_NE(calibration, nullptr);
    EXPECT_EQ(calibration->name, "details");
    EXPECT_TRUE(calibration->attr("open").empty());
    EXPECT_EQ(by_id(*root, "fig-calibration")->by_class("dot").size(), 1u);
    const auto* roofline = by_id(*root, "fig-roofline");
    ASSERT_NE(roofline, nullptr);
    EXPECT_EQ(roofline->by_class("dot").size(), 4u);
    EXPECT_EQ(roofline->by_class("roof-memory").size(), 4u);
    // Prediction table: one row per kernel; one derivation per kernel.
    const auto* predictions = by_id(*root, "predictions");
    ASSERT_NE(predictions, nullptr);
    EXPECT_EQ(predictions->by_name("table")[0]->by_name("tbody")[0]->by_name("tr").size(), 6u);
    // Full derivations for the application kernels, a compact row each for the calibration loop and STREAM.
    const auto* derivations = by_id(*root, "derivations");
    std::vector<const test::XmlNode*> rows;
    derivations->collect(
        [](const test::XmlNode& n) { return n.name == "tr" && n.attr("id").rfind("k-", 0) == 0; }, rows);
    EXPECT_GE(rows.size(), 1u);
    EXPECT_EQ(derivations->by_name("details").size() + rows.size(), 6u);
    // Warnings, grouped by kind with a count each (collapsed past three): unstable clock, the noisy ceiling,
    // the noisy sweep point, the noisy kernel, and the mixed model outside its validity for dgemm_blocked.
    const std::string warnings = by_id(*root, "warnings")->all_text();
    EXPECT_NE(warnings.find("Unstable clock"), std::string::npos);
    EXPECT_NE(warnings.find("1 compute ceiling above the noise floor of the run"), std::string::npos);
    EXPECT_NE(warnings.find("1 point of the bandwidth sweep"), std::string::npos);
    EXPECT_NE(warnings.find("stencil_3d7pt measured"), std::string::npos);
    EXPECT_NE(warnings.find("Outside model validity: dgemm_blocked with the mixed model"), std::string::npos);
    EXPECT_NE(warnings.find("stream_copy omitted"), std::string::npos);
    std::string groups;
    for (const auto* g : by_id(*root, "warnings")->by_name("summary"))
        groups += g->all_text() + ";";
    EXPECT_NE(groups.find("High spread 3;"), std::string::npos) << groups;
    EXPECT_NE(groups.find("Outside model validity 1;"), std::string::npos) << groups;
    // The headline card counts the warnings proper (the unstable clock, three high spreads, one prediction
    // outside validity) and the notes (here the chart's) beside them.
    std::string card;
    for (const auto* c : by_id(*root, "summary")->by_class("card"))
        if (c->all_text().find("Warnings") != std::string::npos)
            card = c->all_text();
    std::size_t infos = 0;
    for (const auto* li : by_id(*root, "warnings")->by_name("li"))
        infos += li->attr("class") == "info";
    ASSERT_GT(infos, 0u);
    EXPECT_NE(card.find("Warnings5"), std::string::npos) << card;
    EXPECT_NE(card.find(fmt::format("and {} note", infos)), std::string::npos) << card;
    // Headline, charts and tables come before the warnings; the derivations last.
    std::string order;
    for (const auto* sec : root->by_name("section"))
        order += sec->attr("id") + " ";
    EXPECT_EQ(order, "summary charts predictions below-bound machine warnings derivations ");
    // Machine summary: ceilings table has all 18 measured ceilings, the noisy one flagged.
    const auto* machine = by_id(*root, "machine");
    ASSERT_NE(machine, nullptr);
    EXPECT_NE(machine->all_text().find("Xeon"), std::string::npos);
    EXPECT_GE(machine->by_class("noisy").size(), 2u); // clock and the scalar add ceiling
}

TEST(HtmlReport, MachineSummaryShowsTheOverlapExponent) {
    auto r = test::fixture_results();
    ASSERT_TRUE(r.machine);
    EXPECT_EQ(report::html_report(r).find("Mixed-model overlap"), std::string::npos);
    r.machine->overlap_exponent = 3.25;
    const auto root = parse_xml(report::html_report(r));
    const std::string machine = by_id(*root, "machine")->all_text();
    EXPECT_NE(machine.find("Mixed-model overlap"), std::string::npos);
    EXPECT_NE(machine.find("p = 3.25"), std::string::npos);
}

TEST(HtmlReport, MachineSummaryShowsMpiFigures) {
    auto r = test::fixture_results();
    ASSERT_TRUE(r.machine);
    EXPECT_EQ(report::html_report(r).find("MPI point to point"), std::string::npos);
    core::MpiFigures f;
    f.latency_s = *core::summarize({2.5e-6, 2.4e-6, 2.6e-6});
    f.bandwidth_gbs = *core::summarize({9.5, 9.25, 9.75});
    f.alpha_s = 2.0e-6;
    f.beta_gbs = 10.5;
    f.placement = "2 ranks on one node (vm)";
    r.machine->mpi = f;
    const auto root = parse_xml(report::html_report(r));
    const std::string machine = by_id(*root, "machine")->all_text();
    EXPECT_NE(machine.find("MPI point to point"), std::string::npos);
    EXPECT_NE(machine.find("bandwidth 9.50 GB/s"), std::string::npos) << machine;
    EXPECT_NE(machine.find("β = 10.50 GB/s"), std::string::npos) << machine;
    EXPECT_NE(machine.find("2 ranks on one node (vm)"), std::string::npos);
}

TEST(HtmlReport, DerivationNamesTheBoundingLevel) {
    const auto root = parse_xml(report::html_report(test::fixture_results()));
    // daxpy_l2 (a calibration loop: a compact row): I = 2/24 = 0.0833 at L1 and L2; attainable L1
    // 0.0833 * 370 = 30.8, L2 0.0833 * 155 = 12.9 GFLOP/s; the lower, L2, bounds it.
    const auto* d = by_id(*root, "k-daxpy-l2");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->name, "tr");
    EXPECT_NE(d->all_text().find("L2 (12.9 GFLOP/s)"), std::string::npos);
    // dgemm_blocked: L1 I = 2/8 = 0.25, 0.25 * 370 = 92.5 < 171: L1-bound.
    EXPECT_NE(by_id(*root, "k-dgemm-blocked")->all_text().find("L1-bound"), std::string::npos);
    // stream_copy: no FLOPs, said so, and no threshold table; the STREAM kernels take a compact row (the
    // page stays small), the application kernels keep their threshold table.
    const auto threshold_rows = [&](const std::string& id) {
        std::vector<const test::XmlNode*> rows;
        by_id(*root, id)->collect([](const test::XmlNode& n) { return !n.attr("data-level").empty(); }, rows);
        return rows.size();
    };
    EXPECT_NE(by_id(*root, "k-stream-copy")->all_text().find("no arithmetic"), std::string::npos);
    EXPECT_EQ(threshold_rows("k-stream-copy"), 0u);
    EXPECT_EQ(threshold_rows("k-stream-triad"), 0u);
    EXPECT_EQ(threshold_rows("k-stencil-3d7pt"), 4u);
}

// With rounds the accuracy table adds the per-round columns and says what they are; without, it has none.
TEST(HtmlReport, AccuracyTableShowsPerRoundErrorsWhenThereAreRounds) {
    core::Results r = test::fixture_results();
    r.accuracy = {{"mixed", 3, 4.0, 12.0}};
    EXPECT_EQ(report::html_report(r).find("Per round"), std::string::npos);
    r.accuracy = {{"mixed", 3, 4.0, 12.0, 2, 5.5, 9.0}};
    const std::string html = report::html_report(r);
    EXPECT_NE(html.find("<th class=\"n\">Per round: kernels</th>"), std::string::npos);
    EXPECT_NE(html.find("<td class=\"n\">5.5 %</td>"), std::string::npos);
    EXPECT_NE(html.find("the reference probes run beside it"), std::string::npos);
    parse_xml(html); // still well-formed
}

TEST(HtmlReport, EmptyResultsAndMissingMachine) {
    core::Results r;
    EXPECT_THROW(report::html_report(r), core::InputError);
    r.machine = test::fixture_machine();
    const auto root = parse_xml(report::html_report(r));
    EXPECT_NE(by_id(*root, "predictions")->all_text().find("no kernels"), std::string::npos);
    EXPECT_EQ(by_id(*root, "derivations")->by_name("details").size(), 0u);
}

TEST(HtmlReport, WriteReportDirWritesEveryFileThatReloads) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "roofcast-report-test" / "nested";
    fs::remove_all(dir.parent_path());
    const auto results = test::fixture_results();
    report::write_report_dir(dir, results);
    for (const char* f : {"index.html", "roofline.svg", "roofline-hierarchical.svg", "bandwidth.svg",
                          "results.json", "machine.yaml", "roofline-calibration.svg"})
        EXPECT_TRUE(fs::exists(dir / f)) << f;
    int entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++entries;
    EXPECT_EQ(entries, 7); // no temporary files left behind
    EXPECT_EQ(core::load_results((dir / "results.json").string()).kernels.size(), 6u);
    EXPECT_EQ(core::load_machine((dir / "machine.yaml").string()).name, "fixture-icx-2c");
    EXPECT_NO_THROW(parse_xml(core::read_file(dir / "roofline.svg")));
    EXPECT_NO_THROW(parse_xml(core::read_file(dir / "bandwidth.svg")));
    fs::remove_all(dir.parent_path());
    core::Results no_machine;
    EXPECT_THROW(report::write_report_dir(dir, no_machine), core::InputError);
    EXPECT_FALSE(fs::exists(dir));
}

TEST(HtmlReport, HeadlineListsKernelsBelowTheirBoundLowestFirst) {
    // The full-suite run with a diagnosis given to every fifth kernel (fractions falling and rising, so
    // the order is the report's): the summary section lists them lowest fraction first, at most six,
    // each with its causes and the first clause of its evidence; the rest counted.
    auto results = core::load_results(test::fixture("full-suite.json"));
    for (auto& k : results.kernels) { // only the diagnoses given here
        k.diagnosis.clear();
        k.bound_fraction.reset();
    }
    for (std::size_t i = 0; i < results.kernels.size(); i += 5) {
        auto& k = results.kernels[i];
        k.bound_fraction = 0.2 + 0.6 * static_cast<double>((i * 7) % 11) / 11;
        k.diagnosis.push_back({i % 2 ? "in-core" : "stream-capacity", "first clause; the rest", {}, {}});
    }
    std::vector<const core::KernelResult*> below;
    for (const auto& k : results.kernels)
        if (!k.diagnosis.empty())
            below.push_back(&k);
    ASSERT_GT(below.size(), 1u) << "the fixture needs kernels below their bound";
    std::stable_sort(below.begin(), below.end(), [](const auto* a, const auto* b) {
        return a->bound_fraction.value_or(0) < b->bound_fraction.value_or(0);
    });
    const auto root = parse_xml(report::html_report(results));
    const auto* headline = by_id(*by_id(*root, "summary"), "headline-below");
    ASSERT_NE(headline, nullptr);
    const auto items = headline->by_name("li");
    const std::size_t shown = std::min<std::size_t>(6, below.size());
    ASSERT_EQ(items.size(), shown + (below.size() > 6 ? 1 : 0));
    for (std::size_t i = 0; i < shown; ++i) {
        const std::string text = items[i]->all_text();
        ASSERT_FALSE(items[i]->by_name("strong").empty()) << text;
        EXPECT_EQ(items[i]->by_name("strong")[0]->text, below[i]->name) << text;
        EXPECT_NE(text.find(below[i]->diagnosis.front().cause + ": first clause"), std::string::npos) << text;
        EXPECT_EQ(text.find("the rest"), std::string::npos) << text;
    }
    if (below.size() > 6) {
        EXPECT_EQ(items.back()->all_text(), "and " + std::to_string(below.size() - 6) + " more");
    }
}
