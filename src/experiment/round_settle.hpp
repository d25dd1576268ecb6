// Extra rounds for the kernels whose best epoch has not settled (issue 22 §1 and §4, docs/noise.md).
// A roof is the best the host sustained over the run's window; a kernel measured in one short stretch of a
// shared host may have met a neighbour in every epoch, so its best time (and with it its fraction of the
// bound and the model's error) depends on the minute. After the run's rounds, a kernel whose two fastest
// rounds do not agree within k_round_settle_tolerance is run again, alone, in one more round, until they do
// or a cap (rounds, and time against the first pass) comes first. A kernel that settled pays nothing; the
// rounds the suite ran for every kernel keep their layout for the noise statistics (experiment/noise.hpp).
// Pure functions; the loop that runs the kernels is model::run_bench.
#pragma once

#include <cstddef>
#include <vector>

namespace roofcast::model {

// Two rounds whose best epochs agree within 3 %: a neighbour slows epochs, so two separate moments reaching
// the same best time have found what the host allows. The same tolerance as the machine run's settling
// (measure::HarnessOptions) would ask for more agreement than two rounds of a memory-bound kernel give on
// a quiet host.
inline constexpr double k_round_settle_tolerance = 0.03;
inline constexpr int k_round_settle_best = 2;

struct RoundSettleCap {
    int max_extra_rounds = 4;
    // Extra rounds stop once they have taken this share of the first pass's time (the run's rounds).
    double max_time_share = 1.0;
};

// The cap of a run: quick runs (one round) get up to three extra rounds and as much time again as their
// pass; default runs (three rounds) up to four extra rounds and half their pass.
RoundSettleCap round_settle_cap(bool quick);

// Whether a kernel's rounds settled: `round_best` holds its best epoch time (seconds) in each round so far.
bool round_settled(const std::vector<double>& round_best);

// The kernels (indices into `round_best`, in suite order) that need another round.
std::vector<std::size_t> unsettled_kernels(const std::vector<std::vector<double>>& round_best);

// Whether another extra round may start after `extra_rounds` extra rounds that took `extra_seconds`, the
// run's own rounds having taken `pass_seconds`.
bool another_round(const RoundSettleCap& cap, int extra_rounds, double extra_seconds, double pass_seconds);

} // namespace roofcast::model
