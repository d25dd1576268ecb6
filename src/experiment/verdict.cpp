#include "experiment/verdict.hpp"

#include "core/stats.hpp"
#include "experiment/diagnosis.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <vector>

namespace roofcast::model {

namespace {

const char* probe_resource(const std::string& kind) {
    if (kind == "memory")
        return "bandwidth from memory";
    if (kind == "cache")
        return "bandwidth of the shared cache";
    if (kind == "compute")
        return "the compute probe's rate";
    return "the core probe's rate";
}

} // namespace

std::optional<core::Verdict> kernel_verdict(const core::KernelResult& k, double threshold,
                                            std::optional<double> probe_moved, const std::string& probe) {
    core::Verdict v;
    v.threshold = threshold;
    if (probe_moved && std::isfinite(*probe_moved) && *probe_moved >= 1) {
        v.probe_moved = probe_moved;
        v.probe = probe;
    }
    // The epochs: f_e = T_bound / t_e, from the median epoch to the best.
    const core::Prediction* p = bound_prediction(k);
    if (!p || !k.measured_seconds || k.iterations <= 0 || !(p->seconds_per_iteration > 0))
        return std::nullopt;
    const double bound = p->seconds_per_iteration * k.iterations;
    std::vector<double> f;
    for (const double t : k.measured_seconds->samples)
        if (std::isfinite(t) && t > 0)
            f.push_back(bound / t);
    if (f.empty() && k.measured_seconds->min > 0)
        f.push_back(bound / k.measured_seconds->min);
    if (f.empty())
        return std::nullopt;
    std::sort(f.begin(), f.end());
    v.basis = f.size() >= 2 ? "epochs" : "one epoch";
    v.fraction = f.back();
    v.lo = std::min(*core::median(f), f.back());
    v.hi = f.back();
    // The rounds against their probes widen it: [min f_r, max f_r] holds the rounds' median with
    // probability 1 - 2 x 0.5^n.
    std::vector<double> r;
    for (const double x : k.bound_fraction_rounds)
        if (std::isfinite(x) && x > 0)
            r.push_back(x);
    if (r.size() >= 2) {
        const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
        v.basis = "epochs and rounds";
        v.lo = std::min(v.lo, *lo);
        v.hi = std::max(v.hi, *hi);
        v.confidence = 1.0 - 2.0 * std::pow(0.5, static_cast<double>(r.size()));
    }
    v.state = verdict_state(v.lo, v.hi, threshold);
    return v;
}

const char* verdict_state(double lo, std::optional<double> hi, double threshold) {
    return lo >= threshold ? "at-bound" : hi && *hi < threshold ? "below" : "undetermined";
}

std::string undetermined_text(const core::Verdict& v) {
    std::string s = fmt::format("its fraction of the bound spans {:.0f}-{:.0f} % over its {}", 100 * v.lo,
                                100 * v.hi, v.basis == "one epoch" ? "epoch" : v.basis);
    s += fmt::format(", on both sides of {:.0f} %", 100 * v.threshold);
    if (v.probe_moved)
        s += fmt::format("; {} moved {:.2f}x during its rounds", probe_resource(v.probe), *v.probe_moved);
    return s;
}

} // namespace roofcast::model
