#include "model/derived.hpp"

#include "core/units.hpp"

#include <stdexcept>

namespace roofcast::model {

std::optional<double> intensity(double flops, double bytes) {
    if (!(bytes > 0))
        return std::nullopt;
    return flops / bytes;
}

Rates derive_rates(double flops_per_iteration, const std::map<std::string, double>& bytes_per_iteration,
                   double seconds_per_iteration) {
    if (!(seconds_per_iteration > 0))
        throw std::invalid_argument("derive_rates: seconds per iteration must be positive");
    Rates r;
    r.gflops = flops_per_iteration / seconds_per_iteration / core::k_giga;
    for (const auto& [level, bytes] : bytes_per_iteration) {
        r.gbs[level] = bytes / seconds_per_iteration / core::k_giga;
        r.intensity[level] = intensity(flops_per_iteration, bytes);
    }
    return r;
}

RateSummaries derive_rates(double flops_per_iteration,
                           const std::map<std::string, double>& bytes_per_iteration,
                           const core::Summary& seconds_per_iteration) {
    if (seconds_per_iteration.samples.empty())
        throw std::invalid_argument("derive_rates: the time summary carries no samples");
    for (double t : seconds_per_iteration.samples)
        if (!(t > 0))
            throw std::invalid_argument("derive_rates: every time sample must be positive");
    RateSummaries r;
    // rate_from_times turns every time sample t into work / t; dividing the work by 1e9 gives G-units.
    r.gflops = core::rate_from_times(seconds_per_iteration, flops_per_iteration / core::k_giga);
    for (const auto& [level, bytes] : bytes_per_iteration) {
        r.gbs[level] = core::rate_from_times(seconds_per_iteration, bytes / core::k_giga);
        r.intensity[level] = intensity(flops_per_iteration, bytes);
    }
    return r;
}

} // namespace roofcast::model
