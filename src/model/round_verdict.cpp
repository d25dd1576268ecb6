#include "model/round_verdict.hpp"

#include <algorithm>

namespace roofcast::model {

std::vector<double> round_fractions(const std::vector<double>& times, std::size_t rounds,
                                    const std::vector<double>& probe, double bound_seconds,
                                    double probe_ref) {
    if (rounds == 0 || times.empty() || times.size() % rounds != 0 || probe.size() != rounds ||
        !(bound_seconds > 0) || !(probe_ref > 0))
        return {};
    const std::size_t per = times.size() / rounds;
    std::vector<double> out;
    for (std::size_t r = 0; r < rounds; ++r) {
        const auto first = times.begin() + static_cast<std::ptrdiff_t>(r * per);
        const double best = *std::min_element(first, first + static_cast<std::ptrdiff_t>(per));
        if (!(best > 0) || !(probe[r] > 0))
            return {};
        out.push_back(bound_seconds * (probe_ref / probe[r]) / best);
    }
    return out;
}

} // namespace roofcast::model
