// The thread-count models recover exact synthetic T(n, s) with known breaks, assign regimes from the
// cache capacities, merge regimes that lack points (visibly), and pick the best thread count.
#include "analysis/threads/analysis.hpp"
#include "analysis/threads/time_model.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace roofcast;
using namespace roofcast::model::threads;

namespace {

Measurement point(double n, int s, double t) {
    Measurement m;
    m.n = n;
    m.s = s;
    m.seconds = *core::summarize({t});
    return m;
}

// 32 KiB, 1 MiB and 8 MiB caches, 8 bytes per element: breaks at n = 4096 and 131072, memory from 1 Mi.
Context context() {
    Context c;
    c.kernel = "norm2";
    c.bytes_per_n = 8.0;
    c.caches = {{"L1", 32768.0}, {"L2", 1048576.0}, {"L3", 8.0 * 1048576.0}};
    c.cores = 2;
    c.hw_threads = 4;
    c.bandwidth_gbs = {{1, 10.0}, {2, 18.0}, {4, 20.0}};
    return c;
}

double theta(double s) {
    return 2e-6 + 1e-6 * s + 3e-6 * std::max(0.0, s - 2) + 1e-6 * std::max(0.0, s - 4);
}

// T_seq with breaks at l1 and l2 (elements).
double tseq(double n, double l1, double l2) {
    return 1e-7 + 1e-9 * n + 1e-9 * std::max(0.0, n - l1) + 2e-9 * std::max(0.0, n - l2);
}

double bandwidth(double s) { // the context's B(s), interpolated
    if (s <= 1)
        return 10.0;
    if (s <= 2)
        return 10.0 + 8.0 * (s - 1);
    if (s <= 4)
        return 18.0 + (s - 2);
    return 20.0;
}

double share(double s) { // beyond the context's 4 hardware threads the shared work runs in ceil(s/4) waves
    return s <= 4 ? 1.0 / s : std::ceil(s / 4) / s;
}

// The roofcast form: the memory regime (from the L3 capacity, 1 Mi elements) continues the cache regimes,
// the first 1 Mi elements at their last-cache cost, the rest streaming at B(s) with γ = 1.2, plus a step β.
double truth(double n, double s, double l1 = 4096, double l2 = 131072) {
    constexpr double nb = 1048576.0;
    if (n >= nb)
        return theta(s) + tseq(nb, l1, l2) * share(s) + 1.2 * (n - nb) * 8.0 / (bandwidth(s) * 1e9) + 5e-5;
    return theta(s) + tseq(n, l1, l2) * share(s);
}

std::vector<double> sizes() {
    std::vector<double> out;
    for (double n = 512; n <= 8.0 * 1048576.0; n *= std::sqrt(2.0))
        out.push_back(std::round(n));
    return out;
}

std::vector<Measurement> synthetic(double l1 = 4096, double l2 = 131072) {
    std::vector<Measurement> pts;
    for (const double n : sizes())
        for (int s = 1; s <= 8; ++s)
            pts.push_back(point(n, s, truth(n, s, l1, l2)));
    return pts;
}

} // namespace

TEST(ThreadsModel, RecoversExactSyntheticModelWithKnownBreaks) {
    const ThreadsModel m = fit_model(Kind::roofcast, context(), synthetic());
    ASSERT_EQ(m.s_breaks, (std::vector<double>{2, 4}));
    ASSERT_EQ(m.n_breaks, (std::vector<double>{4096, 131072}));
    ASSERT_TRUE(m.memory_from);
    EXPECT_DOUBLE_EQ(*m.memory_from, 1048576.0);
    for (const double n : {700.0, 5000.0, 300000.0, 3e6})
        for (const double s : {1.0, 3.0, 7.0})
            EXPECT_NEAR(m.evaluate(n, s), truth(n, s), 1e-9 * truth(n, s)) << n << " " << s;
    EXPECT_NEAR(m.theta(3), theta(3), 1e-12);
    EXPECT_LT(m.rel_sigma, 1e-9);
    // θ's regimes print the cost of a call with no work, θ(s) + T_seq(0)·share(s), at their first s.
    ASSERT_EQ(m.regimes[0].parameters[0].name, "fixed(lo)");
    EXPECT_NEAR(m.regimes[0].parameters[0].value, theta(1) + tseq(0, 4096, 131072), 1e-12);
    EXPECT_NEAR(m.fixed_cost(3), theta(3) + tseq(0, 4096, 131072) / 3, 1e-12);
    ASSERT_EQ(m.regimes[0].parameters[1].name, "fixed(hi)"); // at s = 2, the cores
    EXPECT_NEAR(m.regimes[0].parameters[1].value, theta(2) + tseq(0, 4096, 131072) / 2, 1e-12);
    ASSERT_EQ(m.regimes[2].name, "theta s>4"); // the last segment ends at the largest measured s, 8
    EXPECT_NEAR(m.regimes[2].parameters[1].value, truth(0, 8), 1e-12);
    // The regimes report the slopes that generated the data.
    const Regime* l2 = nullptr;
    const Regime* mem = nullptr;
    for (const auto& r : m.regimes) {
        if (r.name == "L2")
            l2 = &r;
        if (r.name == "MEM")
            mem = &r;
    }
    ASSERT_TRUE(l2 && mem);
    EXPECT_NEAR(l2->parameters[1].value, 2e-9, 1e-15);
    EXPECT_NEAR(mem->parameters[0].value, 1.2, 1e-7);
    EXPECT_NEAR(mem->parameters[1].value, 5e-5, 1e-11);
}

TEST(ThreadsModel, SharedWorkRunsInWavesBeyondTheHardwareThreads) {
    // 4 hardware threads: 6 threads run as 4 then 2, so one thread's wall time holds two chunks of T_seq/6.
    const ThreadsModel m = fit_model(Kind::roofcast, context(), synthetic());
    EXPECT_DOUBLE_EQ(m.work_share(3), 1.0 / 3);
    EXPECT_DOUBLE_EQ(m.work_share(4), 0.25);
    EXPECT_DOUBLE_EQ(m.work_share(6), 2.0 / 6);
    EXPECT_DOUBLE_EQ(m.work_share(8), 0.25);
    EXPECT_DOUBLE_EQ(m.work_share(9), 3.0 / 9);
    // Doda's forms share the work among all s threads at once, so they cannot fit these data exactly.
    const ThreadsModel d = fit_model(Kind::doda_memory, context(), synthetic());
    EXPECT_DOUBLE_EQ(d.work_share(6), 1.0 / 6);
    EXPECT_GT(d.rel_sigma, 1e-6);
    EXPECT_LT(m.rel_sigma, 1e-9);
}

TEST(ThreadsModel, ThetaStepsUpWhereTheThreadsOutnumberTheHardwareThreads) {
    // An oversubscribed region pays a constant 40 µs more (the scheduler's hand-off) on top of θ(s).
    std::vector<Measurement> pts;
    auto stepped = [](double n, double s) { return truth(n, s) + (s > 4 ? 40e-6 : 0.0); };
    for (const double n : sizes())
        for (int s = 1; s <= 8; ++s)
            pts.push_back(point(n, s, stepped(n, s)));
    const ThreadsModel m = fit_model(Kind::roofcast, context(), pts);
    ASSERT_TRUE(m.oversubscription_step);
    EXPECT_LT(m.rel_sigma, 1e-9);
    EXPECT_NEAR(m.theta(5) - m.theta(4), theta(5) - theta(4) + 40e-6, 1e-12);
    for (const double s : {3.0, 4.0, 5.0, 8.0})
        EXPECT_NEAR(m.evaluate(5000, s), stepped(5000, s), 1e-9 * stepped(5000, s)) << s;
    bool named = false;
    for (const auto& r : m.regimes)
        if (r.name == "theta step s>4") {
            named = true;
            EXPECT_NEAR(r.parameters[0].value, 40e-6, 1e-12);
        }
    EXPECT_TRUE(named);
    // Doda's forms keep the paper's piecewise-linear θ and miss the step.
    EXPECT_FALSE(fit_model(Kind::doda_memory, context(), pts).oversubscription_step);
    // One thread count beyond the hardware threads cannot tell the step from the slope: dropped, said.
    std::vector<Measurement> few;
    for (const auto& p : pts)
        if (p.s <= 5)
            few.push_back(p);
    const ThreadsModel f = fit_model(Kind::roofcast, context(), few);
    EXPECT_FALSE(f.oversubscription_step);
    bool said = false;
    for (const auto& note : f.notes)
        said = said || note.find("no step for oversubscription") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(ThreadsModel, RefinementFindsABreakAwayFromTheCapacity) {
    // The L2 break of the data sits at 2^(1/4) x the capacity (an effective size smaller than the cache).
    const double moved = 131072.0 * std::pow(2.0, 0.25);
    const ThreadsModel m = fit_model(Kind::roofcast, context(), synthetic(4096, moved));
    ASSERT_EQ(m.n_breaks.size(), 2u);
    EXPECT_NEAR(m.n_breaks[1], moved, 1e-6 * moved);
    EXPECT_LT(m.rel_sigma, 1e-9);
    // Doda's form keeps the capacities: it cannot fit this data exactly.
    const ThreadsModel d = fit_model(Kind::doda_memory, context(), synthetic(4096, moved));
    EXPECT_DOUBLE_EQ(d.n_breaks[1], 131072.0);
    EXPECT_GT(d.rel_sigma, 1e-6);
}

TEST(ThreadsModel, DodaRecoversItsOwnFormExactly) {
    // T = θ(s) + T_seq(n)/s everywhere, T_seq with a further break at the L3 capacity.
    Context c = context();
    std::vector<Measurement> pts;
    for (const double n : sizes())
        for (int s = 1; s <= 8; ++s)
            pts.push_back(
                point(n, s, theta(s) + (tseq(n, 4096, 131072) + 4e-9 * std::max(0.0, n - 1048576.0)) / s));
    const ThreadsModel m = fit_model(Kind::doda, c, pts);
    EXPECT_EQ(m.n_breaks, (std::vector<double>{4096, 131072, 1048576}));
    EXPECT_FALSE(m.memory_from);
    EXPECT_LT(m.rel_sigma, 1e-9);
}

TEST(ThreadsModel, RegimesFollowTheCacheCapacities) {
    Context c = context();
    c.bytes_per_n = 24.0; // triad: three arrays
    const ThreadsModel m = fit_model(Kind::doda_memory, c, synthetic());
    EXPECT_EQ(m.n_breaks, (std::vector<double>{32768.0 / 24, 1048576.0 / 24}));
    EXPECT_DOUBLE_EQ(*m.memory_from, 8.0 * 1048576.0 / 24);
    ASSERT_EQ(m.regimes.size(), 3u + 4u); // three θ segments, L1, L2, L3, MEM
    std::size_t in_l1 = 0, in_mem = 0;
    for (const auto& p : synthetic()) {
        in_l1 += p.n < 32768.0 / 24;
        in_mem += p.n >= 8.0 * 1048576.0 / 24;
    }
    EXPECT_EQ(m.regimes[3].name, "L1");
    EXPECT_EQ(m.regimes[3].points, in_l1);
    EXPECT_EQ(m.regimes[6].name, "MEM");
    EXPECT_EQ(m.regimes[6].points, in_mem);
}

TEST(ThreadsModel, RegimeWithTooFewSizesIsMergedVisibly) {
    std::vector<Measurement> pts;
    for (const double n : {600.0, 1000.0, 2000.0, 3000.0, 6000.0, 20000.0, 50000.0, 200000.0, 500000.0, 2e6})
        for (int s = 1; s <= 6; ++s)
            pts.push_back(point(n, s, truth(n, s)));
    const ThreadsModel m = fit_model(Kind::roofcast, context(), pts);
    EXPECT_FALSE(m.memory_from); // one size above L3 for two parameters
    ASSERT_FALSE(m.notes.empty());
    bool said = false;
    for (const auto& n : m.notes)
        said = said || (n.find("regime MEM") != std::string::npos &&
                        n.find("merged into regime L3") != std::string::npos);
    EXPECT_TRUE(said);
}

TEST(ThreadsModel, OneThreadCountIsAnInputError) {
    // Two thread counts yield a model (tests/analysis/threads/test_thin_grids.cpp); one cannot.
    std::vector<Measurement> pts;
    for (const double n : sizes())
        for (int s = 2; s <= 2; ++s)
            pts.push_back(point(n, s, truth(n, s)));
    EXPECT_THROW(fit_model(Kind::roofcast, context(), pts), core::InputError);
}

TEST(ThreadsModel, BestThreadCountMinimisesThePredictedTime) {
    // T = 1e-5·s + (1e-3·n/1e5)/s: at n = 1e5 the minimum is at s = sqrt(1e-3/1e-5) = 10.
    Context c;
    c.kernel = "norm2";
    c.cores = 16;
    c.hw_threads = 16;
    std::vector<Measurement> pts;
    for (const double n : {1e3, 1e4, 1e5})
        for (int s = 1; s <= 16; ++s)
            pts.push_back(point(n, s, 1e-5 * s + 1e-8 * n / s));
    ModelReport r;
    r.model = fit_model(Kind::doda, c, pts);
    const BestThreads b = best_threads(r, 1e5, 16, 4);
    EXPECT_EQ(b.best_s, 10);
    EXPECT_NEAR(b.best_value, 2e-4, 1e-12);
    EXPECT_EQ(b.all_threads, 4);
    EXPECT_NEAR(b.gain, (4e-5 + 1e-3 / 4) / 2e-4 - 1, 1e-9);
    // Small n: the overhead dominates, one thread is best.
    EXPECT_EQ(best_threads(r, 1e3, 16, 4).best_s, 1); // 1e-5·(s + 1/s) is least at s = 1
}

TEST(ThreadsAnalysis, ParsesTargetsAndRejectsBadOnes) {
    const Target t = parse_target("s=4,n=1e6");
    EXPECT_EQ(t.s, 4);
    EXPECT_DOUBLE_EQ(t.n, 1e6);
    EXPECT_THROW(parse_target("n=0,s=2"), core::InputError);
    EXPECT_THROW(parse_target("n=100"), core::InputError);
    EXPECT_THROW(parse_target("n=100,s=1.5"), core::InputError);
}

TEST(ThreadsAnalysis, FitsEveryModelOnTheSameDataAndRoundTripsItsInput) {
    ThreadsData d;
    d.context = context();
    d.series.push_back({"omp", synthetic(), {{1e9, 3, "exit status 1"}}, {}});
    const ThreadsAnalysis a = analyse(d, {{2e6, 3}}, 0);
    ASSERT_EQ(a.series.size(), 1u);
    const SeriesAnalysis& s = a.series.front();
    ASSERT_EQ(s.models.size(), 4u);
    EXPECT_EQ(s.models[0].name, "roofcast");
    EXPECT_EQ(s.models[3].name, "pmnf");
    EXPECT_LT(s.models[0].max_error, 1e-8);
    EXPECT_GT(s.models[1].max_error, s.models[0].max_error); // doda has no memory regime
    ASSERT_EQ(s.models[0].predictions.size(), 1u);
    EXPECT_NEAR(s.models[0].predictions[0].value, truth(2e6, 3), 1e-9 * truth(2e6, 3));
    ASSERT_FALSE(s.notes.empty());
    EXPECT_NE(s.notes.front().find("left out n=1e+09 s=3: exit status 1"), std::string::npos);
    EXPECT_EQ(s.best.size(), sizes().size() + 1);
    const ThreadsData back = data_from_json(data_to_json(d), "x.json");
    ASSERT_EQ(back.series.front().points.size(), d.series.front().points.size());
    EXPECT_DOUBLE_EQ(back.series.front().points[5].seconds.median, d.series.front().points[5].seconds.median);
    EXPECT_EQ(back.context.caches.size(), 3u);
    EXPECT_EQ(back.context.bandwidth_gbs, d.context.bandwidth_gbs);
    nlohmann::json bad = data_to_json(d);
    bad["series"][0]["measurements"][0]["samples"] = {-1.0};
    EXPECT_THROW(data_from_json(bad, "x.json"), core::InputError);
}

TEST(ThreadsAnalysis, HoldoutScoresOnPointsNotFitted) {
    ThreadsData d;
    d.context = context();
    d.series.push_back({"omp", synthetic(), {}, {}});
    const ThreadsAnalysis a = analyse(d, {}, 3);
    const SeriesAnalysis& s = a.series.front();
    EXPECT_EQ(s.fitted + s.held_out, synthetic().size());
    EXPECT_GT(s.held_out, synthetic().size() / 4);
    EXPECT_EQ(s.models[0].evaluated, s.held_out);
    EXPECT_LT(s.models[0].max_error, 1e-6); // the exact model predicts the held-out points too
    EXPECT_EQ(s.models[0].within_range, s.held_out);
    EXPECT_LT(s.models[0].max_beyond_range, 1e-6);
}

// Exact points from the truth t, but every third of the checkerboard (the held-out points) repeats
// `even` x t at even sizes and `odd` x t at the others; the roofcast model of the analysis, and how many
// held-out points there were and how many of them at even sizes.
namespace {
struct HeldOutCase {
    ModelReport model;
    std::size_t held = 0, even = 0;
};
HeldOutCase held_out_case(const std::vector<double>& even, const std::vector<double>& odd) {
    ThreadsData d;
    d.context = context();
    const std::vector<double> ns = sizes();
    std::vector<Measurement> pts;
    HeldOutCase c;
    for (std::size_t i = 0; i < ns.size(); ++i)
        for (int s = 1; s <= 8; ++s) {
            const double t = truth(ns[i], s);
            Measurement m = point(ns[i], s, t);
            if ((i + static_cast<std::size_t>(s - 1)) % 3 == 2) {
                ++c.held;
                c.even += i % 2 == 0;
                std::vector<double> reps = i % 2 == 0 ? even : odd;
                for (double& r : reps)
                    r *= t;
                m.seconds = *core::summarize(reps);
            }
            pts.push_back(m);
        }
    d.series.push_back({"omp", pts, {}, {}});
    c.model = analyse(d, {}, 3).series.front().models.front();
    return c;
}
} // namespace

// A prediction inside a point's own [min, max] is no error the measurement can resolve; outside, the distance
// to the nearer end counts. The fitted points are exact (the model recovers the truth t); of the held-out
// points those at even sizes repeat 0.9t, t, 1.1t (inside) and the others 1.2t, 1.3t, 1.4t: the model's t
// lies 1 - 1/1.2 = 16.7 % below their minimum.
TEST(ThreadsAnalysis, ErrorsBeyondThePointsOwnRange) {
    const HeldOutCase c = held_out_case({0.9, 1.0, 1.1}, {1.2, 1.3, 1.4});
    const ModelReport& r = c.model;
    ASSERT_EQ(r.evaluated, c.held);
    EXPECT_EQ(r.within_range, c.even);
    EXPECT_EQ(r.within_tolerance, c.even); // the others lie 16.7 % beyond: past the 10 % tolerance
    EXPECT_NEAR(r.max_beyond_range, 1.0 - 1.0 / 1.2, 1e-6);
    EXPECT_NEAR(r.max_error, 0.3 / 1.3, 1e-6); // against the median 1.3t
}

// The shared-host criterion: held-out points repeating 1.08t..1.12t lie 1 - 1/1.08 = 7.4 % beyond the model's
// t (within the 10 % tolerance, though outside their range); those repeating 1.2t..1.4t lie 16.7 % beyond.
TEST(ThreadsAnalysis, PointsWithinTheToleranceBeyondTheirRange) {
    const HeldOutCase c = held_out_case({1.08, 1.1, 1.12}, {1.2, 1.3, 1.4});
    ASSERT_EQ(c.model.evaluated, c.held);
    EXPECT_EQ(c.model.within_range, 0u);
    EXPECT_EQ(c.model.within_tolerance, c.even);
    EXPECT_GT(c.even, 0u);
    EXPECT_LT(c.even, c.held);
}

TEST(ThreadsAnalysis, NoisyMeansAnOutlierAmongTheSeriesSpreads) {
    // Every point's samples spread by 30 % between their quartiles (a host that disturbs them alike), one
    // point by 300 %: only that one is NOISY, against a floor lifted above the common spread.
    auto with_spread = [](std::vector<Measurement> pts, double wide_at) {
        for (std::size_t i = 0; i < pts.size(); ++i) {
            const double t = pts[i].seconds.median;
            const double w = i == static_cast<std::size_t>(wide_at) ? 3.0 : 0.3;
            pts[i].seconds =
                *core::summarize({t * (1 - w / 2), t * (1 - w / 2), t, t * (1 + w / 2), t * (1 + w / 2)});
        }
        return pts;
    };
    ThreadsData d;
    d.context = context();
    d.series.push_back({"omp", with_spread(synthetic(), 7), {}, {}});
    const ThreadsAnalysis a = analyse(d, {}, 0);
    const SeriesAnalysis& s = a.series.front();
    EXPECT_EQ(s.noisy, 1u);
    EXPECT_GT(s.noise_floor, 0.3);
    EXPECT_LT(s.noise_floor, 3.0);
    EXPECT_TRUE(a.data.series.front().points[7].seconds.noisy);
    EXPECT_FALSE(a.data.series.front().points[6].seconds.noisy);
    // The error on steady points leaves the NOISY one out: its median moved by 20 %, the others are exact.
    auto moved = with_spread(synthetic(), 7);
    moved[7].seconds.median *= 1.2;
    ThreadsData dm;
    dm.context = context();
    dm.series.push_back({"omp", moved, {}, {}});
    const ThreadsAnalysis am = analyse(dm, {}, 0);
    const ModelReport& r = am.series.front().models.front();
    EXPECT_NEAR(r.max_error, 0.2 / 1.2, 0.02); // the exact model sits at the unmoved value
    ASSERT_TRUE(r.max_error_steady);
    EXPECT_LT(*r.max_error_steady, 0.01);
    // A quiet series (no spread at all) keeps the 5 % floor.
    ThreadsData quiet;
    quiet.context = context();
    quiet.series.push_back({"omp", synthetic(), {}, {}});
    const ThreadsAnalysis q = analyse(quiet, {}, 0);
    EXPECT_DOUBLE_EQ(q.series.front().noise_floor, core::k_noisy_spread);
    EXPECT_EQ(q.series.front().noisy, 0u);
}

TEST(ThreadsModel, PrivateCacheBreaksScaleWithTheCoresInUse) {
    // L1 and L2 private (one per core), L3 shared by both cores: at s threads the data of one thread's
    // worth of L2 is s x as large up to the 2 cores, so the breaks of T_seq lie at min(s, 2) x capacity.
    Context c = context();
    c.caches = {{"L1", 32768.0, 1}, {"L2", 1048576.0, 1}, {"L3", 8.0 * 1048576.0, 2}};
    auto scaled = [](double n, double s) {
        const double k = std::min(s, 2.0);
        if (n >= 1048576.0) // the shared L3's break does not grow; the cache part below it does
            return theta(s) + tseq(1048576.0, 4096 * k, 131072 * k) * share(s) +
                   1.2 * (n - 1048576.0) * 8.0 / (bandwidth(s) * 1e9) + 5e-5;
        return theta(s) + tseq(n, 4096 * k, 131072 * k) * share(s);
    };
    std::vector<Measurement> pts;
    for (const double n : sizes())
        for (int s = 1; s <= 8; ++s)
            pts.push_back(point(n, s, scaled(n, s)));
    const ThreadsModel m = fit_model(Kind::roofcast, c, pts);
    EXPECT_DOUBLE_EQ(m.capacity_scale(m.n_break_instances[1], 1), 1.0);
    EXPECT_DOUBLE_EQ(m.capacity_scale(m.n_break_instances[1], 3), 2.0);
    EXPECT_DOUBLE_EQ(m.capacity_scale(m.memory_instances, 3), 1.0); // the shared L3 does not grow
    EXPECT_LT(m.rel_sigma, 1e-9);
    for (const double s : {1.0, 2.0, 6.0})
        EXPECT_NEAR(m.evaluate(200000, s), scaled(200000, s), 1e-9 * scaled(200000, s)) << s;
    // Without the sharing (older files: unknown) the breaks stay at one core's capacity and miss these data.
    EXPECT_GT(fit_model(Kind::roofcast, context(), pts).rel_sigma, 1e-6);
    // The sharing survives the results file.
    ThreadsData d;
    d.context = c;
    d.series.push_back({"omp", pts, {}, {}});
    const ThreadsData back = data_from_json(data_to_json(d), "x.json");
    EXPECT_EQ(back.context.caches[1].shared_by_cores, 1);
    EXPECT_EQ(back.context.caches[2].shared_by_cores, 2);
}

// A kernel bound by its own instructions (one dependent add chain per thread: 0.5 ns per 8-byte element,
// 16 GB/s on one core) on a machine whose memory gives 20 GB/s to one thread and 24 GB/s to two: in memory
// one thread runs at its own 16 GB/s, two at memory's 24 (not 2 × 16). The memory regime capped at
// min(s, cores) × the last cache's one-core rate recovers it exactly; B(s) alone cannot (γ would have to
// be 1.25 at one thread and 1 at two).
TEST(ThreadsModel, MemoryRegimeCappedByTheKernelsOwnRate) {
    Context c = context();
    c.hw_threads = 2;
    c.bandwidth_gbs = {{1, 20.0}, {2, 24.0}};
    const auto th = [](double s) { return 2e-6 + 1e-6 * s + 5e-6 * std::max(0.0, s - 2); };
    const auto t = [&](double n, double s) {
        constexpr double nb = 1048576.0;
        if (n >= nb)
            return th(s) + (1e-7 + 0.5e-9 * nb) * std::ceil(s / 2) / s +
                   (n - nb) * 8.0 / (std::min(s <= 1 ? 20.0 : 24.0, std::min(s, 2.0) * 16.0) * 1e9) + 4e-5;
        return th(s) + (1e-7 + 0.5e-9 * n) * std::ceil(s / 2) / s;
    };
    std::vector<Measurement> pts;
    for (const double n : sizes())
        for (int s = 1; s <= 8; ++s)
            pts.push_back(point(n, s, t(n, s)));
    const ThreadsModel m = fit_model(Kind::roofcast, c, pts);
    ASSERT_TRUE(m.core_gbs) << m.formula();
    EXPECT_NEAR(*m.core_gbs, 16.0, 1e-6);
    EXPECT_LT(m.rel_sigma, 1e-9);
    for (const double n : {2e6, 8e6})
        for (const double s : {1.0, 2.0, 5.0})
            EXPECT_NEAR(m.evaluate(n, s), t(n, s), 1e-9 * t(n, s)) << n << " " << s;
    EXPECT_NE(
        std::find_if(m.notes.begin(), m.notes.end(),
                     [](const std::string& note) { return note.rfind("memory regime capped", 0) == 0; }),
        m.notes.end());
    // Without the cap's premise (a kernel that streams faster than memory in the last cache) nothing is
    // capped: the exact synthetic model of the other tests keeps B(s).
    EXPECT_FALSE(fit_model(Kind::roofcast, context(), synthetic()).core_gbs);
}

// L3 shared by both cores: beyond the L2 break every element costs 0.6 ns more for the second core on the
// one L3 (the two cores queue for its bandwidth), so two threads in L3 run 1.23x, not 2x, faster than one.
// The contention term recovers it exactly; without it the fit misses; with points at one core only (or
// a cache that no core shares) the term is left out and the model says why.
TEST(ThreadsModel, SharedCacheContentionRecoveredFromTheData) {
    Context c = context();
    c.caches = {{"L1", 32768.0, 1}, {"L2", 1048576.0, 1}, {"L3", 8.0 * 1048576.0, 2}};
    constexpr double d = 0.6e-9;
    auto contended = [&](double n, double s) {
        const double k = std::min(s, 2.0);
        const double at = std::min(n, 1048576.0); // the memory regime continues the cache regimes there
        double t = theta(s) +
                   (tseq(at, 4096 * k, 131072 * k) + d * (k - 1) * std::max(0.0, at - 131072 * k)) * share(s);
        if (n >= 1048576.0)
            t += 1.2 * (n - 1048576.0) * 8.0 / (bandwidth(s) * 1e9) + 5e-5;
        return t;
    };
    std::vector<Measurement> pts;
    for (const double n : sizes())
        for (int s = 1; s <= 8; ++s)
            pts.push_back(point(n, s, contended(n, s)));
    const ThreadsModel m = fit_model(Kind::roofcast, c, pts);
    ASSERT_EQ(m.contention_break(), std::optional<std::size_t>(1)) << m.formula();
    EXPECT_LT(m.rel_sigma, 1e-9);
    for (const double n : {300000.0, 3e6})
        for (const double s : {1.0, 2.0, 6.0})
            EXPECT_NEAR(m.evaluate(n, s), contended(n, s), 1e-9 * contended(n, s)) << n << " " << s;
    const Regime* l3 = nullptr;
    for (const auto& r : m.regimes)
        if (r.name == "L3")
            l3 = &r;
    ASSERT_TRUE(l3);
    ASSERT_EQ(l3->parameters.size(), 4u);
    EXPECT_EQ(l3->parameters[3].name, "contention");
    EXPECT_NEAR(l3->parameters[3].value, d, 1e-15);
    // The same data with the L3 private to each core: no contention term, and the fit misses.
    Context private_l3 = c;
    private_l3.caches[2].shared_by_cores = 1;
    const ThreadsModel p = fit_model(Kind::roofcast, private_l3, pts);
    EXPECT_FALSE(p.contention_break());
    EXPECT_GT(p.rel_sigma, 1e-6);
    // Doda's forms keep their own terms.
    EXPECT_FALSE(fit_model(Kind::doda_memory, c, pts).contention_break());
    // No point beyond the L2 break (262144 elements on two cores) with both cores busy: the term cannot be
    // determined and a note says so.
    std::vector<Measurement> one_core;
    for (const auto& q : pts)
        if (q.n < 262144 || q.s == 1)
            one_core.push_back(q);
    const ThreadsModel o = fit_model(Kind::roofcast, c, one_core);
    EXPECT_FALSE(o.contention_break());
    EXPECT_NE(std::find_if(o.notes.begin(), o.notes.end(),
                           [](const std::string& note) {
                               return note.find("no contention term") != std::string::npos;
                           }),
              o.notes.end());
}
