#include "experiment/round_verdict.hpp"

#include "experiment/noise.hpp"
#include "model/overlap.hpp"

#include <algorithm>

namespace roofcast::model {

std::vector<double> round_fractions_of_terms(const std::vector<double>& times, std::size_t rounds,
                                             const std::vector<ProbedTerm>& data,
                                             const std::optional<ProbedTerm>& compute,
                                             std::optional<double> p, std::optional<double> q,
                                             const CacheOverlap& cache) {
    const auto per_round = split_rounds(times, rounds);
    if (per_round.empty())
        return {};
    auto usable = [&](const ProbedTerm& t) {
        return t.probe.size() == rounds && t.probe_ref > 0 &&
               std::all_of(t.probe.begin(), t.probe.end(), [](double u) { return u > 0; });
    };
    bool any = false;
    for (const auto& t : data) {
        if (t.seconds > 0 && !usable(t))
            return {};
        any = any || t.seconds > 0;
    }
    const bool with_compute = compute && compute->seconds > 0;
    if (with_compute && !usable(*compute))
        return {};
    if (!any && !with_compute)
        return {};
    std::vector<double> out;
    for (std::size_t r = 0; r < rounds; ++r) {
        const double best = *std::min_element(per_round[r].begin(), per_round[r].end());
        if (!(best > 0))
            return {};
        std::vector<double> scaled;
        for (const auto& t : data)
            if (t.seconds > 0)
                scaled.push_back(t.seconds * (t.probe_ref / t.probe[r]));
        const double t_c = with_compute ? compute->seconds * (compute->probe_ref / compute->probe[r]) : 0.0;
        out.push_back(mixed_time(scaled, t_c, p, q, cache) / best);
    }
    return out;
}

std::vector<double> round_fractions(const std::vector<double>& times, std::size_t rounds,
                                    const std::vector<double>& probe, double bound_seconds,
                                    double probe_ref) {
    // One term, the whole bound, under one probe: the terms' form with nothing to combine.
    return round_fractions_of_terms(times, rounds, {{bound_seconds, probe, probe_ref}}, std::nullopt,
                                    std::nullopt, std::nullopt);
}

} // namespace roofcast::model
