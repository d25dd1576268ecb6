// The host's noise during a bench run and the rows that moved more than it (issue 15 §3, issue 22 §6;
// docs/noise.md). Two reference probes, fixed calibration loops, run before every kernel of every round
// (probe, kernel, probe, ...): the memory probe streams from memory, the core probe reads a private cache.
// A row's statistic is the interquartile spread (core::interquartile_spread) of its rates unit by unit
// (rounds, or epochs in a one-round run); a probe's floor is a high quantile, over rows, of the same
// statistic of the probe beside each row, so a row is flagged when it moved more than the host moved under
// the probe at the same moments. Pure functions of their inputs.
#pragma once

#include "core/results.hpp"
#include "core/stats.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace roofcast::model {

// The quantile of the probe's spreads beside the rows that sets the floor: a row behaving like the host
// exceeds it in about one case in ten, a row that moved by itself (or under a burst the probe missed)
// exceeds it by far.
inline constexpr double k_noise_floor_quantile = 0.9;
// The floor's minimum, shared with the machine file's rows (core/stats.hpp).
using core::k_noise_floor_min;

// One probe's epochs: rounds[r][j] is its rate at slot j of round r. Slot j runs just before row j; the
// round's last slot (index rows) runs after its last row.
struct ProbeRounds {
    std::string kind;   // memory | cache | core | compute
    std::string kernel; // the loop used as the probe
    std::vector<std::vector<double>> rounds;
};

// Row and probe are compared unit by unit, with as many units on both sides. With two or more rounds a
// unit is a round: the row's median epoch rate in it, the mean of the two probe epochs around the row in
// it, so a drift between rounds that both see moves both alike and a hiccup of one epoch moves neither.
// With one round a unit is an epoch: the row's epochs, and the probe epochs at the row's slot and the
// next ones, as many as the row has epochs (fewer at the end of the round).
std::vector<double> row_units(const std::vector<double>& times, std::size_t rounds);
// A row's epochs (in the order run) cut into `rounds` rounds of equal length; empty when rounds is 0 or
// the count does not divide evenly.
std::vector<std::vector<double>> split_rounds(const std::vector<double>& epochs, std::size_t rounds);
std::vector<double> probe_units(const ProbeRounds& p, std::size_t row, std::size_t epochs_per_round);

// The floor of one probe over `rows` rows: the k_noise_floor_quantile quantile of the interquartile spread
// of probe_units(p, row, epochs_per_round), at least k_noise_floor_min (k_noise_floor_min when no row has
// two units).
double noise_floor(const ProbeRounds& p, std::size_t rows, std::size_t epochs_per_round);

// The probe a row is compared with is the kind of the level that bounds it (core::machine_noise_kind):
// "memory" for MEM and for a cache level shared by several cores (neighbours contend for both), "core" for
// private levels and "compute".

// Compares every row (whose measured_seconds hold its epochs in the order run, `rounds` rounds of equal
// length) with the floor of the probe of kinds[i];
// a row whose kind has no probe uses the first probe. Sets each row's RowNoise and the `noisy` flag of its
// measured summaries; returns the run's HostNoise (every probe epoch in order, the floors, the counts).
// No probes: rows are left as they are and the result has no probes.
// `epochs`, when not empty, holds each row's epochs of the rounds (one vector per row) in place of its
// measured_seconds samples: a row measured again after the rounds (experiment/round_settle.hpp) is compared
// with its probe over the rounds alone.
core::HostNoise assess_noise(std::vector<core::KernelResult>& rows, const std::vector<std::string>& kinds,
                             const std::vector<ProbeRounds>& probes, std::size_t rounds,
                             const std::vector<std::vector<double>>& epochs = {});

} // namespace roofcast::model
