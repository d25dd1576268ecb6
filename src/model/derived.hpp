// Derived rates of a kernel: FLOP/s, B/s per level and arithmetic intensity, all computed from the
// kernel's one declaration (flops per iteration, bytes per iteration per level from derive_traffic)
// and a time per iteration. Contract: every place that turns a declaration into a rate (models,
// benchmark suite, reports) calls these functions, so the arithmetic exists once.
#pragma once

#include "core/stats.hpp"

#include <map>
#include <optional>
#include <string>

namespace roofcast::model {

// flops / bytes; nullopt when bytes are zero (an intensity is undefined then, not infinite).
std::optional<double> intensity(double flops, double bytes);

struct Rates {
    double gflops = 0;                                      // 1e-9 * flops / seconds
    std::map<std::string, double> gbs;                      // per level: 1e-9 * bytes / seconds
    std::map<std::string, std::optional<double>> intensity; // per level: flops / bytes
};

// seconds_per_iteration must be > 0 (std::invalid_argument otherwise).
Rates derive_rates(double flops_per_iteration, const std::map<std::string, double>& bytes_per_iteration,
                   double seconds_per_iteration);

// The same from repeated measurements: every sample of time becomes a sample of rate, so the rates
// keep their spread (core::rate_from_times). seconds_per_iteration needs samples.
struct RateSummaries {
    core::Summary gflops;
    std::map<std::string, core::Summary> gbs;
    std::map<std::string, std::optional<double>> intensity;
};
RateSummaries derive_rates(double flops_per_iteration,
                           const std::map<std::string, double>& bytes_per_iteration,
                           const core::Summary& seconds_per_iteration);

} // namespace roofcast::model
