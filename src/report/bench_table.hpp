// Text report of `roofcast bench` (pure: a BenchReport in, text out; golden-tested). One row per
// kernel: measured GFLOP/s (median, min..max, n) and memory-side GB/s, a NOISY flag when the spread
// exceeds core::k_noisy_spread, each model's predicted GFLOP/s with its error (a '*' marks a prediction
// outside the model's validity), and the mixed model's bottleneck. Then the calibration (when run), the
// accuracy summary per model, and the mixed family's predicted vs measured memory->cache switch.
#pragma once

#include "experiment/bench.hpp"

#include <string>

namespace roofcast::report {

std::string format_bench_table(const model::BenchReport& r);

} // namespace roofcast::report
