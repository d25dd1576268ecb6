// The deep-halo geometry and the model that picks k, on cases computed by hand.
#include "analysis/stencil/geometry.hpp"
#include "analysis/stencil/measured.hpp"
#include "analysis/stencil/model.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"

#include <gtest/gtest.h>

namespace ms = roofcast::model::stencil;

TEST(StencilGeometry, PartitionGivesTheRemainderToTheFirstBlocks) {
    EXPECT_EQ(ms::partition(10, 3, 0), (std::pair<long, long>{0, 4}));
    EXPECT_EQ(ms::partition(10, 3, 1), (std::pair<long, long>{4, 7}));
    EXPECT_EQ(ms::partition(10, 3, 2), (std::pair<long, long>{7, 10}));
}

TEST(StencilGeometry, ProcessGrids) {
    EXPECT_EQ(ms::process_grid({64, 64, 64}, 8, "3d"), (ms::Index3{2, 2, 2}));
    EXPECT_EQ(ms::process_grid({64, 64, 64}, 6, "z"), (ms::Index3{6, 1, 1}));
    // 12 = 3 x 2 x 2: the 3 goes to the longest dimension (x here), then the 2s to the largest blocks.
    EXPECT_EQ(ms::process_grid({16, 16, 48}, 12, "3d"), (ms::Index3{2, 2, 3}));
    EXPECT_EQ(ms::smallest_split_extent({10, 9, 9}, {3, 1, 1}), 3);
}

TEST(StencilGeometry, ShellAndInnerCoverTheExtendedBoxOnce) {
    const ms::Box outer{{0, 0, 0}, {6, 5, 4}};
    const ms::Box inner{{1, 1, 1}, {5, 3, 3}};
    long cells = 0;
    for (const auto& b : ms::shell(outer, inner))
        cells += b.cells();
    EXPECT_EQ(cells, outer.cells() - inner.cells());
    EXPECT_EQ(ms::shell(outer, ms::Box{}).size(), 1u);
}

TEST(StencilGeometry, HaloMessagesOfASlabAndACube) {
    // Rank (0,0,0) of 2x2x2: neighbours at +z, +y, +x, three edges and one corner.
    const auto g = ms::rank_geometry({8, 8, 8}, {2, 2, 2}, {0, 0, 0});
    const auto msgs = ms::halo_messages(g, 2);
    EXPECT_EQ(msgs.size(), 7u);
    long cells = 0;
    for (const auto& m : msgs)
        cells += m.cells;
    EXPECT_EQ(cells, 3 * (2 * 4 * 4) + 3 * (2 * 2 * 4) + 2 * 2 * 2);
}

namespace {

// n = 10 x 5 x 5 points (z y x) in two z slabs: rank 0 owns z 0..4, the updated points z 1..8, y, x 1..3.
ms::StencilProblem slab_problem(int steps) {
    ms::StencilProblem p;
    p.kernel = "jacobi7";
    p.n = {10, 5, 5};
    p.dims = {2, 1, 1};
    p.steps = steps;
    return p;
}

ms::CostInputs unit_costs(double alpha) {
    ms::CostInputs c;
    c.seconds_per_cell = 1;
    c.sweep_constant_s = 0;
    c.copy_bytes_per_second = 800;
    c.alpha_s = alpha;
    c.beta_bytes_per_second = 100;
    c.element_bytes = 8;
    return c;
}

} // namespace

TEST(StencilModel, BlockTimesByHand) {
    const auto p = slab_problem(4);
    const auto g = ms::rank_geometry(p.n, p.dims, {0, 0, 0});
    // k = 1: updated owned points z 1..4 (36), inner z 1..3 (27), shell z 4 (9); one message of 25 values
    // = 200 B: comm 10 + 200/100 = 12, pack = unpack = 2 * 200 / 800 = 0.5.
    const auto t1 = ms::block_times(p, g, unit_costs(10), 1);
    EXPECT_DOUBLE_EQ(t1.inner, 27);
    EXPECT_DOUBLE_EQ(t1.boundary, 9);
    EXPECT_DOUBLE_EQ(t1.comm, 12);
    EXPECT_DOUBLE_EQ(t1.pack, 0.5);
    EXPECT_DOUBLE_EQ(t1.block(), 0.5 + 27 + 0.5 + 9);
    // k = 2: sweep 0 computes z 1..5 (45) of which z 1..3 inner (27); sweep 1 z 1..4 (36), inner z 1..2
    // (18); a message of 50 values = 400 B: comm 14, pack = unpack = 1.
    const auto t2 = ms::block_times(p, g, unit_costs(10), 2);
    EXPECT_DOUBLE_EQ(t2.inner, 45);
    EXPECT_DOUBLE_EQ(t2.boundary, 36);
    EXPECT_DOUBLE_EQ(t2.comm, 14);
    EXPECT_DOUBLE_EQ(t2.block(), 1 + 45 + 1 + 36);
    // The per-sweep constant counts calls: k = 1 has 3 inner pieces (one per plane) and one shell box.
    auto c = unit_costs(10);
    c.sweep_constant_s = 1;
    const auto t1c = ms::block_times(p, g, c, 1);
    EXPECT_DOUBLE_EQ(t1c.inner, 30);
    EXPECT_DOUBLE_EQ(t1c.boundary, 10);
}

TEST(StencilModel, LatencyMakesDeepHalosPay) {
    const auto p = slab_problem(4);
    EXPECT_EQ(ms::max_k(p), 4);
    // alpha = 10: compute hides the message; k = 1 (37 per step) beats k = 2 (83 per two steps).
    const auto cheap = ms::choose_k(p, unit_costs(10), 2);
    EXPECT_DOUBLE_EQ(cheap.all[0].seconds_per_step, 37);
    EXPECT_DOUBLE_EQ(cheap.all[1].seconds_per_step, 41.5);
    EXPECT_EQ(cheap.best_k, 1);
    EXPECT_DOUBLE_EQ(cheap.gain_over_k1, 0);
    // alpha = 100: k = 1 blocks take 0.5 + 102 + 0.5 + 9 = 112, k = 2 blocks 1 + 104 + 1 + 36 = 142.
    const auto slow = ms::choose_k(p, unit_costs(100), 2);
    EXPECT_DOUBLE_EQ(slow.all[0].seconds, 4 * 112.0);
    EXPECT_DOUBLE_EQ(slow.all[1].seconds, 2 * 142.0);
    EXPECT_EQ(slow.best_k, 2);
    EXPECT_DOUBLE_EQ(slow.gain_over_k1, (448.0 - 284.0) / 448.0);
}

TEST(StencilModel, AMeasuredExchangeReplacesTheStartUpTimes) {
    const auto p = slab_problem(4);
    const auto g = ms::rank_geometry(p.n, p.dims, {0, 0, 0});
    // One message of 200 B at k = 1: the measured exchange (50) stands for alpha (10), the transfer stays:
    // comm = 50 + 200 / 100 = 52, beyond the inner 27, so the block takes 0.5 + 52 + 0.5 + 9 = 62.
    auto c = unit_costs(10);
    c.exchange_latency_s = 50;
    const auto t1 = ms::block_times(p, g, c, 1);
    EXPECT_DOUBLE_EQ(t1.comm, 52);
    EXPECT_DOUBLE_EQ(t1.block(), 62);
    // k = 2: 50 + 400 / 100 = 54 against inner 45: 1 + 54 + 1 + 36 = 92 per two steps (46) beats 62.
    const auto ch = ms::choose_k(p, c, 2);
    EXPECT_DOUBLE_EQ(ch.all[1].seconds_per_step, 46);
    EXPECT_EQ(ch.best_k, 2);
    // A rank without neighbours exchanges nothing and pays no start-up.
    auto alone = p;
    alone.dims = {1, 1, 1};
    EXPECT_DOUBLE_EQ(ms::block_times(alone, ms::rank_geometry(alone.n, alone.dims, {0, 0, 0}), c, 1).comm, 0);
}

TEST(StencilModel, ShortLastBlock) {
    // 3 steps at k = 2: one block of 2 sweeps and one of 1.
    const auto p = slab_problem(3);
    const auto t = ms::predict_k(p, unit_costs(10), 2);
    EXPECT_DOUBLE_EQ(t.seconds, 83 + 37);
    EXPECT_THROW(ms::predict_k(p, unit_costs(10), 5), std::invalid_argument);
    EXPECT_THROW(ms::predict_k(p, unit_costs(10), 0), std::invalid_argument);
}

TEST(StencilModel, CompareCountsAHitWithinFivePercent) {
    ms::MeasuredStencil m;
    for (int k = 1; k <= 3; ++k) {
        ms::MeasuredK r;
        r.k = k;
        r.seconds_per_step.min = k == 1 ? 10 : k == 2 ? 9 : 9.3;
        r.seconds_per_step.median = k == 2 ? 20 : 12; // medians do not decide: the fastest repetition does
        m.runs.push_back(r);
    }
    std::vector<ms::KPrediction> pred(3);
    for (int k = 1; k <= 3; ++k) {
        pred[static_cast<std::size_t>(k - 1)].k = k;
        pred[static_cast<std::size_t>(k - 1)].seconds = 10.0 - k; // the model prefers k = 3
    }
    auto c = ms::compare(m, pred);
    EXPECT_EQ(c.best_measured_k, 2);
    EXPECT_EQ(*c.best_predicted_k, 3);
    EXPECT_NEAR(*c.predicted_best_excess, 9.3 / 9 - 1, 1e-12);
    EXPECT_TRUE(*c.hit);
    m.runs[2].seconds_per_step.min = 9.6; // 6.7 % slower than the best
    c = ms::compare(m, pred);
    EXPECT_FALSE(*c.hit);
    EXPECT_FALSE(ms::compare(m, {}).hit.has_value());
}

// The shared-host criterion: the predicted best's fastest repetition against the measured best's slowest.
TEST(StencilModel, CompareJudgesThePredictedBestAgainstTheBestsRepetitions) {
    ms::MeasuredStencil m;
    for (int k = 1; k <= 2; ++k) {
        ms::MeasuredK r;
        r.k = k;
        r.seconds_per_step.min = k == 1 ? 9 : 11;
        r.seconds_per_step.max = k == 1 ? 10 : 12;
        m.runs.push_back(r);
    }
    std::vector<ms::KPrediction> pred(2);
    pred[0].k = 1;
    pred[0].seconds = 2;
    pred[1].k = 2;
    pred[1].seconds = 1; // the model prefers k = 2, measured 22 % slower at its fastest
    auto c = ms::compare(m, pred);
    EXPECT_FALSE(*c.hit);
    EXPECT_TRUE(*c.hit_within_interval); // 11 <= 1.1 x 10, the best's slowest
    m.runs[1].seconds_per_step.min = 11.2;
    c = ms::compare(m, pred);
    EXPECT_FALSE(*c.hit_within_interval);
    pred[1].seconds = 3; // the model now prefers the measured best
    EXPECT_TRUE(*ms::compare(m, pred).hit_within_interval);
    EXPECT_FALSE(ms::compare(m, {}).hit_within_interval.has_value());
}

TEST(StencilModel, RunnerOutputIsChecked) {
    EXPECT_THROW(ms::stencil_run_from_json(nlohmann::json::array(), "x.json"), roofcast::core::InputError);
    nlohmann::json j{{"kernel", "jacobi7"},
                     {"ranks", 2},
                     {"threads", 1},
                     {"steps", 4},
                     {"sweep_overhead_seconds", {{"median", 1e-6}, {"min", 1e-6}, {"max", 2e-6}, {"n", 3}}},
                     {"runs", nlohmann::json::array()}};
    try {
        ms::stencil_run_from_json(j, "x.json");
        FAIL() << "an empty run list was accepted";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "runs");
    }
    // The exchange's start-up: its mean is the model's per-exchange latency; a file without it still reads.
    j["runs"] = {{{"k", 1},
                  {"seconds_per_step", {{"median", 1e-3}, {"min", 1e-3}, {"max", 1e-3}, {"n", 1}}},
                  {"phase_seconds_per_block", nlohmann::json::object()}}};
    for (const auto& ph : ms::k_phase_names)
        j["runs"][0]["phase_seconds_per_block"][ph] = {{"median", 0}, {"min", 0}, {"max", 0}, {"n", 1}};
    EXPECT_FALSE(ms::stencil_run_from_json(j, "x.json").exchange_latency_s.has_value());
    j["exchange_overhead_seconds"] = {
        {"median", 4e-6}, {"min", 3e-6}, {"max", 6e-4}, {"mean", 5.4e-5}, {"n", 41}};
    const auto m = ms::stencil_run_from_json(j, "x.json");
    EXPECT_DOUBLE_EQ(*m.exchange_latency_s, 5.4e-5);
    EXPECT_DOUBLE_EQ(m.exchange_overhead_s->median, 4e-6);
    j["exchange_overhead_seconds"].erase("mean");
    EXPECT_THROW(ms::stencil_run_from_json(j, "x.json"), roofcast::core::InputError);
    j["exchange_overhead_seconds"]["mean"] = 5.4e-5;
    // The time per point measured in place: optional, its median the model's t_cell, and positive.
    EXPECT_FALSE(ms::stencil_run_from_json(j, "x.json").cell_s.has_value());
    j["cell_seconds"] = {{"median", 1.3e-9}, {"min", 1.2e-9}, {"max", 2e-9}, {"mean", 1.4e-9}, {"n", 21}};
    EXPECT_DOUBLE_EQ(ms::stencil_run_from_json(j, "x.json").cell_s->median, 1.3e-9);
    j["cell_seconds"]["median"] = 0;
    try {
        ms::stencil_run_from_json(j, "x.json");
        FAIL() << "a zero time per point was accepted";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "cell_seconds");
    }
    j["cell_seconds"]["median"] = 1.3e-9;
    // The exchange at two widths and around the inner sweep: read into HaloCosts; null (no neighbours)
    // reads as absent; a missing width is named.
    const nlohmann::json sum = {{"median", 5e-6}, {"min", 5e-6}, {"max", 6e-6}, {"mean", 5e-6}, {"n", 21}};
    j["halo_exchange"] = {{"widths",
                           {{{"width", 1}, {"bytes", 8192}, {"seconds", sum}},
                            {{"width", 2}, {"bytes", 16384}, {"seconds", sum}}}},
                          {"inner_seconds", sum},
                          {"overlapped_seconds", sum}};
    const auto h = ms::stencil_run_from_json(j, "x.json").halo;
    ASSERT_TRUE(h.has_value());
    EXPECT_DOUBLE_EQ(h->bytes[1], 16384);
    EXPECT_DOUBLE_EQ(h->fixed_s, 5e-6);
    EXPECT_TRUE(h->overlapped_per_width.empty()); // an older runner's file: the overlap fraction serves
    EXPECT_TRUE(h->added_points().empty());
    // Around the sweep at every width: read; at only some: the first width without it is named.
    j["halo_exchange"]["widths"][0]["overlapped_seconds"] = sum;
    try {
        ms::stencil_run_from_json(j, "x.json");
        FAIL() << "the exchange around the sweep at one width of two was accepted";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "halo_exchange.widths[1].overlapped_seconds");
    }
    j["halo_exchange"]["widths"][1]["overlapped_seconds"] = sum;
    EXPECT_EQ(ms::stencil_run_from_json(j, "x.json").halo->overlapped_per_width.size(), 2u);
    j["halo_exchange"]["widths"][1]["overlapped_sweeps"] = 3;
    EXPECT_EQ(ms::stencil_run_from_json(j, "x.json").halo->overlapped_sweeps, (std::vector<int>{1, 3}));
    j["halo_exchange"]["widths"][1]["overlapped_sweeps"] = 0;
    try {
        ms::stencil_run_from_json(j, "x.json");
        FAIL() << "zero sweeps around the exchange were accepted";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "halo_exchange.widths[1].overlapped_sweeps");
    }
    j["halo_exchange"]["widths"][1].erase("overlapped_sweeps");
    j["halo_exchange"] = nullptr;
    EXPECT_FALSE(ms::stencil_run_from_json(j, "x.json").halo.has_value());
    j["halo_exchange"] = {{"widths", nlohmann::json::array()}};
    try {
        ms::stencil_run_from_json(j, "x.json");
        FAIL() << "an exchange without its widths was accepted";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "halo_exchange.widths");
    }
}

namespace {
// A block's phases for the combination tests: 10 us inner sweep, 4 us exchange, 1 us packing, 2 us shell.
ms::PhaseTimes sample_phases() {
    ms::PhaseTimes t;
    t.inner = 10e-6;
    t.comm = 4e-6;
    t.pack = 1e-6;
    t.boundary = 2e-6;
    return t;
}

// Two slabs of a 32^3 Jacobi, and the first rank's geometry, for block_times with measured inputs.
struct Slab32 {
    ms::StencilProblem p;
    roofcast::model::stencil::RankGeometry g;
};
Slab32 slab32() {
    Slab32 s{slab_problem(2), {}};
    s.p.n = {32, 32, 32};
    s.g = roofcast::model::stencil::rank_geometry(s.p.n, s.p.dims, {0, 0, 0});
    return s;
}

roofcast::core::Summary median_of(double v) {
    roofcast::core::Summary s;
    s.median = s.min = s.max = v;
    s.n = 1;
    return s;
}
} // namespace

TEST(StencilModel, HaloCostsFromTheRunnersExchange) {
    // 8 KiB in 5 us and 16 KiB in 6 us: 1 us per 8192 B, 4 us fixed. The exchange of 5 us and the sweep of
    // 10 us took 12 us together: 3 of the 5 us hid.
    const std::vector<double> bytes{8192, 16384};
    const ms::HaloCosts h =
        ms::halo_costs(bytes, {median_of(5e-6), median_of(6e-6)}, median_of(10e-6), median_of(12e-6));
    EXPECT_NEAR(h.bytes_per_second, 8192e6, 1e-3);
    EXPECT_NEAR(h.fixed_s, 4e-6, 1e-15);
    EXPECT_NEAR(h.overlap, 0.6, 1e-12);
    // Not slower when wider: no per-byte term, the fixed cost is the narrow exchange; the two together took
    // 1 us longer than apart: -1/5 of the shorter.
    const ms::HaloCosts f =
        ms::halo_costs(bytes, {median_of(5e-6), median_of(4.9e-6)}, median_of(10e-6), median_of(16e-6));
    EXPECT_EQ(f.bytes_per_second, 0);
    EXPECT_DOUBLE_EQ(f.fixed_s, 5e-6);
    EXPECT_NEAR(f.overlap, -0.2, 1e-12);
    // One width (2r did not fit the blocks): the fixed cost is all there is.
    const ms::HaloCosts one = ms::halo_costs({8192}, {median_of(5e-6)}, median_of(10e-6), median_of(12e-6));
    EXPECT_EQ(one.bytes_per_second, 0);
    EXPECT_DOUBLE_EQ(one.fixed_s, 5e-6);
}

TEST(StencilModel, WhatTheExchangeAddsAtEachWidth) {
    // Around the 10 us sweep the exchange took 12 us at 8 KiB and 10.5 us at 16 KiB: it added 2 and
    // 0.5 us; a run faster than the sweep alone adds nothing, not a negative time; at 64 KiB (an exchange
    // of 15 us alone) it ran around two sweeps, 21.5 us: 1.5 us added.
    const ms::HaloCosts h = ms::halo_costs(
        {8192, 16384, 32768, 65536}, {median_of(5e-6), median_of(7e-6), median_of(9e-6), median_of(15e-6)},
        median_of(10e-6), median_of(12e-6),
        {median_of(12e-6), median_of(10.5e-6), median_of(9.8e-6), median_of(21.5e-6)}, {1, 1, 1, 2});
    const auto a = h.added_points();
    ASSERT_EQ(a.size(), 4u);
    EXPECT_DOUBLE_EQ(a[0].first, 8192);
    EXPECT_NEAR(a[0].second, 2e-6, 1e-18);
    EXPECT_NEAR(a[1].second, 0.5e-6, 1e-18);
    EXPECT_EQ(a[2].second, 0);
    EXPECT_NEAR(a[3].second, 1.5e-6, 1e-18);
    // Without the sweep counts (a runner that ran one sweep at every width): one each.
    EXPECT_NEAR(
        ms::halo_costs({8192}, {median_of(5e-6)}, median_of(10e-6), median_of(12e-6), {median_of(12e-6)})
            .added_points()[0]
            .second,
        2e-6, 1e-18);
    // A count that does not match the widths is dropped (the overlap fraction serves).
    EXPECT_TRUE(ms::halo_costs({8192, 16384}, {median_of(5e-6), median_of(7e-6)}, median_of(10e-6),
                               median_of(12e-6), {median_of(12e-6)})
                    .added_points()
                    .empty());
}

TEST(StencilModel, BlockWithTheMeasuredAddition) {
    ms::PhaseTimes t = sample_phases();
    t.overlap = 0; // ignored once `added` is known
    t.added = 0.5e-6;
    EXPECT_NEAR(t.block(), 1e-6 + 10.5e-6 + 2e-6, 1e-18); // the wire time hides behind the long sweep
    t.comm = 14e-6;
    EXPECT_NEAR(t.block(), 1e-6 + 14e-6 + 2e-6, 1e-18); // the exchange is longer than sweep + addition
    // block_times reads the addition at the block's message size from the measured widths.
    const auto [p, g] = slab32();
    ms::CostInputs c;
    c.seconds_per_cell = 1e-9;
    c.exchange_points = {{1000, 5e-6}, {1e6, 50e-6}};
    c.exchange_added_points = {{1000, 2e-6}, {1e6, 2e-6}};
    const ms::PhaseTimes b = ms::block_times(p, g, c, 2);
    ASSERT_TRUE(b.added.has_value());
    EXPECT_DOUBLE_EQ(*b.added, 2e-6);
    EXPECT_DOUBLE_EQ(b.block(), std::max(b.inner + 2e-6, b.comm) + b.boundary);
    c.exchange_added_points.clear();
    EXPECT_FALSE(ms::block_times(p, g, c, 2).added.has_value());
}

TEST(StencilModel, ExchangeSecondsFollowsTheMeasuredWidths) {
    const std::vector<std::pair<double, double>> pts{{1000, 2e-6}, {2000, 3e-6}, {4000, 9e-6}};
    EXPECT_DOUBLE_EQ(ms::exchange_seconds(pts, 1500), 2.5e-6);
    EXPECT_DOUBLE_EQ(ms::exchange_seconds(pts, 3000), 6e-6);  // the step between the last two widths
    EXPECT_DOUBLE_EQ(ms::exchange_seconds(pts, 5000), 12e-6); // beyond: along the last segment
    EXPECT_DOUBLE_EQ(ms::exchange_seconds(pts, 500), 1.5e-6); // below: along the first
    EXPECT_DOUBLE_EQ(ms::exchange_seconds(pts, 0), 1e-6);
    EXPECT_DOUBLE_EQ(ms::exchange_seconds({{1000, 2e-6}}, 4000), 2e-6);
    EXPECT_EQ(ms::exchange_seconds({}, 4000), 0);
    EXPECT_EQ(ms::exchange_seconds({{1000, 1e-6}, {2000, 5e-6}}, 10), 0); // never below 0
}

TEST(StencilModel, MeasuredExchangeAddsWhatDoesNotHide) {
    ms::PhaseTimes t = sample_phases();
    t.overlap = 1; // the paper's max(inner, comm)
    EXPECT_NEAR(t.block(), 13e-6, 1e-18);
    t.overlap = 0; // the cores make the copies: nothing hides
    EXPECT_NEAR(t.block(), 17e-6, 1e-18);
    t.overlap = 0.5;
    EXPECT_NEAR(t.block(), 15e-6, 1e-18);
    t.overlap = -1; // together, the shorter's time again
    EXPECT_NEAR(t.block(), 21e-6, 1e-18);
    // With a measured exchange the block's comm is fixed + bytes / rate over the rank's messages, and the
    // copies are inside it.
    const auto [p, g] = slab32();
    ms::CostInputs c;
    c.seconds_per_cell = 1e-9;
    c.exchange_points = {{1000, 4e-6 + 1000 / 8e9}, {1e6, 4e-6 + 1e6 / 8e9}};
    c.overlap = 0;
    c.copy_bytes_per_second = 1e9; // unused with the measured exchange
    const ms::PhaseTimes b = ms::block_times(p, g, c, 2);
    double bytes = 0;
    for (const auto& m : roofcast::model::stencil::halo_messages(g, 2 * roofcast::model::stencil::k_radius))
        bytes += static_cast<double>(m.cells) * 8;
    EXPECT_GT(bytes, 0);
    EXPECT_DOUBLE_EQ(b.comm, 4e-6 + bytes / 8e9);
    EXPECT_EQ(b.pack, 0);
    EXPECT_EQ(b.unpack, 0);
    EXPECT_EQ(b.overlap, 0);
}

TEST(StencilModel, MachineCosts) {
    const auto m =
        roofcast::core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
    auto p = slab_problem(4);
    p.n = {64, 64, 64};
    ms::MachineCostOptions o;
    o.threads = 8;
    o.ranks_per_node = 1;
    // The example machine has no mpi section: the figures must be given.
    try {
        ms::machine_costs(p, m, o);
        FAIL() << "no MPI figures were accepted";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "mpi.alpha_s");
    }
    o.alpha_s = 2e-6;
    o.beta_gbs = 5;
    const auto one = ms::machine_costs(p, m, o);
    EXPECT_DOUBLE_EQ(one.inputs.alpha_s, 2e-6);
    EXPECT_DOUBLE_EQ(one.inputs.beta_bytes_per_second, 5e9);
    EXPECT_GT(one.inputs.seconds_per_cell, 0);
    // Two ranks of 8 threads on 8 cores: the same aggregate rate shared by two ranks.
    o.ranks_per_node = 2;
    const auto two = ms::machine_costs(p, m, o);
    EXPECT_DOUBLE_EQ(two.inputs.seconds_per_cell, 2 * one.inputs.seconds_per_cell);
    EXPECT_DOUBLE_EQ(two.inputs.copy_bytes_per_second, one.inputs.copy_bytes_per_second / 2);
    // A time per point measured by the runner replaces the mixed model's, which the source still quotes.
    o.seconds_per_cell = 0.5 * one.inputs.seconds_per_cell;
    const auto measured = ms::machine_costs(p, m, o);
    EXPECT_DOUBLE_EQ(measured.inputs.seconds_per_cell, 0.5 * one.inputs.seconds_per_cell);
    EXPECT_NE(measured.cell_source.find("measured by roofcast-stencil"), std::string::npos);
    EXPECT_NE(measured.cell_source.find("mixed model"), std::string::npos);
    EXPECT_THROW(ms::element_bytes("heat5"), roofcast::core::InputError);
}
