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
    std::vector<const model::Model*> ms = model::model_registry();
    std::stable_sort(ms.begin(), ms.end(),
                     [](const auto* a, const auto* b) { return a->summary_rank < b->summary_rank; });
    std::vector<std::string> names;
    for (const auto* m : ms)
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

} // namespace

const core::Prediction* summary_prediction(const core::KernelResult& k) {
    static const std::vector<std::string> k_model_order = summary_order();
    for (const auto& model : k_model_order)
        for (const auto& p : k.predictions)
            if (p.model == model && p.valid)
                return &p;
    return k.predictions.empty() ? nullptr : &k.predictions.front();
}

std::string format_run_summary(const core::Results& r) {
    std::string out = fmt::format("{:<24} {:>14} {:>8} {:>16} {:>14} {:>8} {:<10}\n", "kernel", "measured",
                                  "spread", "prediction", "model", "error", "bottleneck");
    for (const auto& k : r.kernels) {
        if (k.suite == "calibrate")
            continue;
        const core::Prediction* p = summary_prediction(k);
        // Kernels without flops (copy) are shown as bandwidth: the farthest level's bytes over the time.
        const bool by_bytes = k.flops_per_iteration <= 0 && !k.bytes_per_iteration.empty();
        const std::optional<core::Summary>& m = by_bytes ? k.measured_gbs : k.measured_gflops;
        const std::string measured = !m ? "-" : by_bytes ? gbs_text(m->median) : gflops_text(m->median);
        // The interquartile spread the NOISY flag compares with the host's floor, where the run had probes.
        const std::string spread = !m        ? "-"
                                   : k.noise ? row_spread_text(*k.noise) + (k.noise->flagged() ? "!" : "")
                                             : spread_percent(*m) + (m->noisy ? "!" : "");
        std::string predicted = "-";
        if (p && by_bytes && p->seconds_per_iteration > 0)
            predicted = gbs_text(farthest_level_bytes(k) / p->seconds_per_iteration / 1e9);
        else if (p)
            predicted = gflops_text(p->gflops);
        out += fmt::format("{:<24} {:>14} {:>8} {:>16} {:>14} {:>8} {:<10}\n", k.name, measured, spread,
                           predicted, p ? p->model + (p->valid ? "" : "*") : "-",
                           p ? error_text(p->error_pct) : "-", p ? p->bottleneck : "-");
    }
    out +=
        r.host_noise
            ? "(spread: interquartile spread of the epochs; '!' marks a row above its probe's noise floor, "
              "'*' a prediction outside its model's validity)\n"
            : "('!' marks a spread above 5 %, '*' a prediction outside its model's validity)\n";
    if (const std::string noise = host_noise_text(r); !noise.empty())
        out += noise + "\n";
    // Two findings, never averaged into one line (issue 13 §4): how accurate the models are on kernels
    // built to reach their bound, and which kernels fall short of it and why.
    out += "\n";
    out += accuracy_scope(r);
    out += "\n";
    for (const auto& a : r.accuracy)
        if (a.median_abs_error_pct)
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
