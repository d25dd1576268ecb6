// The one timing harness of roofcast (google/benchmark and nanobench style): warm-up, calibration
// of the repetition count to a minimum epoch duration, then repeated epochs whose per-call times
// are kept as samples. The clock is injectable so the logic is unit-testable without timing anything.
#pragma once

#include "core/stats.hpp"

#include <chrono>
#include <cstdint>
#include <functional>

namespace roofcast::measure {

// Monotonic clock returning seconds. The default uses std::chrono::steady_clock.
using Clock = std::function<double()>;
Clock steady_clock();

struct HarnessOptions {
    double min_epoch_seconds = 0.01; // calibrate repetitions until one epoch lasts at least this
    int epochs = 7;                  // samples kept
    int warmup_calls = 1;
    std::uint64_t max_repetitions = std::uint64_t{1} << 30;
};

struct Timing {
    core::Summary seconds_per_call; // one sample per epoch
    std::uint64_t repetitions = 1;  // calls per epoch
};

// Times `body(reps)`, which must perform `reps` calls of the work being measured (so that the loop
// overhead lives inside the body, and threaded bodies can keep one parallel region per epoch).
Timing time_repeated(const std::function<void(std::uint64_t reps)>& body, const HarnessOptions& opt = {},
                     const Clock& clock = steady_clock());

} // namespace roofcast::measure
