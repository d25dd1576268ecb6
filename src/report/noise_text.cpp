#include "report/noise_text.hpp"

#include "core/machine_noise.hpp"
#include "core/stats.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace roofcast::report {

std::string host_noise_text(const core::Results& r) {
    if (!r.host_noise || r.host_noise->probes.empty())
        return "";
    const core::HostNoise& h = *r.host_noise;
    std::string t = "host noise:";
    bool first = true;
    for (const auto& p : h.probes) {
        t += first ? " " : "; ";
        first = false;
        if (p.gbs.empty()) {
            t += fmt::format("{} probe {}: no epochs", p.kind, p.kernel);
            continue;
        }
        const auto [lo, hi] = std::minmax_element(p.gbs.begin(), p.gbs.end());
        const auto spread = core::interquartile_spread(p.gbs);
        t += fmt::format(
            "{} probe {} {:.1f}-{:.1f} {} over {} epochs (interquartile spread {:.1f} %), floor {:.1f} %",
            p.kind, p.kernel, *lo, *hi, p.kind == "compute" ? "GFLOP/s" : "GB/s", p.gbs.size(),
            100.0 * spread.value_or(0.0), 100.0 * p.floor);
    }
    t += fmt::format("; {} of {} rows moved more than their probe's floor (NOISY).", h.flagged, h.rows);
    t += " Each kernel ran between two probe epochs in every round; its verdicts use its best epochs, and a "
         "row is flagged only when its interquartile spread exceeds what the host did under its probe at the "
         "same moments.";
    return t;
}

std::string host_sharing_text(const core::Results& r) {
    if (!r.host)
        return "";
    const core::HostSharing& h = *r.host;
    if (h.shared)
        return fmt::format(
            "host: shared ({}): each model's predictions are judged against the interval of the "
            "measurement the host allowed, with the error against the point beside it",
            fmt::join(h.reasons, "; "));
    std::vector<std::string> evidence;
    evidence.push_back(h.steal_fraction ? fmt::format("steal time {:.1f} %", 100 * *h.steal_fraction)
                                        : std::string("steal time unknown"));
    if (h.probe_moved)
        evidence.push_back(fmt::format("reference probes within {:.2f}x", *h.probe_moved));
    return fmt::format(
        "host: dedicated as far as the run could tell ({}): accuracy is the error against each "
        "measurement's point",
        fmt::join(evidence, ", "));
}

std::string interval_accuracy_text(const core::AccuracySummary& a) {
    if (a.n_interval == 0)
        return "";
    return fmt::format(
        "{} of {} inside the measured interval, {} ({:.0f} %) inside or at most 10 % beyond, at "
        "most {:.1f} % beyond",
        a.inside_interval, a.n_interval, a.within_tolerance,
        100.0 * static_cast<double>(a.within_tolerance) / static_cast<double>(a.n_interval),
        a.max_beyond_pct.value_or(0.0));
}

bool judged_by_interval(const core::Results& r) {
    return r.host && r.host->shared &&
           std::any_of(r.accuracy.begin(), r.accuracy.end(),
                       [](const core::AccuracySummary& a) { return a.n_interval > 0; });
}

std::string row_spread_text(const core::RowNoise& n) {
    return fmt::format("{:.1f} %", 100.0 * n.spread);
}

std::string row_noise_text(const core::KernelResult& k) {
    if (!k.noise)
        return "";
    return fmt::format("interquartile spread {} {} the {} probe's floor {:.1f} %", row_spread_text(*k.noise),
                       k.noise->flagged() ? "above" : "within", k.noise->probe, 100.0 * k.noise->floor);
}

std::string machine_noise_text(const core::Machine& m) {
    std::vector<std::string> parts;
    for (const auto& k : core::machine_noise_kinds(m))
        parts.push_back(fmt::format("{} {} of {} (floor {:.1f} %{})", k.kind, k.flagged, k.rows,
                                    100 * k.floor, k.own_floor ? "" : ", too few rows for a fence"));
    if (parts.empty())
        return {};
    return fmt::format("noise: NOISY rows by kind: {}. A row is NOISY when the interquartile spread of its "
                       "epochs exceeds its kind's floor: the upper outlier fence of the kind's spreads in "
                       "this run, at least {:.0f} %.",
                       fmt::join(parts, "; "), 100 * core::k_noisy_spread);
}

std::string row_alone_text(const core::Summary& s) {
    std::string t = fmt::format("median of {}", s.n);
    if (const std::string iqr = summary_spread_text(s); !iqr.empty())
        t += ", iqr " + iqr;
    if (s.spread)
        t += fmt::format(" (range {:.1f} %)", 100 * *s.spread);
    if (s.noisy)
        t += fmt::format(", NOISY (iqr above {:.0f} %)", 100 * core::k_noisy_spread);
    return t;
}

std::string summary_spread_text(const core::Summary& s) {
    const auto iqr = core::interquartile_spread_of(s);
    return iqr ? fmt::format("{:.1f} %", 100 * *iqr) : std::string();
}

} // namespace roofcast::report
