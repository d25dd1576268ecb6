#include "model/round_verdict.hpp"

#include "model/noise.hpp"

#include <algorithm>

namespace roofcast::model {

std::vector<double> round_fractions(const std::vector<double>& times, std::size_t rounds,
                                    const std::vector<double>& probe, double bound_seconds,
                                    double probe_ref) {
    const auto per_round = split_rounds(times, rounds);
    if (per_round.empty() || probe.size() != rounds || !(bound_seconds > 0) || !(probe_ref > 0))
        return {};
    std::vector<double> out;
    for (std::size_t r = 0; r < rounds; ++r) {
        const double best = *std::min_element(per_round[r].begin(), per_round[r].end());
        if (!(best > 0) || !(probe[r] > 0))
            return {};
        out.push_back(bound_seconds * (probe_ref / probe[r]) / best);
    }
    return out;
}

} // namespace roofcast::model
