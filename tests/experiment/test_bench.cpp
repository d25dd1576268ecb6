// Unit tests of the bench logic that needs no timing: calibration on synthetic points, the comparison
// of a measured time with the models, the accuracy summary and the mixed family's switch.
#include "core/error.hpp"
#include "experiment/bench.hpp"
#include "model/calibration.hpp"
#include "model/overlap.hpp"

#include <cmath>

#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::model;

namespace {

core::Summary summary_of(std::vector<double> samples) {
    return *core::summarize(std::move(samples));
}

core::Prediction pred(const std::string& model, double err, bool valid,
                      const std::string& bottleneck = "MEM") {
    core::Prediction p;
    p.model = model;
    p.seconds_per_iteration = 1e-9;
    p.error_pct = err;
    p.valid = valid;
    p.bottleneck = bottleneck;
    return p;
}

std::vector<CalibrationPoint> synthetic_points() {
    // Requested bytes per flop of the nine calibration loops.
    const std::vector<double> bpf{12, 6, 4, 3, 2, 24.0 / 18, 1, 24.0 / 36, 0.5};
    // MEM: a plateau near 20 GB/s for five points, then falling as compute takes over.
    const std::vector<double> mem_gbs{20.0, 20.4, 19.8, 20.2, 19.9, 15, 11, 8, 6};
    const std::vector<double> mem_gf{1.3, 2.6, 3.7, 5.1, 7.5, 8.4, 8.3, 9.0, 9.0};
    // L2: a plateau near 100 GB/s; the fifth point is on the plateau but compute-bound (35.6 >= 0.8 * 40).
    const std::vector<double> l2_gbs{100, 101, 99, 100, 95, 80, 60, 40, 20};
    const std::vector<double> l2_gf{6.25, 12.6, 18.6, 25.0, 35.6, 30.0, 33.0, 38.0, 40.0};
    std::vector<CalibrationPoint> pts;
    for (std::size_t i = 0; i < bpf.size(); ++i)
        pts.push_back({"MEM", "m" + std::to_string(i), bpf[i], mem_gbs[i], mem_gf[i]});
    for (std::size_t i = 0; i < bpf.size(); ++i)
        pts.push_back({"L2", "c" + std::to_string(i), bpf[i], l2_gbs[i], l2_gf[i]});
    return pts;
}

} // namespace

TEST(Calibration, ExcludesComputeBoundAndOffPlateauPoints) {
    const Calibration c = calibrate(synthetic_points());
    // P_eff: lowest bytes/flop point of each level (MEM 9.0, L2 40.0) -> the best, 40 (kernel c8).
    ASSERT_TRUE(c.effective_gflops);
    EXPECT_DOUBLE_EQ(*c.effective_gflops, 40.0);
    EXPECT_EQ(c.effective_gflops_kernel, "c8");
    ASSERT_EQ(c.levels.size(), 2u);
    // MEM: best 20.4, plateau >= 18.36; flop rates all < 32 -> m0..m4 used: (20+20.4+19.8+20.2+19.9)/5
    // = 20.06.
    EXPECT_EQ(c.levels[0].level, "MEM");
    EXPECT_NEAR(*c.levels[0].effective_gbs, 20.06, 1e-12);
    EXPECT_EQ(c.levels[0].used, (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4"}));
    // L2: best 101, plateau >= 90.9; c4 (95 GB/s) is compute-bound (35.6 >= 32); c5..c8 off the plateau
    // -> c0..c3: (100+101+99+100)/4 = 100.
    EXPECT_EQ(c.levels[1].level, "L2");
    EXPECT_NEAR(*c.levels[1].effective_gbs, 100.0, 1e-12);
    EXPECT_EQ(c.levels[1].used, (std::vector<std::string>{"c0", "c1", "c2", "c3"}));
    EXPECT_EQ(c.levels[1].excluded, (std::vector<std::string>{"c4", "c5", "c6", "c7", "c8"}));
}

TEST(Calibration, PlateauIgnoresComputeBoundOutlier) {
    // P_eff = 10 (lowest bytes/flop point). Point "x" is compute-bound (9 >= 8) and has an outlying
    // 90 GB/s; the plateau is set by the others (best 50): "a" 50 and "b" 47 (>= 45) are used,
    // "c" 30 is off the plateau -> (50 + 47) / 2 = 48.5.
    std::vector<CalibrationPoint> pts{
        {"L3", "a", 12, 50, 2}, {"L3", "b", 6, 47, 4}, {"L3", "x", 3, 90, 9}, {"L3", "c", 0.5, 30, 10}};
    const Calibration c = calibrate(pts);
    EXPECT_DOUBLE_EQ(*c.effective_gflops, 10.0);
    EXPECT_DOUBLE_EQ(*c.levels[0].effective_gbs, 48.5);
    EXPECT_EQ(c.levels[0].excluded, (std::vector<std::string>{"x", "c"}));
}

TEST(Calibration, AllComputeBoundLeavesNoBandwidth) {
    // Every point runs at P_eff: nothing is bandwidth-bound, so no effective bandwidth is claimed.
    std::vector<CalibrationPoint> pts{{"L2", "a", 12, 50, 10}, {"L2", "b", 0.5, 50, 10}};
    const Calibration c = calibrate(pts);
    EXPECT_DOUBLE_EQ(*c.effective_gflops, 10.0);
    EXPECT_FALSE(c.levels[0].effective_gbs.has_value());
    EXPECT_EQ(c.levels[0].excluded.size(), 2u);
}

TEST(Calibration, AppliesToMachine) {
    core::Machine m;
    m.peak_gflops["double"] = 100;
    m.levels.resize(2);
    m.levels[0].name = "L2";
    m.levels[0].bandwidth_gbs = 150;
    m.levels[1].name = "MEM"; // no roof yet: the calibrated figure becomes the roof too
    apply_calibration(m, calibrate(synthetic_points()), "m.yaml");
    EXPECT_NEAR(*m.levels[0].effective_bandwidth_gbs, 100.0, 1e-12);
    EXPECT_DOUBLE_EQ(*m.levels[0].bandwidth_gbs, 150.0);
    EXPECT_NEAR(*m.levels[1].effective_bandwidth_gbs, 20.06, 1e-12);
    EXPECT_NEAR(*m.levels[1].bandwidth_gbs, 20.06, 1e-12);
    // Each effective figure keeps its 95 % half-width from the loops averaged.
    const Calibration synthetic = calibrate(synthetic_points());
    ASSERT_EQ(synthetic.levels.size(), 2u);
    for (const auto& lc : synthetic.levels)
        EXPECT_EQ(m.level(lc.level)->effective_bandwidth_half_width_gbs, lc.effective_gbs_half_width)
            << lc.level;
    EXPECT_TRUE(m.level("MEM")->effective_bandwidth_half_width_gbs); // five loops on its plateau
    EXPECT_EQ(m.levels[1].source, core::Provenance::calibrated);
    EXPECT_DOUBLE_EQ(m.effective_gflops.at("double"), 40.0);

    // On fewer threads than the machine has cores, P_eff is no whole-machine figure: not written.
    core::Machine four = m;
    four.effective_gflops.clear();
    four.topology = core::Topology{};
    four.topology->cores = 4;
    Calibration one_thread = calibrate(synthetic_points());
    one_thread.threads = 1;
    apply_calibration(four, one_thread, "m.yaml");
    EXPECT_FALSE(four.effective_gflops.count("double"));
    EXPECT_NEAR(*four.levels[0].effective_bandwidth_gbs, 100.0, 1e-12);

    core::Machine no_l2;
    no_l2.levels.resize(1);
    no_l2.levels[0].name = "MEM";
    try {
        apply_calibration(no_l2, calibrate(synthetic_points()), "m.yaml");
        FAIL() << "expected InputError";
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.file(), "m.yaml");
        EXPECT_NE(std::string(e.what()).find("L2"), std::string::npos);
    }
}

TEST(Overlap, NormBetweenSumAndMax) {
    EXPECT_DOUBLE_EQ(overlap_norm({3, 4}, std::nullopt), 4.0); // complete overlap: max
    EXPECT_NEAR(overlap_norm({3, 4}, 2.0), 5.0, 1e-12);        // Euclidean
    EXPECT_NEAR(overlap_norm({2, 2, 1}, 1.0), 5.0, 1e-12);     // no overlap: the sum
    EXPECT_NEAR(overlap_norm({1e300, 1e300}, 8.0), 1e300 * std::pow(2.0, 1.0 / 8), 1e288); // no overflow
    EXPECT_DOUBLE_EQ(overlap_norm({0, 2, 0}, 3.0), 2.0); // zero terms add nothing
    EXPECT_DOUBLE_EQ(overlap_norm({}, 3.0), 0.0);
}

namespace {

// Overlap loops on a calibration with B_MEM = 20, B_L3 = 40 GB/s and P_eff = 100 GFLOP/s: K reuse loads
// from L3, 24 B of memory traffic, 24 + 8K B of L3 traffic, 1 + K flops; times from the p-norm.
Calibration overlap_calibration() {
    Calibration c;
    c.effective_gflops = 100.0;
    c.levels = {{"MEM", 20.0, {}, {}}, {"L3", 40.0, {}, {}}};
    return c;
}
std::vector<OverlapPoint> overlap_loops(std::optional<double> p) {
    std::vector<OverlapPoint> pts;
    for (const int k : {1, 2, 3, 4, 6, 8, 12}) {
        OverlapPoint o;
        o.kernel = "K" + std::to_string(k);
        o.flops = 1.0 + k;
        o.bytes = {{"L1", 16.0 + 8 * k}, {"L3", 24.0 + 8 * k}, {"MEM", 24.0}};
        const std::vector<double> terms{24.0 / 20e9, (24.0 + 8 * k) / 40e9, o.flops / 100e9};
        o.seconds_per_iteration = overlap_norm(terms, p);
        pts.push_back(o);
    }
    return pts;
}

} // namespace

namespace {

// Overlap loops on MEM 20, L3 40 and L2 80 GB/s (P_eff 100 GFLOP/s) whose L2 share varies with K (24 + 16K B
// at L2, 24 + 8K at L3, 24 at MEM), timed as (t_MEM^p + (t_L2^pc + t_L3^pc)^(p/pc) + t_C^p)^(1/p), written
// out here rather than through overlap.hpp.
Calibration three_level_calibration() {
    Calibration c;
    c.effective_gflops = 100.0;
    c.levels = {{"MEM", 20.0, {}, {}}, {"L3", 40.0, {}, {}}, {"L2", 80.0, {}, {}}};
    return c;
}
std::vector<OverlapPoint> three_level_loops(double p, double pc) {
    std::vector<OverlapPoint> pts;
    for (const int k : {1, 2, 3, 4, 6, 8, 12}) {
        OverlapPoint o;
        o.kernel = "K";
        o.kernel += std::to_string(k);
        o.flops = 1.0 + k;
        o.bytes = {{"L2", 24.0 + 16 * k}, {"L3", 24.0 + 8 * k}, {"MEM", 24.0}};
        const double l2 = (24.0 + 16 * k) / 80e9, l3 = (24.0 + 8 * k) / 40e9, mem = 24.0 / 20e9,
                     c = o.flops / 100e9;
        const double caches = std::pow(std::pow(l2, pc) + std::pow(l3, pc), 1 / pc);
        o.seconds_per_iteration = std::pow(std::pow(mem, p) + std::pow(caches, p) + std::pow(c, p), 1 / p);
        pts.push_back(o);
    }
    return pts;
}

} // namespace

TEST(Overlap, CacheExponentRecoveredBesideP) {
    Calibration c = three_level_calibration();
    const auto pts = three_level_loops(6.0, 1.8);
    c.cache_overlap = fit_cache_overlap(pts, c);
    ASSERT_TRUE(c.cache_overlap && c.cache_overlap->exponent);
    EXPECT_NEAR(*c.cache_overlap->exponent, 1.8, 0.01);
    EXPECT_LT(c.cache_overlap->rms_log_error, 1e-3);
    EXPECT_GT(c.cache_overlap->rms_log_error_max, c.cache_overlap->rms_log_error); // one p fits worse
    const auto p = fit_overlap(pts, c); // p refitted with pc in place
    ASSERT_TRUE(p && p->exponent);
    EXPECT_NEAR(*p->exponent, 6.0, 0.1);
    EXPECT_NE(overlap_text(*c.cache_overlap, "pc").find("pc = 1.80"), std::string::npos);
    // Into the machine: pc with its interval, and a later calibration without it removes it.
    core::Machine m;
    m.levels = {core::Level{}, core::Level{}, core::Level{}};
    m.levels[0].name = "L2";
    m.levels[1].name = "L3";
    m.levels[2].name = "MEM";
    c.overlap = p;
    apply_calibration(m, c, "m.yaml");
    ASSERT_TRUE(m.cache_overlap_exponent);
    EXPECT_NEAR(*m.cache_overlap_exponent, 1.8, 0.01);
    // A calibration that fitted no p (no overlap loops in its suite) leaves p and pc as they were.
    Calibration no_overlap = c;
    no_overlap.overlap.reset();
    no_overlap.cache_overlap.reset();
    apply_calibration(m, no_overlap, "m.yaml");
    EXPECT_TRUE(m.cache_overlap_exponent);
    c.cache_overlap->exponent.reset();
    apply_calibration(m, c, "m.yaml");
    EXPECT_FALSE(m.cache_overlap_exponent);
    EXPECT_FALSE(m.cache_overlap_exponent_low);
}

TEST(Overlap, OneExponentForEveryTermKeepsNoCacheExponent) {
    // Times from one p = 3 for every term: pc = p reproduces them, so pc adds nothing and is not kept.
    const Calibration c = three_level_calibration();
    const auto f = fit_cache_overlap(three_level_loops(3.0, 3.0), c);
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->exponent);
    // Loops with one cache level say nothing about pc.
    EXPECT_FALSE(fit_cache_overlap(overlap_loops(2.0), overlap_calibration()));
}

TEST(Overlap, FitRecoversTheExponent) {
    for (const double p : {1.0, 1.7, 3.0, 6.0}) {
        const auto f = fit_overlap(overlap_loops(p), overlap_calibration());
        ASSERT_TRUE(f && f->exponent) << p;
        EXPECT_NEAR(*f->exponent, p, 1e-3 * p);
        EXPECT_LT(f->rms_log_error, 1e-4);
        EXPECT_GT(f->rms_log_error_max, 1e-3); // the max misses these times
        EXPECT_EQ(f->used.size(), 7u);
    }
}

TEST(Overlap, CompleteOverlapLeavesNoExponent) {
    const auto f = fit_overlap(overlap_loops(std::nullopt), overlap_calibration());
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->exponent);
    EXPECT_LT(f->rms_log_error_max, 1e-12);
}

TEST(Overlap, FitThroughCalibrateAndIntoTheMachine) {
    // calibrate() fits the overlap loops on its own effective figures: MEM 20.06, L2 100, P_eff 40 from
    // the synthetic points; loops of L2 reuse generated with p = 2.5 on those figures.
    const Calibration base = calibrate(synthetic_points());
    std::vector<OverlapPoint> pts;
    for (const int k : {1, 2, 4, 8}) {
        OverlapPoint o{"K" + std::to_string(k), 0, 1.0 + k, {{"L2", 24.0 + 8 * k}, {"MEM", 24.0}}};
        o.seconds_per_iteration = overlap_norm(
            {24.0 / (*base.levels[0].effective_gbs * 1e9), (24.0 + 8 * k) / 100e9, o.flops / 40e9}, 2.5);
        pts.push_back(o);
    }
    const Calibration c = calibrate(synthetic_points(), pts);
    ASSERT_TRUE(c.overlap && c.overlap->exponent);
    EXPECT_NEAR(*c.overlap->exponent, 2.5, 2.5e-3);
    core::Machine m;
    m.levels.resize(2);
    m.levels[0].name = "L2";
    m.levels[1].name = "MEM";
    apply_calibration(m, c, "m.yaml");
    ASSERT_TRUE(m.overlap_exponent);
    EXPECT_NEAR(*m.overlap_exponent, 2.5, 2.5e-3);
    // The fit's interval goes into the machine file with it.
    ASSERT_TRUE(c.overlap->interval_known);
    EXPECT_EQ(m.overlap_exponent_low, c.overlap->exponent_low);
    EXPECT_EQ(m.overlap_exponent_high, c.overlap->exponent_high);
    ASSERT_TRUE(m.overlap_exponent_low);
    EXPECT_LE(*m.overlap_exponent_low, *m.overlap_exponent);
    // Without overlap loops nothing is fitted and an entered exponent stays.
    m.overlap_exponent = 4.0;
    apply_calibration(m, calibrate(synthetic_points()), "m.yaml");
    EXPECT_DOUBLE_EQ(*m.overlap_exponent, 4.0);
    // Points whose terms are all unknown (no calibrated level, no P_eff) give no fit.
    EXPECT_FALSE(fit_overlap(pts, Calibration{}));
}

TEST(Overlap, MixedTimeCombinesTheDataFirstWhenItHasQ) {
    // Without q the arithmetic joins the data terms' p-norm; with q the data combine first.
    EXPECT_DOUBLE_EQ(mixed_time({3, 4}, 0, 2.0, std::nullopt), 5.0);
    EXPECT_NEAR(mixed_time({3, 4}, 12, 2.0, std::nullopt), 13.0, 1e-12);
    EXPECT_NEAR(mixed_time({3, 4}, 12, 2.0, 1.0), 17.0, 1e-12); // q = 1: the arithmetic adds to t_data = 5
    EXPECT_NEAR(mixed_time({3, 4}, 2, std::nullopt, 1.0), 6.0, 1e-12); // p = max: t_data = 4
}

TEST(Overlap, ComputeExponentFitRecoversQGivenP) {
    // Loops with arithmetic (3K multiply-adds: 1 + 7K flops) on the calibration above, generated with
    // p = 2 for the data and q for the arithmetic against them; the loops without arithmetic fix p.
    for (const double q : {1.0, 1.4, 2.5}) {
        std::vector<OverlapPoint> pts = overlap_loops(2.0);
        for (const int k : {1, 2, 3, 4, 6, 8, 12}) {
            OverlapPoint o;
            o.kernel = "K" + std::to_string(k) + "F";
            o.flops = 1.0 + 7.0 * k;
            o.bytes = {{"L1", 16.0 + 8 * k}, {"L3", 24.0 + 8 * k}, {"MEM", 24.0}};
            o.with_compute = true;
            o.seconds_per_iteration =
                mixed_time({24.0 / 20e9, (24.0 + 8 * k) / 40e9}, o.flops / 100e9, 2.0, q);
            pts.push_back(o);
        }
        Calibration c = overlap_calibration();
        c.overlap = fit_overlap(pts, c);
        ASSERT_TRUE(c.overlap && c.overlap->exponent);
        EXPECT_EQ(c.overlap->used.size(), 7u); // only the loops without arithmetic
        EXPECT_NEAR(*c.overlap->exponent, 2.0, 2e-3);
        const auto f = fit_compute_overlap(pts, c);
        ASSERT_TRUE(f && f->exponent) << q;
        EXPECT_NEAR(*f->exponent, q, 1e-3 * q);
        EXPECT_EQ(f->used.size(), 7u);
        EXPECT_GT(f->rms_log_error_max, 1e-3); // hiding the arithmetic completely misses these times
        // Into the machine file, and the mixed model then combines the same way.
        core::Machine m;
        m.levels.resize(2);
        m.levels[0].name = "L3";
        m.levels[1].name = "MEM";
        c.compute_overlap = f;
        apply_calibration(m, c, "m.yaml");
        ASSERT_TRUE(m.compute_overlap_exponent);
        EXPECT_NEAR(*m.compute_overlap_exponent, q, 1e-3 * q);
    }
    // No loop with arithmetic: no q.
    Calibration c = overlap_calibration();
    c.overlap = fit_overlap(overlap_loops(2.0), c);
    EXPECT_FALSE(fit_compute_overlap(overlap_loops(2.0), c));
}

TEST(BenchCompare, ErrorOfEveryModelFromTheMedianTime) {
    core::Machine m;
    m.name = "test";
    m.peak_gflops["double"] = 100;
    m.levels.resize(3);
    m.levels[0].name = "L1";
    m.levels[0].bandwidth_gbs = 400;
    m.levels[1].name = "L2";
    m.levels[1].bandwidth_gbs = 100;
    m.levels[2].name = "MEM";
    m.levels[2].bandwidth_gbs = 20;
    KernelSpec k;
    k.name = "triad-like";
    k.flops_per_iteration = 2;
    k.iterations = 1e6;
    k.explicit_bytes = {{"L1", 24}, {"L2", 32}, {"MEM", 32}};
    // 1e6 iterations in a median 2 ms: 2 ns per iteration, 1.0 GFLOP/s, 32 B / 2 ns = 16 GB/s from MEM;
    // best epoch 1.9 ms: 1.9 ns per iteration.
    const core::KernelResult r = compare_kernel(k, "stream", 1, summary_of({2.0e-3, 2.1e-3, 1.9e-3}), m);
    EXPECT_NEAR(r.measured_gflops->median, 1.0, 1e-9);
    EXPECT_NEAR(r.measured_gbs->median, 16.0, 1e-9);
    EXPECT_DOUBLE_EQ(r.bytes_per_iteration.at("MEM"), 32.0);
    ASSERT_FALSE(r.predictions.empty());
    for (const auto& p : r.predictions) {
        if (p.model != "roofline" && p.model != "hierarchical")
            continue;
        // Both: t = max(2 flops / 100 GFLOP/s = 0.02 ns, 32 B / 20 GB/s = 1.6 ns, L1 0.06 ns, L2 0.32 ns)
        // = 1.6 ns -> 1.25 GFLOP/s; against the best epoch (1.9 ns, 2/1.9 = 1.0526 GFLOP/s):
        // error = 1.9 / 1.6 - 1 = +18.75 %.
        EXPECT_NEAR(p.seconds_per_iteration, 1.6e-9, 1e-15) << p.model;
        ASSERT_TRUE(p.error_pct) << p.model;
        EXPECT_NEAR(*p.error_pct, 18.75, 1e-6) << p.model;
    }
}

TEST(BenchAccuracy, ExcludesCalibrationLoopsAndInvalidPredictions) {
    std::vector<core::KernelResult> rs(4);
    rs[0].suite = "calibrate"; // never scored, however wrong
    rs[0].predictions = {pred("roofline", 500, true)};
    rs[1].suite = "stream";
    rs[1].predictions = {pred("roofline", 10, true), pred("mixed", 5, true)};
    rs[2].suite = "stream";
    rs[2].predictions = {pred("roofline", -30, true)};
    rs[3].suite = "mixed";
    rs[3].predictions = {pred("mixed", 90, false), pred("roofline", 70, true)};
    const auto acc = accuracy_summary(rs);
    ASSERT_EQ(acc.size(), 4u); // one per model
    // roofline: |10|, |-30|, |70| -> median 30, max 70 (500 of the calibration loop excluded).
    EXPECT_EQ(acc[0].model, "roofline");
    EXPECT_EQ(acc[0].n, 3u);
    EXPECT_DOUBLE_EQ(*acc[0].median_abs_error_pct, 30.0);
    EXPECT_DOUBLE_EQ(*acc[0].max_abs_error_pct, 70.0);
    // mixed: 5 (90 is outside validity).
    EXPECT_EQ(acc[3].model, "mixed");
    EXPECT_EQ(acc[3].n, 1u);
    EXPECT_DOUBLE_EQ(*acc[3].median_abs_error_pct, 5.0);

    // On the mixed family inside the mixed model's validity only rs[3] is a family member, and it is
    // outside validity -> nothing to score.
    EXPECT_EQ(accuracy_on_mixed_valid(rs)[0].n, 0u);
    rs[3].predictions[0].valid = true;
    const auto fam = accuracy_on_mixed_valid(rs);
    EXPECT_EQ(fam[0].n, 1u); // roofline on the same member: 70
    EXPECT_DOUBLE_EQ(*fam[0].max_abs_error_pct, 70.0);
    EXPECT_DOUBLE_EQ(*fam[3].max_abs_error_pct, 90.0);
}

// Per-round verdicts (issue 22 §4): each kernel's median per-round fraction f of its bound is an error of
// |1/f - 1|, counted under the model whose prediction is its bound (the first valid of mixed, hierarchical,
// cache-aware, roofline); a kernel without rounds is not counted.
TEST(BenchAccuracy, PerRoundErrorsFromTheMedianRoundFraction) {
    std::vector<core::KernelResult> rs(4);
    for (auto& r : rs)
        r.suite = "stream";
    rs[0].predictions = {pred("roofline", 10, true), pred("mixed", 5, true)};
    rs[0].bound_fraction_median_round = 0.8; // mixed: 1/0.8 - 1 = 25 %
    rs[1].predictions = {pred("mixed", -5, true)};
    rs[1].bound_fraction_median_round = 1.25; // mixed: |1/1.25 - 1| = 20 %
    rs[2].predictions = {pred("mixed", 5, false), pred("hierarchical", 3, true)};
    rs[2].bound_fraction_median_round = 0.5; // hierarchical bounds it: 100 %
    rs[3].predictions = {pred("mixed", 5, true)};
    const auto acc = accuracy_summary(rs);
    const auto of = [&](const std::string& m) {
        return *std::find_if(acc.begin(), acc.end(), [&](const auto& a) { return a.model == m; });
    };
    EXPECT_EQ(of("mixed").n, 3u);
    EXPECT_EQ(of("mixed").n_round, 2u);
    EXPECT_NEAR(*of("mixed").median_round_abs_error_pct, 22.5, 1e-9);
    EXPECT_NEAR(*of("mixed").max_round_abs_error_pct, 25.0, 1e-9);
    EXPECT_EQ(of("hierarchical").n_round, 1u);
    EXPECT_NEAR(*of("hierarchical").max_round_abs_error_pct, 100.0, 1e-9);
    // roofline is valid on rs[0] but does not bound it: no per-round figure.
    EXPECT_EQ(of("roofline").n_round, 0u);
    EXPECT_FALSE(of("roofline").median_round_abs_error_pct);
}

TEST(BenchSwitch, PredictedAndMeasuredMembers) {
    std::vector<SuiteKernel> ks;
    std::vector<core::KernelResult> rs;
    // Family members with l = n, out of order, plus one with more flops that must be ignored.
    const std::vector<int> ns{3, 2, 5, 4, 2};
    const std::vector<int> levels{0, 0, 0, 0, 1};
    // Time per iteration (ns): n=2 1.0, n=3 1.05 (within 10 %), n=4 1.3 (> 1.1: measured switch), n=5 1.6.
    const std::vector<double> ns_per_it{1.05, 1.0, 1.6, 1.3, 9.0};
    const std::vector<std::string> bottleneck{"L3", "MEM", "L3", "L3", "compute"};
    for (std::size_t i = 0; i < ns.size(); ++i) {
        SuiteKernel k;
        k.name = "3M-" + std::to_string(ns[i]) + "L3-" + std::to_string(levels[i]);
        k.suite = "mixed";
        k.mixed_n = ns[i];
        k.mixed_flop_level = levels[i];
        k.mixed_cache = "L3";
        ks.push_back(k);
        core::KernelResult r;
        r.suite = "mixed";
        r.iterations = 1e6;
        r.measured_seconds = summary_of({ns_per_it[i] * 1e-3});
        r.predictions = {pred("mixed", 0, true, bottleneck[i])};
        rs.push_back(r);
    }
    const FamilySwitch s = family_switch(ks, rs);
    ASSERT_EQ(s.members.size(), 4u);
    EXPECT_EQ(s.neighbours, (std::vector<int>{2, 3, 4, 5}));
    EXPECT_EQ(s.cache, "L3");
    ASSERT_TRUE(s.predicted);
    EXPECT_EQ(*s.predicted, 1u); // n = 3, first cache-level bottleneck
    ASSERT_TRUE(s.measured);
    EXPECT_EQ(*s.measured, 2u); // n = 4
}

TEST(Calibration, EffectiveBandwidthCarriesItsInterval) {
    const Calibration c = calibrate(synthetic_points());
    // MEM used 20, 20.4, 19.8, 20.2, 19.9: mean 20.06, squared deviations sum to 0.232, t(4) = 2.776.
    ASSERT_TRUE(c.levels[0].effective_gbs_half_width);
    EXPECT_NEAR(*c.levels[0].effective_gbs_half_width, 2.776 * std::sqrt(0.232 / 4.0 / 5.0), 1e-9);
    EXPECT_EQ(effective_bandwidth_text(c.levels[0]), "20.06 GB/s ± 0.30 (95 %, 5 loops)");
    LevelCalibration one{"L3", 40.0, {"x"}, {}, std::nullopt};
    EXPECT_EQ(effective_bandwidth_text(one), "40.00 GB/s (from 1 loop: no interval)");
    LevelCalibration wide{"L3", 40.0, {"x", "y"}, {}, 8.0};
    EXPECT_EQ(effective_bandwidth_text(wide), "40.00 GB/s ± 8.00 (95 %, 2 loops) (wide)");
}

TEST(Overlap, IntervalHoldsTheExponentAndNarrowsWithLessNoise) {
    // p = 2 with +-3 % alternating noise on the times: the interval holds 2 and is bounded (the max misses).
    auto noisy = overlap_loops(2.0);
    for (std::size_t i = 0; i < noisy.size(); ++i)
        noisy[i].seconds_per_iteration *= i % 2 ? 1.03 : 0.97;
    const auto f = fit_overlap(noisy, overlap_calibration());
    ASSERT_TRUE(f && f->interval_known && f->exponent_low && f->exponent_high);
    EXPECT_LT(*f->exponent_low, 2.0);
    EXPECT_GT(*f->exponent_high, 2.0);
    const auto exact = fit_overlap(overlap_loops(2.0), overlap_calibration());
    ASSERT_TRUE(exact && exact->exponent_low && exact->exponent_high);
    EXPECT_LT(*exact->exponent_high / *exact->exponent_low, 1.05);
    EXPECT_LT(*exact->exponent_high - *exact->exponent_low, *f->exponent_high - *f->exponent_low);
    EXPECT_EQ(overlap_text(*exact).find("poorly determined"), std::string::npos);
}

TEST(Overlap, LoopsDominatedByOneTermLeaveTheExponentUnbounded) {
    // Memory at 0.2 GB/s: its term is 100x the others, so any p from the sum to the max fits within the
    // noise.
    Calibration c = overlap_calibration();
    c.levels[0].effective_gbs = 0.2;
    auto pts = overlap_loops(2.0);
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double k = pts[i].flops - 1.0;
        const std::vector<double> terms{24.0 / 0.2e9, (24.0 + 8 * k) / 40e9, pts[i].flops / 100e9};
        pts[i].seconds_per_iteration = overlap_norm(terms, 2.0) * (i % 2 ? 1.02 : 0.98);
    }
    const auto f = fit_overlap(pts, c);
    ASSERT_TRUE(f && f->interval_known);
    EXPECT_FALSE(f->exponent_high); // unbounded: the max fits as well
    EXPECT_NE(overlap_text(*f).find("unbounded (poorly determined"), std::string::npos);
}
