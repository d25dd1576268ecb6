// The one timing harness of roofcast (google/benchmark and nanobench style): warm-up, calibration
// of the repetition count to a minimum epoch duration, then repeated epochs whose per-call times
// are kept as samples. The clock is injectable so the logic is unit-testable without timing anything.
#pragma once

#include "core/stats.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace roofcast::measure {

// Monotonic clock returning seconds. The default uses std::chrono::steady_clock.
using Clock = std::function<double()>;
Clock steady_clock();

struct HarnessOptions {
    double min_epoch_seconds = 0.01; // calibrate repetitions until one epoch lasts at least this
    int epochs = 7;                  // samples kept
    int warmup_calls = 1;
    std::uint64_t max_repetitions = std::uint64_t{1} << 30;
    // > 0: use this repetition count and skip the calibration (a count calibrated by an earlier call, so
    // that measurements interleaved in rounds keep their epochs alike).
    std::uint64_t fixed_repetitions = 0;
    // Adaptive settling (docs/design.md, "a roof is an attainable bound"): after `epochs`, add epochs
    // until the `settle_best` fastest agree within `settle_tolerance` (relative), or until `max_epochs`
    // epochs or `max_settle_seconds` spent in extra epochs. A quiet host settles after `epochs` and pays
    // nothing; a neighbour's burst only slows epochs, so waiting for the fastest ones to agree finds the
    // bound the host can sustain. 0 = off (exactly `epochs` epochs).
    int settle_best = 0;
    double settle_tolerance = 0.02;
    int max_epochs = 0;
    double max_settle_seconds = 0.0;
};

struct Timing {
    core::Summary seconds_per_call; // one sample per epoch (every epoch, extra ones included)
    std::uint64_t repetitions = 1;  // calls per epoch
    bool settled = true;            // false when settling was asked for and a cap came first
};

// Whether the k smallest values (times: the fastest epochs) agree: k-th smallest <= (1 + tol) x smallest.
// False with fewer than k values; true for k <= 1.
bool best_agree(const std::vector<double>& times, int k, double tolerance);

// Times `body(reps)`, which must perform `reps` calls of the work being measured (so that the loop
// overhead lives inside the body, and threaded bodies can keep one parallel region per epoch).
Timing time_repeated(const std::function<void(std::uint64_t reps)>& body, const HarnessOptions& opt = {},
                     const Clock& clock = steady_clock());

// Times alternatives of one piece of work against each other (an autotuner's choice between variants):
// `warmup_calls` untimed calls of each, then `rounds` rounds in each of which every candidate is called once,
// in turn, so that all of them meet the same minutes of a shared host (a neighbour's burst slows one call of
// each rather than every call of one). Returns each candidate's fastest call in seconds: a burst only slows
// calls, so the fastest is the one the candidate can sustain. Empty for no candidates; rounds < 1 counts
// as 1.
std::vector<double> fastest_interleaved(const std::vector<std::function<void()>>& candidates, int rounds,
                                        int warmup_calls = 1, const Clock& clock = steady_clock());

} // namespace roofcast::measure
