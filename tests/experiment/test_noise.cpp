// The host noise floor and the NOISY flag (experiment/noise.hpp) on synthetic sample streams: a steady host,
// a host whose bandwidth drifts between rounds (rows and probe alike), a neighbour's burst on one row, and a
// quiet core probe beside a noisy memory probe. Streams come from a seeded generator, so every count below
// is exact for this input; the bounds state what the statistic promises (about one row in ten of a host
// that only jitters).
#include "core/machine_noise.hpp"
#include "experiment/noise.hpp"
#include "tiny_machine.hpp"

#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::model;

namespace {

constexpr std::size_t k_rows = 70;
constexpr std::size_t k_rounds = 3;
constexpr int k_epochs = 3; // per row and round, as in a default bench run

// Relative factor of one epoch: 1 + jitter x N(0, 1), from a fixed seed.
struct Jitter {
    std::mt19937 gen{12345};
    std::normal_distribution<double> n{0.0, 1.0};
    double operator()(double jitter) { return 1.0 + jitter * n(gen); }
};

// host(round, slot): the host's relative speed at that moment (1 = undisturbed). Rows take 1 ms per call
// at full speed, the probe runs at 50 GB/s; both slow down with the host and jitter by `jitter`.
template <class Host>
void simulate(std::vector<core::KernelResult>& rows, ProbeRounds& probe, double jitter, Host host,
              Jitter& rng, std::size_t rounds = k_rounds) {
    rows.assign(k_rows, {});
    probe.rounds.assign(rounds, {});
    std::vector<std::vector<double>> samples(k_rows);
    for (std::size_t r = 0; r < rounds; ++r) {
        for (std::size_t i = 0; i <= k_rows; ++i) {
            probe.rounds[r].push_back(50.0 * host(r, i) * rng(jitter));
            if (i == k_rows)
                break;
            for (int e = 0; e < k_epochs; ++e)
                samples[i].push_back(1e-3 / (host(r, i) * rng(jitter)));
        }
    }
    for (std::size_t i = 0; i < k_rows; ++i) {
        rows[i].measured_seconds = *core::summarize(samples[i]);
        rows[i].measured_gflops = core::rate_from_times(*rows[i].measured_seconds, 1e-3);
    }
}

ProbeRounds probe_of(const std::string& kind) {
    ProbeRounds p;
    p.kind = kind;
    p.kernel = "calib-probe";
    return p;
}

// One simulated run: k_rows rows and one probe of `kind`, from a generator of its own.
struct Simulated {
    std::vector<core::KernelResult> rows;
    ProbeRounds probe;
    std::size_t rounds = k_rounds;
};

template <class Host>
Simulated simulated(double jitter, Host host, std::size_t rounds = k_rounds,
                    const std::string& kind = "memory") {
    Jitter rng;
    Simulated s{{}, probe_of(kind), rounds};
    simulate(s.rows, s.probe, jitter, host, rng, rounds);
    return s;
}

const auto steady = [](std::size_t, std::size_t) { return 1.0; };

// Every row of `s` judged by its one probe.
core::HostNoise assess_all(Simulated& s) {
    return assess_noise(s.rows, std::vector<std::string>(k_rows, s.probe.kind), {s.probe}, s.rounds);
}

} // namespace

TEST(Noise, UnitsAreRoundsWithSeveralRoundsAndEpochsWithOne) {
    ProbeRounds p = probe_of("memory");
    p.rounds = {{1, 3, 5}, {7, 9, 11}};
    EXPECT_EQ(probe_units(p, 0, 3), (std::vector<double>{2, 8})); // mean of the slots around row 0
    EXPECT_EQ(probe_units(p, 1, 3), (std::vector<double>{4, 10}));
    EXPECT_EQ(probe_units(p, 2, 3), (std::vector<double>{5, 11})); // no slot after: the round was cut short
    ProbeRounds one = probe_of("core");
    one.rounds = {{1, 2, 3, 4, 5}};
    EXPECT_EQ(probe_units(one, 1, 3), (std::vector<double>{2, 3, 4})); // as many as the row's epochs
    EXPECT_EQ(probe_units(one, 3, 3), (std::vector<double>{4, 5}));
    // Times 0.5, 0.25, 1 s per call in three rounds of two epochs: rates 2, 2 | 4, 4 | 1, 1.
    const std::vector<double> times{0.5, 0.5, 0.25, 0.25, 1.0, 1.0};
    EXPECT_EQ(row_units(times, 3), (std::vector<double>{2, 4, 1}));
    EXPECT_EQ(row_units(times, 1), (std::vector<double>{2, 2, 4, 4, 1, 1}));
    EXPECT_EQ(row_units({0.5, 0.5, 0.25}, 2), (std::vector<double>{2, 2, 4})); // uneven: epochs
}

TEST(Noise, FloorIsAHighQuantileOfTheProbeSpreadBesideEachRowAndAtLeastTheMinimum) {
    ProbeRounds quiet = probe_of("core");
    quiet.rounds = {std::vector<double>(11, 100.0), std::vector<double>(11, 100.0)};
    EXPECT_DOUBLE_EQ(noise_floor(quiet, 10, 3), k_noise_floor_min);
    ProbeRounds empty = probe_of("core");
    EXPECT_DOUBLE_EQ(noise_floor(empty, 10, 3), k_noise_floor_min);
    // Round 2 at 80 % of round 1 beside every row: units {100, 80}, Q1 85, median 90, Q3 95, so every
    // row's probe spread is 10 / 90.
    ProbeRounds drift = probe_of("memory");
    drift.rounds = {std::vector<double>(11, 100.0), std::vector<double>(11, 80.0)};
    EXPECT_NEAR(noise_floor(drift, 10, 3), 10.0 / 90.0, 1e-12);
}

TEST(Noise, SteadyHostFlagsAboutOneRowInTen) {
    Simulated run = simulated(0.02, steady);
    const core::HostNoise h = assess_all(run);
    EXPECT_EQ(h.rows, k_rows);
    EXPECT_LE(h.flagged, k_rows / 5); // the floor is the probe's 90th percentile: ~10 % of such rows
    ASSERT_EQ(h.probes.size(), 1u);
    EXPECT_EQ(h.probes[0].gbs.size(), k_rounds * (k_rows + 1));
    EXPECT_GT(h.probes[0].floor, k_noise_floor_min);
}

TEST(Noise, OneRoundComparesEpochsAndStillFlagsFewRowsOfASteadyHost) {
    Simulated run = simulated(0.02, steady, 1);
    const core::HostNoise h = assess_all(run);
    EXPECT_EQ(h.rows, k_rows);
    EXPECT_LE(h.flagged, k_rows / 5);
}

TEST(Noise, DriftBetweenRoundsThatRowsAndProbeShareIsNotFlagged) {
    // The host loses 20 % of its bandwidth per round: every row's spread is far above a fixed 5 %, and the
    // old flag marked all of them; the probe saw the same drift at the same moments.
    Simulated run = simulated(
        0.01, [](std::size_t round, std::size_t) { return 1.0 - 0.2 * static_cast<double>(round); });
    std::size_t fixed_flags = 0;
    for (const auto& r : run.rows)
        fixed_flags += r.measured_seconds->noisy; // summarize(): spread > core::k_noisy_spread
    EXPECT_EQ(fixed_flags, k_rows);
    EXPECT_LE(assess_all(run).flagged, k_rows / 5);
}

TEST(Noise, ABurstOnOneRowThatTheProbeDidNotSeeIsFlagged) {
    Simulated run = simulated(0.01, steady);
    auto& rows = run.rows;
    // A neighbour took 40 % of the bandwidth during two of row 7's three rounds (6 of its 9 epochs).
    auto s = rows[7].measured_seconds->samples;
    for (std::size_t e = 3; e < s.size(); ++e)
        s[e] /= 0.6;
    rows[7].measured_seconds = *core::summarize(s);
    rows[7].measured_gflops = core::rate_from_times(*rows[7].measured_seconds, 1e-3);
    const core::HostNoise h = assess_all(run);
    ASSERT_TRUE(rows[7].noise);
    EXPECT_TRUE(rows[7].noise->flagged());
    EXPECT_TRUE(rows[7].measured_seconds->noisy);
    EXPECT_TRUE(rows[7].measured_gflops->noisy);
    EXPECT_GT(rows[7].noise->spread, 10 * rows[7].noise->floor);
    EXPECT_GE(h.flagged, 1u);
    // One slow epoch of nine on another row (a hiccup) does not move its spread.
    auto t = rows[20].measured_seconds->samples;
    t[4] *= 3.0;
    std::vector<core::KernelResult> one(1);
    one[0].measured_seconds = *core::summarize(t);
    assess_noise(one, {"memory"}, {run.probe}, k_rounds);
    EXPECT_FALSE(one[0].noise->flagged());
    EXPECT_NEAR(one[0].noise->spread, rows[20].noise->spread, 0.01);
}

TEST(Noise, EachRowIsJudgedByTheProbeOfItsBound) {
    // Memory jitters by 8 %, the core by 0.2 %: a 5 % row is normal beside memory and flagged beside the
    // core.
    const Simulated mem = simulated(0.08, steady, k_rounds, "memory");
    const Simulated core_run = simulated(0.002, steady, k_rounds, "core");
    const std::vector<double> five{1.0, 1.0, 1.0, 1.05, 1.05, 1.05, 0.95, 0.95, 0.95}; // rounds 5 % apart
    std::vector<core::KernelResult> two(2);
    for (auto& r : two)
        r.measured_seconds = *core::summarize(five);
    assess_noise(two, {"memory", "core"}, {mem.probe, core_run.probe}, k_rounds);
    ASSERT_TRUE(two[0].noise && two[1].noise);
    EXPECT_EQ(two[0].noise->probe, "memory");
    EXPECT_FALSE(two[0].noise->flagged());
    EXPECT_EQ(two[1].noise->probe, "core");
    EXPECT_DOUBLE_EQ(two[1].noise->floor, k_noise_floor_min);
    EXPECT_TRUE(two[1].noise->flagged());
}

TEST(Noise, ARowWhoseKindHasNoProbeUsesTheFirstAndNoProbesLeaveRowsAlone) {
    ProbeRounds mem = probe_of("memory");
    mem.rounds = {{50, 50, 50}};
    std::vector<core::KernelResult> rows(2);
    for (auto& r : rows)
        r.measured_seconds = *core::summarize({1.0, 1.2, 1.0});
    const bool before = rows[0].measured_seconds->noisy;
    EXPECT_TRUE(assess_noise(rows, {"core", "core"}, {}, 1).probes.empty());
    EXPECT_FALSE(rows[0].noise);
    EXPECT_EQ(rows[0].measured_seconds->noisy, before);
    const core::HostNoise h = assess_noise(rows, {"core", "memory"}, {mem}, 1);
    EXPECT_EQ(rows[0].noise->probe, "memory");
    EXPECT_EQ(h.rows, 2u);
    EXPECT_THROW(assess_noise(rows, {"core"}, {mem}, 1), std::invalid_argument);
}

TEST(Noise, RoundEpochsGivenApartLeaveOutEpochsMeasuredAfterTheRounds) {
    // A row measured again after its three rounds (settling) carries twelve samples; judged on the nine of
    // its rounds it gets the spread of a row that has only those nine.
    const Simulated run = simulated(0.02, steady);
    const std::vector<double> rounds_only = run.rows[5].measured_seconds->samples;
    std::vector<double> with_extra = rounds_only;
    with_extra.insert(with_extra.end(), {5e-3, 5e-3, 5e-3});
    std::vector<core::KernelResult> alone(1), extra(1);
    alone[0].measured_seconds = *core::summarize(rounds_only);
    extra[0].measured_seconds = *core::summarize(with_extra);
    assess_noise(alone, {"memory"}, {run.probe}, k_rounds);
    assess_noise(extra, {"memory"}, {run.probe}, k_rounds, {rounds_only});
    ASSERT_TRUE(alone[0].noise && extra[0].noise);
    EXPECT_DOUBLE_EQ(extra[0].noise->spread, alone[0].noise->spread);
    EXPECT_THROW(assess_noise(extra, {"memory"}, {run.probe}, k_rounds, {rounds_only, rounds_only}),
                 std::invalid_argument);
}

TEST(Noise, ProbeKindFollowsTheSharingOfTheBoundingLevel) {
    // The bench rows' probe is the machine rows' kind (core::machine_noise_kind): one rule for both.
    core::Machine m = test::tiny_machine();
    m.topology->cores = 2;
    m.topology->caches[2].shared_by_cores = 2; // L3 shared by both cores
    EXPECT_EQ(core::machine_noise_kind(m, "MEM"), "memory");
    EXPECT_EQ(core::machine_noise_kind(m, "L3"), "memory");
    EXPECT_EQ(core::machine_noise_kind(m, "L2"), "core");
    EXPECT_EQ(core::machine_noise_kind(m, "compute"), "core");
    // A hand-written file without caches in its topology: the last of three sized levels is shared.
    m.topology->caches.clear();
    for (auto& l : m.levels)
        if (l.name != "MEM")
            l.size_bytes = 1u << 20;
    ASSERT_GE(m.levels.size(), 4u);
    EXPECT_EQ(core::machine_noise_kind(m, m.levels[m.levels.size() - 2].name), "memory");
    EXPECT_EQ(core::machine_noise_kind(m, m.levels[1].name), "core");
}
