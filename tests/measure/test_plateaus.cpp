#include "measure/plateaus.hpp"
#include "measure/working_sets.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::measure;

namespace {

constexpr double k_kib = 1024;
constexpr double k_mib = 1024 * 1024;

// A staircase curve: 400 GB/s up to 48 KiB, 150 up to 2 MiB, 40 up to `l3_edge`, 15 beyond,
// on the sweep sizes roofcast uses (x1.2 from 4 KiB to 1 GiB).
std::vector<std::pair<double, double>> staircase(double l3_edge, double noise = 0) {
    std::vector<std::pair<double, double>> pts;
    unsigned state = 12345;
    for (auto s : sweep_sizes(4096, 1024 * 1024 * 1024, 1.2)) {
        const double x = static_cast<double>(s);
        double bw = x <= 48 * k_kib ? 400 : x <= 2 * k_mib ? 150 : x <= l3_edge ? 40 : 15;
        // Deterministic pseudo-random noise, uniform in [-noise, +noise].
        state = state * 1103515245u + 12345u;
        const double u = static_cast<double>((state >> 8) & 0xffff) / 65535.0;
        pts.emplace_back(x, bw * (1 + noise * (2 * u - 1)));
    }
    return pts;
}

core::Topology fake_topology(std::uint64_t l3_bytes) {
    core::Topology t;
    t.cores = 2;
    t.hw_threads = 2;
    core::CacheInfo l1{"L1", 48 * 1024, 64, 12, 1, 2, std::nullopt, ""};
    core::CacheInfo l2{"L2", 2 * 1024 * 1024, 64, 16, 1, 2, std::nullopt, ""};
    core::CacheInfo l3{"L3", l3_bytes, 64, 20, 2, 1, std::nullopt, ""};
    t.caches = {l1, l2, l3};
    return t;
}

} // namespace

TEST(Plateaus, CleanStaircaseGivesOnePlateauPerLevel) {
    const auto p = find_plateaus(staircase(96 * k_mib));
    ASSERT_EQ(p.size(), 4u);
    EXPECT_DOUBLE_EQ(p[0].gbs, 400);
    EXPECT_DOUBLE_EQ(p[1].gbs, 150);
    EXPECT_DOUBLE_EQ(p[2].gbs, 40);
    EXPECT_DOUBLE_EQ(p[3].gbs, 15);
    // The first plateau starts at the first point (4 KiB) and ends at the last size <= 48 KiB.
    EXPECT_DOUBLE_EQ(p[0].first_bytes, 4096);
    EXPECT_LE(p[0].last_bytes, 48 * k_kib);
    EXPECT_GT(p[1].first_bytes, 48 * k_kib);
}

TEST(Plateaus, NoisyCurveKeepsTheSameLevels) {
    // +-3 % noise stays within the 10 % tolerance: still four plateaus, medians within 3 %.
    const auto p = find_plateaus(staircase(96 * k_mib, 0.03));
    ASSERT_EQ(p.size(), 4u);
    EXPECT_NEAR(p[0].gbs, 400, 12);
    EXPECT_NEAR(p[1].gbs, 150, 4.5);
    EXPECT_NEAR(p[2].gbs, 40, 1.2);
    EXPECT_NEAR(p[3].gbs, 15, 0.45);
}

TEST(Plateaus, SingleOutlierDoesNotSplitAPlateau) {
    std::vector<std::pair<double, double>> pts;
    for (int i = 0; i < 10; ++i)
        pts.emplace_back(4096.0 * (i + 1), i == 5 ? 50.0 : 100.0); // one measurement disturbed
    const auto p = find_plateaus(pts);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_DOUBLE_EQ(p[0].gbs, 100);
}

TEST(Plateaus, CloseLevelsAreSeparated) {
    // 100 and 80 GB/s are 20 % apart, twice the tolerance, even with +-3 % noise (97 vs 82.4).
    std::vector<std::pair<double, double>> pts;
    const double noise[] = {0.03, -0.03, 0.01, -0.02, 0.0, 0.02, -0.01, 0.03};
    for (int i = 0; i < 16; ++i)
        pts.emplace_back(4096.0 * (i + 1), (i < 8 ? 100.0 : 80.0) * (1 + noise[i % 8]));
    const auto p = find_plateaus(pts);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_NEAR(p[0].gbs, 100, 3);
    EXPECT_NEAR(p[1].gbs, 80, 2.4);
    EXPECT_EQ(p[0].last, 7u);
    EXPECT_EQ(p[1].first, 8u);
}

TEST(Plateaus, TransitionPointsBelongToNoPlateau) {
    // 100, 100, 100, 70, 40, 40, 40: the 70 lies between the levels.
    const std::vector<std::pair<double, double>> pts{{1, 100}, {2, 100}, {3, 100}, {4, 70},
                                                     {5, 40},  {6, 40},  {7, 40}};
    PlateauOptions opt;
    opt.smooth = false;
    const auto p = find_plateaus(pts, opt);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].last, 2u);
    EXPECT_EQ(p[1].first, 4u);
    // Last drop: geometric mean of 3 and 5 bytes = sqrt(15).
    EXPECT_DOUBLE_EQ(*last_drop_bytes(p), std::sqrt(15.0));
}

TEST(Plateaus, LastDropNeedsTwoPlateaus) {
    EXPECT_FALSE(last_drop_bytes({}).has_value());
    EXPECT_FALSE(last_drop_bytes(find_plateaus({{1, 10}, {2, 10}, {3, 10}})).has_value());
}

TEST(EffectiveCache, HugeReportedL3IsReplacedByTheMeasuredEdge) {
    // Reported 260 MiB, but bandwidth drops to memory after 96 MiB: the effective size lies between
    // the last sweep point <= 96 MiB and the first one above it (one x1.2 step apart).
    core::Topology t = fake_topology(260 * 1024 * 1024);
    ASSERT_TRUE(apply_effective_llc(t, staircase(96 * k_mib)));
    ASSERT_TRUE(t.caches[2].effective_size_bytes.has_value());
    const double eff = static_cast<double>(*t.caches[2].effective_size_bytes);
    EXPECT_GT(eff, 96 * k_mib / 1.2);
    EXPECT_LT(eff, 96 * k_mib * 1.2);
    EXPECT_EQ(t.caches[2].usable_bytes(), *t.caches[2].effective_size_bytes);
    EXPECT_NE(t.caches[2].note.find("260 MiB"), std::string::npos);
    // The interval is the two sweep points around the edge: one step apart, the edge their geometric mean.
    ASSERT_TRUE(t.caches[2].effective_size_range_bytes.has_value());
    const auto [lo, hi] = *t.caches[2].effective_size_range_bytes;
    EXPECT_LE(static_cast<double>(lo), eff);
    EXPECT_GE(static_cast<double>(hi), eff);
    EXPECT_LE(static_cast<double>(lo), 96.0 * k_mib);
    EXPECT_GT(static_cast<double>(hi), 96.0 * k_mib);
    EXPECT_NEAR(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi)), eff, 1.0);
}

TEST(EffectiveCache, EdgeAboveHalfTheReportedSizeStillReplacesIt) {
    // Reported 260 MiB, drop after 140 MiB: half the reported size (the one-thread level working set)
    // would already be off the cache plateau, so the measured edge is used.
    core::Topology t = fake_topology(260 * 1024 * 1024);
    ASSERT_TRUE(apply_effective_llc(t, staircase(140 * k_mib)));
    const double eff = static_cast<double>(*t.caches[2].effective_size_bytes);
    EXPECT_GT(eff, 140 * k_mib / 1.2);
    EXPECT_LT(eff, 140 * k_mib * 1.2);
    // At the reported size, within the sweep's step, the report stands.
    core::Topology agree = fake_topology(150 * 1024 * 1024);
    EXPECT_FALSE(apply_effective_llc(agree, staircase(140 * k_mib)));
}

TEST(EffectiveCache, EdgeSurvivesNoiseThatSplitsPlateaus) {
    // +-3 % noise plus a memory region with two slightly different levels (15 and 12 GB/s, which
    // plateau detection may split): the edge is still found next to 96 MiB.
    auto pts = staircase(96 * k_mib, 0.03);
    for (auto& [x, bw] : pts)
        if (x > 400 * k_mib)
            bw *= 0.8;
    const auto edge = llc_edge(pts, 2 * k_mib);
    ASSERT_TRUE(edge.has_value());
    EXPECT_GT(edge->bytes, 96 * k_mib / 1.2);
    EXPECT_LT(edge->bytes, 96 * k_mib * 1.2);
}

TEST(EffectiveCache, AgreeingSweepKeepsTheReportedSize) {
    core::Topology t = fake_topology(96 * 1024 * 1024);
    EXPECT_FALSE(apply_effective_llc(t, staircase(96 * k_mib)));
    EXPECT_FALSE(t.caches[2].effective_size_bytes.has_value());
}

TEST(EffectiveCache, DropBelowThePreviousLevelIsNotTrusted) {
    // A curve whose only drop is at 3 MiB (< 2 x the 2 MiB L2) says nothing about the L3.
    std::vector<std::pair<double, double>> pts;
    for (auto s : sweep_sizes(4096, 64 * 1024 * 1024, 1.2))
        pts.emplace_back(static_cast<double>(s), static_cast<double>(s) <= 3 * k_mib ? 100.0 : 20.0);
    core::Topology t = fake_topology(260 * 1024 * 1024);
    EXPECT_FALSE(apply_effective_llc(t, pts));
}

TEST(EffectiveCache, RefinementNarrowsTheEdgeToItsBracket) {
    // A x1.5 sweep (quick) around an edge at 20.3 MiB (beyond the cache side, 4x to 8x the 2 MiB L2): the
    // sweep points bracket it one step wide; four bisection points of the same curve bring the bracket to at
    // most 1.05 and keep the edge inside.
    const double edge_at = 20.3 * k_mib;
    const auto bw = [&](double x) { return x <= edge_at ? 40.0 : 15.0; };
    std::vector<std::pair<double, double>> pts;
    for (auto s : sweep_sizes(4096, 1024 * 1024 * 1024, 1.5)) {
        const double x = static_cast<double>(s);
        pts.emplace_back(x, x <= 48 * k_kib ? 400 : x <= 2 * k_mib ? 150 : bw(x));
    }
    const auto coarse = llc_edge(pts, 2 * k_mib);
    ASSERT_TRUE(coarse);
    EXPECT_NEAR(coarse->above / coarse->below, 1.5, 0.01);
    EXPECT_DOUBLE_EQ(coarse->threshold_gbs, 0.9 * 40);
    int calls = 0;
    const Edge fine = refine_edge(
        *coarse,
        [&](double x) {
            ++calls;
            return bw(x);
        },
        k_edge_ratio, k_edge_steps);
    EXPECT_EQ(calls, 5); // the point above again, then 1.5^(1/16) = 1.026 <= 1.05 after four halvings
    EXPECT_LE(fine.above / fine.below, k_edge_ratio);
    EXPECT_LE(fine.below, edge_at);
    EXPECT_GT(fine.above, edge_at);
    EXPECT_DOUBLE_EQ(fine.bytes, std::sqrt(fine.below * fine.above));
    // Through apply_effective_llc: the recorded range is the narrowed bracket.
    core::Topology t = fake_topology(32 * 1024 * 1024);
    ASSERT_TRUE(apply_effective_llc(t, pts, [&](double x) { return bw(x); }));
    const auto [lo, hi] = *t.caches[2].effective_size_range_bytes;
    EXPECT_LE(static_cast<double>(hi) / static_cast<double>(lo), k_edge_ratio + 1e-6);
    EXPECT_LE(static_cast<double>(lo), edge_at);
    EXPECT_GT(static_cast<double>(hi), edge_at);
}

TEST(EffectiveCache, ASlowedRefinementPointCanOnlyLowerTheEdge) {
    // A neighbour slows the first bisection point, inside the cache, below the threshold: the bracket moves
    // below the true edge (a smaller usable cache, working sets further inside it), never above it.
    const double edge_at = 12.3 * k_mib;
    Edge e{0, 10.0 * k_mib, 15.0 * k_mib, 36};
    int call = 0;
    const Edge fine = refine_edge(
        e,
        [&](double x) {
            const double clean = x <= edge_at ? 40.0 : 15.0;
            return ++call == 2 ? clean * 0.5 : clean; // call 1 checks the upper point again
        },
        1.05, 4);
    EXPECT_LT(fine.above, edge_at);
    EXPECT_GE(fine.below, 10.0 * k_mib);
    // A bracket already narrow enough spends only the check of its upper point (here beyond the cache).
    int spent = 0;
    refine_edge(
        Edge{0, 10.0 * k_mib, 10.4 * k_mib, 36}, [&](double) { return ++spent, 15.0; }, 1.05, 4);
    EXPECT_EQ(spent, 1);
}

TEST(EffectiveCache, ASweepSlowedBeyondTheTrueEdgeIsCorrectedUpwards) {
    // The sweep saw the cache end at 4.65 MiB (a neighbour slowed the points from there on); measured again
    // the points up to the true edge at 12.3 MiB reach the cache bandwidth: the bracket moves up one x1.5
    // step at a time (4.65 -> 7.0 -> 10.5 -> 15.7 MiB), then bisection narrows it around 12.3 MiB.
    const double edge_at = 12.3 * k_mib;
    const Edge e{0, 3.1 * k_mib, 4.65 * k_mib, 36};
    const Edge fine = refine_edge(
        e, [&](double x) { return x <= edge_at ? 40.0 : 15.0; }, k_edge_ratio, k_edge_steps);
    EXPECT_LE(fine.below, edge_at);
    EXPECT_GT(fine.above, edge_at);
    EXPECT_LE(fine.above / fine.below, k_edge_ratio);
    // At most k_edge_up_steps steps up: an edge further out is not chased.
    const Edge capped = refine_edge(
        e, [](double) { return 40.0; }, k_edge_ratio, 0);
    EXPECT_NEAR(capped.above / e.above, std::pow(1.5, k_edge_up_steps), 1e-6);
}

namespace {
// One thread's bandwidth against the working set with a last level that ends at `edge` bytes: 40 GB/s in
// it, 20 beyond (the threshold of the edges below is 36).
double step_curve(double bytes, double edge) {
    return bytes <= edge ? 40.0 : 20.0;
}
Edge narrow_edge(double below, double above) {
    Edge e;
    e.below = below;
    e.above = above;
    e.bytes = std::sqrt(below * above);
    e.threshold_gbs = 36.0;
    return e;
}
} // namespace

TEST(Plateaus, RecheckKeepsAnEdgeThatDidNotMove) {
    const double mib = 1024.0 * 1024.0;
    int calls = 0;
    const Edge again = recheck_edge(
        narrow_edge(9.8 * mib, 10.2 * mib),
        [&](double x) {
            ++calls;
            return step_curve(x, 10 * mib);
        },
        k_edge_ratio, k_edge_steps);
    EXPECT_EQ(calls, 2); // below still in the cache, above still out: nothing to narrow
    EXPECT_DOUBLE_EQ(again.below, 9.8 * mib);
    EXPECT_DOUBLE_EQ(again.above, 10.2 * mib);
}

TEST(Plateaus, RecheckFollowsALastLevelThatShrankOrGrew) {
    const double mib = 1024.0 * 1024.0;
    for (const double now : {6.0 * mib, 14.0 * mib}) {
        const Edge again = recheck_edge(
            narrow_edge(9.8 * mib, 10.2 * mib), [&](double x) { return step_curve(x, now); }, k_edge_ratio,
            k_edge_steps);
        EXPECT_LE(again.below, now);
        EXPECT_GT(again.above, now);
        EXPECT_LE(again.above / again.below, k_edge_ratio);
        const auto range = edge_range(narrow_edge(9.8 * mib, 10.2 * mib), again);
        EXPECT_LE(static_cast<double>(range.first), std::min(now, 9.8 * mib));
        EXPECT_GE(static_cast<double>(range.second), std::floor(std::max(now, 10.2 * mib)));
    }
}

TEST(Plateaus, RecheckStopsAfterItsSteps) {
    // A last level gone altogether (every point below the threshold): four steps down, then bisection in
    // the last bracket; the edge ends near 9.8 MiB / 1.44^4 and is not chased further.
    const double mib = 1024.0 * 1024.0;
    const Edge again = recheck_edge(
        narrow_edge(9.8 * mib, 10.2 * mib), [](double) { return 20.0; }, k_edge_ratio, k_edge_steps);
    EXPECT_NEAR(again.below, 9.8 * mib / std::pow(k_edge_recheck_step, k_edge_recheck_steps), 1.0);
}

// A victim cache of 96 MiB behind a last level that reported 32: the best bandwidth of a working set of W
// bytes is memory's 40 GB/s plus the cache's share min(1, C/W) of 200 GB/s more (the figures of the
// synthetic curve, not of a machine).
double victim_cache(std::uint64_t bytes) {
    const double w = static_cast<double>(bytes);
    return 40.0 + 200.0 * std::min(1.0, 96 * k_mib / w) * (w > 96 * k_mib ? 0.25 : 1.0);
}

TEST(MemoryPlateau, DoublesWhileACacheStillServesPartOfTheSet) {
    std::vector<std::uint64_t> asked;
    const MemoryPlateau p = find_memory_plateau(128 * 1024 * 1024, 4096ull * 1024 * 1024,
                                                k_memory_plateau_drop, [&](std::uint64_t b) {
                                                    asked.push_back(b);
                                                    return victim_cache(b);
                                                });
    // 128 MiB: 77.5, 256: 58.75, 512: 49.4, 1024: 44.7, 2048: 42.3 (5.2 % below), 4096: 41.2 (2.8 % below):
    // 2048 and 4096 MiB agree, and the larger is kept.
    EXPECT_EQ(p.bytes, 4096ull * 1024 * 1024);
    EXPECT_FALSE(p.capped);
    ASSERT_EQ(p.points.size(), 6u);
    EXPECT_EQ(asked.front(), 128ull * 1024 * 1024);
    EXPECT_EQ(p.points.back().first, 4096ull * 1024 * 1024);
    EXPECT_DOUBLE_EQ(p.points[1].second, victim_cache(256ull * 1024 * 1024));
}

TEST(MemoryPlateau, StopsAtOnceOnAFlatCurveAndAtTheCap) {
    int calls = 0;
    const auto flat = [&](std::uint64_t) {
        ++calls;
        return 40.0;
    };
    const MemoryPlateau p = find_memory_plateau(64 * 1024 * 1024, 512 * 1024 * 1024, 0.05, flat);
    EXPECT_EQ(p.bytes, 128ull * 1024 * 1024); // the double of the start, which agrees with it
    EXPECT_EQ(calls, 2);                      // the size and its double
    EXPECT_FALSE(p.capped);
    // Still falling at the cap: the last size tried, flagged.
    const MemoryPlateau c = find_memory_plateau(128 * 1024 * 1024, 512 * 1024 * 1024, 0.05, victim_cache);
    EXPECT_EQ(c.bytes, 512ull * 1024 * 1024);
    EXPECT_TRUE(c.capped);
    // No room to double: nothing is measured.
    calls = 0;
    const MemoryPlateau n = find_memory_plateau(64 * 1024 * 1024, 100 * 1024 * 1024, 0.05, flat);
    EXPECT_EQ(n.bytes, 64ull * 1024 * 1024);
    EXPECT_EQ(calls, 0);
    EXPECT_TRUE(n.points.empty());
}
