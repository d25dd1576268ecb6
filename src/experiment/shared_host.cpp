#include "experiment/shared_host.hpp"

#include "core/stats.hpp"
#include "experiment/diagnosis.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::model {

core::HostSharing judge_host(std::optional<double> steal_fraction,
                             const std::optional<core::HostNoise>& noise, const core::Machine& machine) {
    core::HostSharing h;
    h.steal_fraction = steal_fraction;
    if (steal_fraction && *steal_fraction >= k_shared_steal)
        h.reasons.push_back(fmt::format("steal time {:.1f} % of the run", 100 * *steal_fraction));
    if (noise) {
        std::string moved_kind;
        for (const auto& p : noise->probes) {
            std::vector<double> g;
            for (const double v : p.gbs)
                if (std::isfinite(v) && v > 0)
                    g.push_back(v);
            if (g.size() < 2)
                continue;
            const auto [lo, hi] = std::minmax_element(g.begin(), g.end());
            if (!h.probe_moved || *hi / *lo > *h.probe_moved) {
                h.probe_moved = *hi / *lo;
                moved_kind = p.kind;
            }
        }
        if (h.probe_moved && *h.probe_moved >= k_shared_probe_moved)
            h.reasons.push_back(fmt::format("the {} probe moved {:.2f}x", moved_kind, *h.probe_moved));
    }
    for (const auto& c : machine.ceilings)
        if (core::split_groups(c.gflops.samples)) {
            h.reasons.push_back(fmt::format("the {} {} {} ceiling's samples fell in two groups ({} thread{})",
                                            c.precision, c.isa, c.op, c.threads, c.threads == 1 ? "" : "s"));
            break;
        }
    h.shared = !h.reasons.empty();
    return h;
}

std::optional<double> beyond_interval(const core::KernelResult& k, const core::Prediction& p) {
    const core::Prediction* bound = bound_prediction(k);
    if (!k.verdict || !bound || !(bound->seconds_per_iteration > 0) || !(p.seconds_per_iteration > 0) ||
        !(k.verdict->lo > 0) || !(k.verdict->hi >= k.verdict->lo))
        return std::nullopt;
    // The verdict's fractions are f = T_bound / t, so the measured rate spans [lo, hi] / T_bound and p's
    // predicted rate is 1 / T_p; the distance is taken in rate, from the interval's nearer end.
    const double r = bound->seconds_per_iteration / p.seconds_per_iteration; // T_bound / T_p
    if (r > k.verdict->hi)
        return r / k.verdict->hi - 1.0;
    if (r < k.verdict->lo)
        return 1.0 - r / k.verdict->lo;
    return 0.0;
}

void add_interval_accuracy(std::vector<core::AccuracySummary>& accuracy,
                           const std::vector<core::KernelResult>& scored) {
    for (auto& a : accuracy) {
        a.n_interval = a.inside_interval = a.within_tolerance = 0;
        a.max_beyond_pct.reset();
        for (const auto& k : scored)
            for (const auto& p : k.predictions) {
                if (p.model != a.model || !p.valid)
                    continue;
                const std::optional<double> beyond = beyond_interval(k, p);
                if (!beyond)
                    continue;
                ++a.n_interval;
                a.inside_interval += *beyond == 0.0;
                a.within_tolerance += *beyond <= k_beyond_tolerance;
                a.max_beyond_pct = std::max(a.max_beyond_pct.value_or(0.0), 100.0 * *beyond);
            }
    }
}

} // namespace roofcast::model
