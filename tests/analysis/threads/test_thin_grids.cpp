// Grids a user sweeps with a program of their own are often coarse: a few sizes, a few thread counts, on a
// machine whose cores equal its hardware threads. Every grid of at least 2 thread counts and 2 sizes yields
// a model; a regime (or a θ segment, or T_seq's intercept) the points cannot determine is merged into its
// neighbour with a note naming it and why; only a grid that determines no model at all is refused.
#include "analysis/threads/analysis.hpp"
#include "analysis/threads/time_model.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::model::threads;

namespace {

Measurement thin_point(double n, int s, double t) {
    Measurement m;
    m.n = n;
    m.s = s;
    m.seconds = *core::summarize({t});
    return m;
}

// The host of the report: AMD EPYC Zen 3 VM, 2 cores of one hardware thread each, L1d 32 KiB and L2 512 KiB
// per core, 32 MiB of L3 both cores share; 8 bytes per element; memory bandwidth B(s) from a machine file.
Context two_core_host() {
    Context c;
    c.kernel = "command";
    c.bytes_per_n = 8.0;
    c.caches = {{"L1", 32768.0, 1}, {"L2", 524288.0, 1}, {"L3", 32.0 * 1048576.0, 2}};
    c.cores = 2;
    c.hw_threads = 2;
    c.bandwidth_gbs = {{1, 10.0}, {2, 16.0}};
    return c;
}

constexpr double k_last_cache = 4194304.0; // 32 MiB / 8 bytes: where the memory regime starts

// A program's time: 30 µs per thread started, 20 µs of fixed cost shared by the threads, 1 ns per element
// in the caches, the work in ceil(s/2) waves on the 2 hardware threads; beyond the last cache (with
// `memory`) each further element streams its 8 bytes at the host's B(s), as the roofcast model has it.
double program(double n, int s, bool memory = true) {
    const double share = std::ceil(s / 2.0) / s;
    const double bandwidth_gbs = s == 1 ? 10.0 : 16.0;
    const double cached = memory ? std::min(n, k_last_cache) : n;
    const double streamed = memory ? std::max(0.0, n - k_last_cache) * 8.0 / (bandwidth_gbs * 1e9) : 0.0;
    return 3e-5 * s + (2e-5 + 1e-9 * cached) * share + streamed;
}

std::vector<Measurement> grid(const std::vector<double>& sizes, const std::vector<int>& threads,
                              bool memory = true) {
    std::vector<Measurement> pts;
    for (const double n : sizes)
        for (const int s : threads)
            pts.push_back(thin_point(n, s, program(n, s, memory)));
    return pts;
}

// Eight sizes from 1e3 to 8e7, geometric.
std::vector<double> eight_sizes() {
    std::vector<double> out;
    for (int k = 0; k < 8; ++k)
        out.push_back(std::round(1e3 * std::pow(8e4, k / 7.0)));
    return out;
}

bool has_note(const ThreadsModel& m, const std::string& a, const std::string& b = "") {
    return std::any_of(m.notes.begin(), m.notes.end(), [&](const std::string& n) {
        return n.find(a) != std::string::npos && n.find(b) != std::string::npos;
    });
}

std::string all_notes(const ThreadsModel& m) {
    std::string out;
    for (const auto& n : m.notes)
        out += n + "\n";
    return out;
}

double max_rel_error(const ThreadsModel& m, const std::vector<Measurement>& pts) {
    double worst = 0.0;
    for (const auto& p : pts)
        worst = std::max(worst, std::abs(m.evaluate(p.n, p.s) - p.seconds.median) / p.seconds.median);
    return worst;
}

} // namespace

TEST(ThinGrids, TheReportedGridYieldsEveryModel) {
    // Thread counts 1, 2, 4, 6, 8 on 2 hardware threads: every count beyond 2 runs in waves of two, so the
    // threads' share of T_seq, ceil(s/2)/s = 1, ½, ½, ½, ½, is one of the shapes θ's two segments (and the
    // oversubscription step) can take. T_seq's intercept is then not determined apart from θ: it was the
    // tenth parameter of rank nine that refused the whole grid.
    const auto pts = grid(eight_sizes(), {1, 2, 4, 6, 8});
    for (const Kind k : {Kind::roofcast, Kind::doda, Kind::doda_memory}) {
        ThreadsModel m;
        ASSERT_NO_THROW(m = fit_model(k, two_core_host(), pts)) << to_string(k);
        EXPECT_GT(m.coef.size(), 0u);
    }
    const ThreadsModel m = fit_model(Kind::roofcast, two_core_host(), pts);
    EXPECT_TRUE(has_note(m, "T_seq's intercept", "merged into θ(s)")) << all_notes(m);
    EXPECT_TRUE(has_note(m, "1, 2, 4, 6, 8")) << all_notes(m); // the note names the counts it judged
    EXPECT_FALSE(m.tseq_intercept);
    // Nothing the points determine is lost: the fit reproduces them (the program's fixed cost now lies in θ).
    EXPECT_LT(max_rel_error(m, pts), 1e-6) << all_notes(m);
    // The call with no work is still θ(s) + T_seq(0)·share(s), the sum the fit determines: 30 µs·s + 20
    // µs·share.
    EXPECT_NEAR(m.fixed_cost(1), 3e-5 + 2e-5, 1e-9);
    EXPECT_NEAR(m.fixed_cost(4), 4 * 3e-5 + 2e-5 / 2, 1e-9);
    // The oversubscription step and the memory regime survive: the merge took only what was undetermined.
    EXPECT_TRUE(m.oversubscription_step);
    EXPECT_TRUE(m.memory_from.has_value());
}

TEST(ThinGrids, TheReportedGridThroughTheAnalysis) {
    ThreadsData d;
    d.context = two_core_host();
    roofcast::model::threads::Series s;
    s.api = "command";
    s.points = grid(eight_sizes(), {1, 2, 4, 6, 8});
    d.series.push_back(s);
    const ThreadsAnalysis a = analyse(d, {{1e6, 4}}, 0);
    ASSERT_EQ(a.series.size(), 1u);
    const auto& models = a.series[0].models;
    ASSERT_EQ(models.size(), 4u); // roofcast, doda, doda-memory, pmnf: none left out
    EXPECT_EQ(models[0].name, "roofcast");
    EXPECT_NEAR(models[0].predictions.at(0).value, program(1e6, 4), 1e-6 * program(1e6, 4));
}

TEST(ThinGrids, ThreeSizesAndTwoThreadCounts) {
    // The smallest grid the models promise: 3 sizes × 2 thread counts. Two counts cannot tell θ's slope
    // from T_seq's intercept (1, s and share(s) on two points), and 3 sizes leave most regimes with one size.
    const auto pts = grid({1e3, 1e5, 1e7}, {1, 2}, false);
    for (const Kind k : {Kind::roofcast, Kind::doda, Kind::doda_memory}) {
        ThreadsModel m;
        ASSERT_NO_THROW(m = fit_model(k, two_core_host(), pts)) << to_string(k);
        EXPECT_TRUE(has_note(m, "T_seq's intercept", "merged into θ(s)")) << to_string(k) << all_notes(m);
        EXPECT_TRUE(has_note(m, "(0 <= n < 4096) has 1 size(s)", "merged into regime"))
            << to_string(k) << all_notes(m);
        EXPECT_LE(m.coef.size(), pts.size()) << to_string(k);
        // What is left is determined: a program of that shape (one time per element whatever the size) is
        // reproduced at every point.
        EXPECT_LT(max_rel_error(m, pts), 1e-6) << to_string(k) << all_notes(m);
    }
    const ThreadsModel m = fit_model(Kind::roofcast, two_core_host(), pts);
    EXPECT_TRUE(has_note(m, "regime MEM", "has 1 size(s) for 2 parameters: merged into regime L3"))
        << all_notes(m);
    EXPECT_NEAR(m.evaluate(1e6, 2), program(1e6, 2, false), 1e-6 * program(1e6, 2, false));
}

TEST(ThinGrids, ThroughTheAnalysisWithTwoThreadCounts) {
    ThreadsData d;
    d.context = two_core_host();
    roofcast::model::threads::Series s;
    s.api = "command";
    s.points = grid({1e3, 1e5, 1e7}, {1, 2});
    d.series.push_back(s);
    ThreadsAnalysis a;
    ASSERT_NO_THROW(a = analyse(d, {}, 0));
    ASSERT_FALSE(a.series[0].models.empty());
    EXPECT_EQ(a.series[0].models[0].name, "roofcast");
}

TEST(ThinGrids, StillRefusedWhereNoModelCanBeDetermined) {
    // One thread count: θ(s) cannot be told from the work at all.
    try {
        fit_model(Kind::roofcast, two_core_host(), grid(eight_sizes(), {2}));
        FAIL() << "one thread count accepted";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("at least 2 distinct thread counts"), std::string::npos)
            << e.what();
    }
    // One size: the time per element cannot be told from the cost of the threads.
    try {
        fit_model(Kind::roofcast, two_core_host(), grid({1e5}, {1, 2, 4, 6, 8}));
        FAIL() << "one size accepted";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("at least 2 distinct sizes"), std::string::npos) << e.what();
    }
}
