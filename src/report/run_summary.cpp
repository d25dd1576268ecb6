#include "report/run_summary.hpp"

#include "model/model.hpp"
#include "report/diagnosis_text.hpp"
#include "report/format.hpp"
#include "report/noise_text.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report {

namespace {
// The registered models by summary preference (mixed, hierarchical, cache-aware, roofline).
std::vector<std::string> summary_order() {
    std::vector<std::string> names;
    for (const auto* m : model::summary_order())
        names.emplace_back(m->name);
    return names;
}
// Bytes per iteration at the farthest level that moves data, the level measured_gbs refers to (level
// names L1 < L2 < L3 < MEM sort in hierarchy order).
double farthest_level_bytes(const core::KernelResult& k) {
    for (auto it = k.bytes_per_iteration.rbegin(); it != k.bytes_per_iteration.rend(); ++it)
        if (it->second > 0)
            return it->second;
    return 0;
}

int reading_group(const core::KernelResult& k) {
    if (k.suite == "calibrate" || k.role == "calibration")
        return 3;
    if (k.suite == "apps" || k.suite == "user")
        return 0;
    if (k.suite == "stream")
        return 1;
    return 2; // the mixed family and any other suite
}

} // namespace

const core::Prediction* summary_prediction(const core::KernelResult& k) {
    static const std::vector<std::string> k_model_order = summary_order();
    for (const auto& model : k_model_order)
        for (const auto& p : k.predictions)
            if (p.model == model && p.valid)
                return &p;
    return k.predictions.empty() ? nullptr : &k.predictions.front();
}

std::string RowRates::text(double rate) const {
    return by_bytes ? gbs_text(rate) : gflops_text(rate);
}

std::string RowRates::range_text() const {
    if (!measured)
        return "-";
    // "10.1..16.8 GB/s" where both ends take the same prefix, else "850 MFLOP/s..1.20 GFLOP/s".
    const std::string lo = text(measured->min), hi = text(measured->max);
    const auto lo_space = lo.find(' '), hi_space = hi.find(' ');
    if (lo_space != std::string::npos && hi_space != std::string::npos &&
        lo.substr(lo_space) == hi.substr(hi_space))
        return lo.substr(0, lo_space) + ".." + hi;
    return lo + ".." + hi;
}

RowRates row_rates(const core::KernelResult& k) {
    RowRates r;
    r.by_bytes = k.flops_per_iteration <= 0 && !k.bytes_per_iteration.empty();
    r.measured = r.by_bytes ? k.measured_gbs : k.measured_gflops;
    return r;
}

std::optional<double> predicted_rate(const core::KernelResult& k, const core::Prediction& p,
                                     const RowRates& rates) {
    if (!rates.by_bytes)
        return p.gflops;
    if (!(p.seconds_per_iteration > 0))
        return std::nullopt;
    return farthest_level_bytes(k) / p.seconds_per_iteration / 1e9;
}

std::vector<const core::KernelResult*> reading_order(const core::Results& r) {
    std::vector<const core::KernelResult*> out;
    for (const auto& k : r.kernels)
        out.push_back(&k);
    std::stable_sort(out.begin(), out.end(),
                     [](const auto* a, const auto* b) { return reading_group(*a) < reading_group(*b); });
    return out;
}

namespace {

std::string summary_row(const core::KernelResult& k) {
    const core::Prediction* p = summary_prediction(k);
    const RowRates rates = row_rates(k);
    const std::optional<core::Summary>& m = rates.measured;
    // The interquartile spread the NOISY flag compares with the host's floor, where the run had probes.
    const std::string spread = !m        ? "-"
                               : k.noise ? row_spread_text(*k.noise) + (k.noise->flagged() ? "!" : "")
                                         : spread_percent(*m) + (m->noisy ? "!" : "");
    const std::optional<double> predicted = p ? predicted_rate(k, *p, rates) : std::nullopt;
    return fmt::format("{:<24} {:>12} {:>12} {:>25} {:>8} {:>12} {:>14} {:>8} {}\n", k.name,
                       m ? rates.text(m->median) : "-", m ? rates.text(m->max) : "-", rates.range_text(),
                       spread, predicted ? rates.text(*predicted) : "-",
                       p ? p->model + (p->valid ? "" : "*") : "-", p ? error_text(p->error_pct) : "-",
                       p ? p->bottleneck : "-");
}

} // namespace

std::string format_run_summary(const core::Results& r) {
    std::string out =
        fmt::format("{:<24} {:>12} {:>12} {:>25} {:>8} {:>12} {:>14} {:>8} {}\n", "kernel", "median",
                    "best epoch", "epochs min..max", "spread", "prediction", "model", "error", "bottleneck");
    std::size_t calibration = 0;
    for (const core::KernelResult* k : reading_order(r)) {
        if (reading_group(*k) == 3) {
            ++calibration;
            continue;
        }
        out += summary_row(*k);
    }
    out += "(error: (prediction - best epoch) / best epoch, the fastest epoch, as STREAM reports its best "
           "rate; ";
    out += r.host_noise
               ? "spread: interquartile spread of the epochs; '!' marks a row above its probe's noise floor, "
                 "'*' a prediction outside its model's validity)\n"
               : "'!' marks a spread above 5 %, '*' a prediction outside its model's validity)\n";
    if (calibration > 0)
        out +=
            fmt::format("({} calibration loops, measured for the mixed model's effective figures, are listed "
                        "in the report and results.json)\n",
                        calibration);
    if (const std::string noise = host_noise_text(r); !noise.empty())
        out += noise + "\n";
    // Two findings, never averaged into one line (issue 13 §4): how accurate the models are on kernels
    // built to reach their bound, and which kernels fall short of it and why.
    out += "\n";
    out += accuracy_scope(r);
    out += "\n";
    if (const std::string host = host_sharing_text(r); !host.empty())
        out += host + "\n";
    const bool by_interval = judged_by_interval(r);
    for (const auto& a : r.accuracy)
        if (by_interval && a.n_interval > 0)
            out += fmt::format("  {:<13} {}; against the point: median |error| {:.1f} %, max {:.1f} %\n",
                               a.model, interval_accuracy_text(a), a.median_abs_error_pct.value_or(0.0),
                               a.max_abs_error_pct.value_or(0.0));
        else if (a.median_abs_error_pct)
            out += fmt::format("  {:<13} median |error| {:5.1f} %, max {:5.1f} % over {} kernels{}\n",
                               a.model, *a.median_abs_error_pct, a.max_abs_error_pct.value_or(0.0), a.n,
                               a.median_round_abs_error_pct
                                   ? fmt::format("; per round against the probes beside each: {:.1f} %, max "
                                                 "{:.1f} % over {}",
                                                 *a.median_round_abs_error_pct,
                                                 a.max_round_abs_error_pct.value_or(0.0), a.n_round)
                                   : std::string());
    out += "\n";
    out += format_below_bound(r);
    return out;
}

} // namespace roofcast::report
