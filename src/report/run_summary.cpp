#include "report/run_summary.hpp"

#include "report/format.hpp"

#include <array>
#include <fmt/format.h>

namespace roofcast::report {

namespace {
constexpr std::array<const char*, 4> k_model_order{"mixed", "hierarchical", "cache-aware", "roofline"};
} // namespace

const core::Prediction* summary_prediction(const core::KernelResult& k) {
    for (const char* model : k_model_order)
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
        const std::string measured = k.measured_gflops ? gflops_text(k.measured_gflops->median) : "-";
        const std::string spread =
            k.measured_gflops ? spread_percent(*k.measured_gflops) + (k.measured_gflops->noisy ? "!" : "")
                              : "-";
        out += fmt::format("{:<24} {:>14} {:>8} {:>16} {:>14} {:>8} {:<10}\n", k.name, measured, spread,
                           p ? gflops_text(p->gflops) : "-", p ? p->model + (p->valid ? "" : "*") : "-",
                           p ? error_text(p->error_pct) : "-", p ? p->bottleneck : "-");
    }
    out += "('!' marks a spread above 5 %, '*' a prediction outside its model's validity)\n";
    for (const auto& a : r.accuracy)
        if (a.median_abs_error_pct)
            out += fmt::format("{:<13} median |error| {:5.1f} %, max {:5.1f} % over {} kernels\n", a.model,
                               *a.median_abs_error_pct, a.max_abs_error_pct.value_or(0.0), a.n);
    return out;
}

} // namespace roofcast::report
