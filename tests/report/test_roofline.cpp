#include "core/error.hpp"
#include "fixtures.hpp"
#include "report/roofline.hpp"
#include "xml.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

using namespace roofcast;
using report::RooflineView;
using test::parse_xml;

namespace {

std::size_t count_class(const test::XmlNode& root, const std::string& c) {
    return root.by_class(c).size();
}

// How many elements of each class the chart holds, one expectation per class.
void expect_counts(const test::XmlNode& root,
                   std::initializer_list<std::pair<std::string, std::size_t>> want) {
    for (const auto& [c, n] : want)
        EXPECT_EQ(count_class(root, c), n) << "elements of class " << c;
}

// The texts of the elements of class `c`, each followed by ';'.
std::string texts_of(const test::XmlNode& root, const std::string& c) {
    std::string out;
    for (const auto* l : root.by_class(c))
        out += l->text + ";";
    return out;
}

} // namespace

TEST(Roofs, FixtureTwoThreads) {
    const auto r = report::roofs_for(test::fixture_machine(), 2, "double");
    // Per ISA its FMA ceiling (avx512 171, avx2 87.9, scalar 21.9), plus the widest ISA's add+mul (85.1),
    // sorted down; then the theoretical peak 185.6 (> 171 * 1.02 and 2 threads = all cores).
    ASSERT_EQ(r.compute.size(), 5u);
    EXPECT_EQ(r.compute[0].label, "AVX-512 FMA");
    EXPECT_DOUBLE_EQ(r.top(), 171.0);
    EXPECT_EQ(r.compute[1].label, "AVX2 FMA");
    EXPECT_EQ(r.compute[2].label, "AVX-512 add+mul (no FMA)");
    EXPECT_DOUBLE_EQ(r.compute[2].gflops, 85.1);
    EXPECT_EQ(r.compute[3].label, "scalar FMA");
    EXPECT_TRUE(r.compute[4].theoretical);
    EXPECT_DOUBLE_EQ(r.compute[4].gflops, 185.6);
    // Memory roofs: the bandwidths the models choose at 2 threads (model::choose_bandwidth).
    ASSERT_EQ(r.memory.size(), 4u);
    EXPECT_DOUBLE_EQ(r.memory[0].gbs, 370.0);
    EXPECT_EQ(r.memory[0].source, "measured load, 2 threads");
    EXPECT_DOUBLE_EQ(r.memory[3].gbs, 17.8);
    EXPECT_EQ(r.memory[3].source, "measured triad, 2 threads");
    // Ridge I* = P / B: 171 / 17.8 = 9.6067... and 171 / 370 = 0.46216...
    EXPECT_NEAR(r.memory[3].ridge, 9.60674, 1e-5);
    EXPECT_NEAR(r.memory[0].ridge, 0.462162, 1e-6);
    EXPECT_TRUE(r.notes.empty());
}

TEST(Roofs, OneThreadHasNoTheoreticalPeakAndOtherCountsFallBack) {
    const auto one = report::roofs_for(test::fixture_machine(), 1, "double");
    // 1 of 2 cores: the all-core theoretical peak is not comparable, so only the 4 measured ceilings.
    EXPECT_EQ(one.compute.size(), 4u);
    EXPECT_DOUBLE_EQ(one.top(), 86.5);
    EXPECT_DOUBLE_EQ(one.memory[3].gbs, 14.2);
    // 4 threads: nearest measured ceilings are the 2-thread ones (noted); no 4-thread bandwidths, so each
    // level's bandwidth_gbs (the 1-thread medians in the fixture).
    const auto four = report::roofs_for(test::fixture_machine(), 4, "double");
    EXPECT_DOUBLE_EQ(four.top(), 171.0);
    ASSERT_FALSE(four.notes.empty());
    EXPECT_NE(four.notes[0].find("using those with 2"), std::string::npos);
    EXPECT_DOUBLE_EQ(four.memory[0].gbs, 188.0);
    EXPECT_EQ(four.memory[0].source, "measured load");
}

TEST(Roofs, HandWrittenMachineUsesEffectivePeak) {
    const auto m = core::machine_from_yaml(core::YamlField::load_text(
        "format_version: 1\nname: paper\ncompute: {peak_gflops: {double: 128}, effective_gflops: {double: "
        "112.6}}\n"
        "levels:\n  - {name: L1, bandwidth_gbs: 512}\n  - {name: MEM, bandwidth_gbs: 46}\n",
        "m.yaml"));
    const auto r = report::roofs_for(m, 1, "double");
    ASSERT_EQ(r.compute.size(), 1u);
    EXPECT_DOUBLE_EQ(r.top(), 112.6);
    EXPECT_EQ(r.compute[0].label, "effective peak");
    EXPECT_NEAR(r.memory[1].ridge, 112.6 / 46, 1e-12);
    EXPECT_THROW(report::roofs_for(m, 1, "single"), core::InputError); // no single-precision peak
}

TEST(RooflineChart, ClassicFixtureStructure) {
    const auto doc = report::roofline_chart(test::fixture_results(), RooflineView::classic, "roofline",
                                            report::KernelSet::all);
    const auto root = parse_xml(doc.standalone());
    // Six kernels; stream_copy has 0 FLOP per iteration (intensity 0) and is omitted with a note. Four models
    // for each of the five placed kernels, one of them invalid (dgemm_blocked with the mixed model).
    expect_counts(*root, {{"dot", 5},
                          {"prediction", 20},
                          {"invalid", 1},
                          {"roof-memory", 4},
                          {"roof-compute", 4},
                          {"roof-theoretical", 1},
                          {"ridge", 4},
                          {"kernel-label", 5}});
    // daxpy_l2 has no MEM traffic: placed at its L2 intensity, and its label says so.
    std::string labels;
    for (const auto* l : root->by_class("kernel-label"))
        labels += l->text + ";";
    EXPECT_NE(labels.find("daxpy_l2 (L2);"), std::string::npos);
    EXPECT_NE(labels.find("stream_triad;"), std::string::npos);
    ASSERT_EQ(doc.notes().size(), 1u);
    EXPECT_NE(doc.notes()[0].find("stream_copy"), std::string::npos);
    // Each dot carries a tooltip with the kernel's numbers.
    for (const auto* dot : root->by_class("dot")) {
        const auto titles = dot->by_name("title");
        ASSERT_EQ(titles.size(), 1u);
        EXPECT_NE(titles[0]->text.find("measured"), std::string::npos);
        EXPECT_NE(titles[0]->text.find("FLOP/byte"), std::string::npos);
    }
    // stream_triad: I_MEM = 2 FLOP / 32 B = 0.0625, measured 1.05 GFLOP/s.
    const std::string tip = root->by_class("dot")[0]->by_name("title")[0]->text;
    EXPECT_NE(tip.find("stream_triad"), std::string::npos);
    EXPECT_NE(tip.find("I(MEM) = 0.0625"), std::string::npos);
    EXPECT_NE(tip.find("1.05 GFLOP/s"), std::string::npos);
}

TEST(RooflineChart, HierarchicalJoinsOneDotPerLevel) {
    const auto doc = report::roofline_chart(test::fixture_results(), RooflineView::hierarchical, "roofline",
                                            report::KernelSet::all);
    const auto root = parse_xml(doc.standalone());
    // Levels with traffic: triad 4, daxpy_l2 2 (L1, L2), dot 4, stencil 4, dgemm 4 = 18 dots; copy omitted.
    expect_counts(*root, {{"dot", 18}, {"kernel-line", 5}, {"prediction", 0}});
    // daxpy_l2's line joins I_L1 = I_L2 = 2/24: two points.
    const auto lines = root->by_class("kernel-line");
    EXPECT_EQ(lines[1]->attr("points").find(' ') != std::string::npos, true);
}

TEST(RooflineChart, CalibrationLoopsHaveTheirOwnChart) {
    // daxpy_l2 is the fixture's calibration loop: left out of the default chart (with a note saying
    // where it is), alone in the calibration chart.
    const auto results = test::fixture_results();
    const auto main_doc = report::roofline_chart(results, RooflineView::classic);
    const auto main_root = parse_xml(main_doc.standalone());
    EXPECT_EQ(count_class(*main_root, "dot"), 4u);
    EXPECT_EQ(count_class(*main_root, "prediction"), 16u);
    const auto& notes = main_doc.notes();
    EXPECT_NE(std::find_if(notes.begin(), notes.end(),
                           [](const std::string& n) { return n.find("1 calibration loop not drawn") == 0; }),
              notes.end());
    const auto calib = parse_xml(
        report::roofline_chart(results, RooflineView::classic, "c", report::KernelSet::calibration_only)
            .standalone());
    EXPECT_EQ(count_class(*calib, "dot"), 1u);
    std::string labels;
    for (const auto* l : calib->by_class("kernel-label"))
        labels += l->text + ";";
    EXPECT_EQ(labels, "daxpy_l2 (L2);");
}

TEST(RooflineChart, MachineOnlyHasRoofsAndNoDots) {
    const auto root = parse_xml(report::roofline_chart(test::fixture_machine()).standalone());
    EXPECT_EQ(count_class(*root, "dot"), 0u);
    EXPECT_EQ(count_class(*root, "roof-memory"), 4u);
    EXPECT_EQ(count_class(*root, "ridge"), 4u);
}

TEST(RooflineChart, UnplaceableValuesAreNotedNeverBroken) {
    core::Results r;
    r.machine = test::fixture_machine();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto kernel = [](const std::string& name, double flops, double mem_bytes, double measured) {
        core::KernelResult k;
        k.name = name;
        k.threads = 2;
        k.flops_per_iteration = flops;
        k.bytes_per_iteration = {{"MEM", mem_bytes}};
        core::Summary s;
        s.median = measured;
        s.n = 1;
        k.measured_gflops = s;
        return k;
    };
    r.kernels.push_back(kernel("zero_perf", 2, 16, 0));  // measured 0: dot omitted
    r.kernels.push_back(kernel("neg_flops", -1, 16, 3)); // negative intensity: omitted
    r.kernels.push_back(kernel("nan_perf", 2, 16, nan)); // NaN: omitted
    r.kernels.push_back(kernel("no_bytes", 2, 0, 5));    // no traffic: no intensity
    r.kernels.push_back(kernel("fine <&>", 2, 16, 2.0)); // placed, name escaped
    core::Prediction p;
    p.model = "roofline";
    p.gflops = nan;
    p.bottleneck = "MEM";
    r.kernels.back().predictions.push_back(p); // NaN prediction: omitted, noted
    for (auto view : {RooflineView::classic, RooflineView::hierarchical}) {
        const auto doc = report::roofline_chart(r, view);
        const auto root = parse_xml(doc.standalone());
        EXPECT_EQ(count_class(*root, "dot"), 1u);
        EXPECT_GE(doc.notes().size(), 4u);
        EXPECT_EQ(root->by_class("note").size(), doc.notes().size());
        EXPECT_NE(root->by_class("kernel-label")[0]->text.find("fine <&>"), std::string::npos);
    }
}

TEST(RooflineChart, EmptyResultsGiveRoofsAndANote) {
    core::Results r;
    r.machine = test::fixture_machine();
    const auto doc = report::roofline_chart(r, RooflineView::classic);
    const auto root = parse_xml(doc.standalone());
    EXPECT_EQ(count_class(*root, "dot"), 0u);
    EXPECT_EQ(count_class(*root, "roof-memory"), 4u);
    ASSERT_EQ(doc.notes().size(), 1u);
    EXPECT_NE(doc.notes()[0].find("no kernels"), std::string::npos);
}

TEST(RooflineChart, ResultsWithoutMachineIsAnInputError) {
    core::Results r;
    EXPECT_THROW(report::roofline_chart(r, RooflineView::classic), core::InputError);
}

TEST(RooflineChart, ClassicLevelFallsBackToOutermostCacheWithTraffic) {
    const auto m = test::fixture_machine();
    core::KernelResult k;
    k.bytes_per_iteration = {{"L1", 24}, {"L2", 24}, {"MEM", 0}};
    EXPECT_EQ(report::classic_level(k, m), "L2");
    k.bytes_per_iteration["MEM"] = 8;
    EXPECT_EQ(report::classic_level(k, m), "MEM");
    k.bytes_per_iteration.clear();
    EXPECT_EQ(report::classic_level(k, m), "");
}

TEST(RooflineChart, FullSuiteDrawsSeriesAndLabelsEachNamedKernel) {
    // 84 kernels of a real `roofcast run`: the legend lists series, not kernels; the
    // mixed family has one label; every other drawn kernel has its name next to its dot or a number whose
    // name the legend lists; the chart fits a 1200 × 850 window.
    const auto results = core::load_results(test::fixture("full-suite.json"));
    ASSERT_EQ(results.kernels.size(), 84u);
    for (const auto view : {RooflineView::classic, RooflineView::hierarchical}) {
        const auto doc = report::roofline_chart(results, view);
        EXPECT_LE(doc.width(), 1200);
        EXPECT_LE(doc.height(), 850);
        const auto root = parse_xml(doc.standalone());
        const std::string labels = texts_of(*root, "kernel-label");
        const std::string legend = texts_of(*root, "legend-label");
        EXPECT_LE(root->by_class("legend-label").size(), 20u) << legend;
        EXPECT_EQ(root->by_class("family-label").size(), 1u);
        EXPECT_NE(legend.find("mixed family (30)"), std::string::npos) << legend;
        for (const auto& k : results.kernels) {
            if (k.suite == "mixed" || k.suite == "calibrate" || !(k.flops_per_iteration > 0))
                continue;
            EXPECT_TRUE(labels.find(k.name) != std::string::npos || legend.find(k.name) != std::string::npos)
                << k.name << " has neither a label nor a legend entry";
        }
        EXPECT_EQ(labels.find("calib-"), std::string::npos);
        EXPECT_EQ(labels.find("3M-"), std::string::npos);
    }
}

TEST(RooflineChart, CalibrationSweepsAreSeriesJoinedAndLabelledOnce) {
    // The 41 calibration loops of the full-suite run form five sweeps (calib-MEM, -L3, -L2: flops per
    // iteration rising; calib-overlap-L3 and calib-overlap-flops-L3: overlap count rising). Each sweep is a
    // series of its own (colour
    // and shape in the legend), its members joined by one line, one label each; the loops show the mixed
    // model's prediction only, and the legend lists that model alone.
    const auto results = core::load_results(test::fixture("full-suite.json"));
    std::map<std::string, std::size_t> sweep_members;
    for (const auto& k : results.kernels)
        if (k.suite == "calibrate")
            ++sweep_members[k.name.substr(0, k.name.rfind('-'))];
    ASSERT_EQ(sweep_members.size(), 5u);
    const auto doc =
        report::roofline_chart(results, RooflineView::classic, "c", report::KernelSet::calibration_only);
    EXPECT_LE(doc.width(), 1200);
    EXPECT_LE(doc.height(), 850);
    const auto root = parse_xml(doc.standalone());
    const std::string labels = texts_of(*root, "kernel-label");
    const std::string legend = texts_of(*root, "legend-label");
    EXPECT_EQ(root->by_class("family-label").size(), sweep_members.size()) << labels;
    EXPECT_EQ(root->by_class("family-line").size(), sweep_members.size());
    for (const auto& [sweep, n] : sweep_members) {
        EXPECT_NE(labels.find(sweep + " loops (" + std::to_string(n) + " kernels)"), std::string::npos)
            << labels;
        EXPECT_NE(legend.find(sweep + " loops (" + std::to_string(n) + ")"), std::string::npos) << legend;
    }
    EXPECT_EQ(root->by_class("kernel-label").size(), sweep_members.size()) << labels;
    EXPECT_EQ(count_class(*root, "prediction"), 41u);
    EXPECT_NE(legend.find("mixed (predicted)"), std::string::npos) << legend;
    EXPECT_EQ(legend.find("roofline (predicted)"), std::string::npos) << legend;
    // Five series, five colours.
    std::set<std::string> fills;
    for (const auto* d : root->by_class("dot"))
        fills.insert(d->attr("fill"));
    EXPECT_EQ(fills.size(), sweep_members.size());
}
