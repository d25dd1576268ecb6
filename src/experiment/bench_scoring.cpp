// Scoring the suite's measurements (experiment/bench.hpp): each kernel's measurement against every model's
// prediction, the calibration and overlap points the mixed model's effective figures are fitted to, where
// the mixed family switches bound, and each model's accuracy.
#include "experiment/bench.hpp"

#include "core/error.hpp"
#include "experiment/diagnosis.hpp"
#include "experiment/shared_host.hpp"
#include "model/derived.hpp"
#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::model {

core::KernelResult compare_kernel(const KernelSpec& spec, const std::string& suite, int threads,
                                  const core::Summary& seconds_per_call, const core::Machine& m) {
    core::KernelResult r;
    r.name = spec.name;
    r.suite = suite;
    r.precision = spec.precision;
    r.threads = threads;
    r.flops_per_iteration = spec.flops_per_iteration;
    r.iterations = spec.iterations.value_or(1.0);
    const Traffic traffic = derive_traffic(spec, m, threads);
    r.bytes_per_iteration = traffic.bytes;
    r.notes = traffic.notes;
    r.measured_seconds = seconds_per_call;
    const core::Summary per_iteration = core::scaled(seconds_per_call, 1.0 / r.iterations);
    const RateSummaries rates = derive_rates(spec.flops_per_iteration, traffic.bytes, per_iteration);
    r.measured_gflops = rates.gflops;
    // Memory-side bandwidth: the outermost level that moves data.
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it) {
        const auto b = traffic.bytes.find(it->name);
        if (b != traffic.bytes.end() && b->second > 0) {
            r.measured_gbs = rates.gbs.at(it->name);
            break;
        }
    }
    PredictOptions po;
    po.threads = threads;
    r.predictions = predict(spec, m, po);
    for (auto& p : r.predictions)
        if (p.seconds_per_iteration > 0)
            p.error_pct = (per_iteration.min / p.seconds_per_iteration - 1.0) * 100.0;
    return r;
}

std::vector<CalibrationPoint> calibration_points(const std::vector<SuiteKernel>& kernels,
                                                 const std::vector<core::KernelResult>& results) {
    std::vector<CalibrationPoint> out;
    for (std::size_t i = 0; i < kernels.size() && i < results.size(); ++i) {
        const auto& k = kernels[i];
        const auto& r = results[i];
        if (k.suite != "calibrate" || k.overlap_reuses > 0 || !r.measured_seconds)
            continue;
        const double t = r.measured_seconds->min / r.iterations;
        const auto b = r.bytes_per_iteration.find(k.resident_level);
        const double bytes = b == r.bytes_per_iteration.end() ? 0.0 : b->second;
        const Rates rates = derive_rates(k.spec.flops_per_iteration, {{k.resident_level, bytes}}, t);
        out.push_back({k.resident_level, k.name, k.requested_bytes / k.spec.flops_per_iteration,
                       rates.gbs.at(k.resident_level), rates.gflops});
    }
    return out;
}

std::vector<OverlapPoint> overlap_points(const std::vector<SuiteKernel>& kernels,
                                         const std::vector<core::KernelResult>& results) {
    std::vector<OverlapPoint> out;
    for (std::size_t i = 0; i < kernels.size() && i < results.size(); ++i) {
        const auto& r = results[i];
        if (kernels[i].overlap_reuses == 0 || !r.measured_seconds)
            continue;
        out.push_back({kernels[i].name, r.measured_seconds->min / r.iterations, r.flops_per_iteration,
                       r.bytes_per_iteration, kernels[i].overlap_extra_fmas > 0});
    }
    return out;
}

FamilySwitch family_switch(const std::vector<SuiteKernel>& kernels,
                           const std::vector<core::KernelResult>& results) {
    FamilySwitch s;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < kernels.size() && i < results.size(); ++i)
        if (kernels[i].suite == "mixed" && kernels[i].mixed_flop_level == 0 && results[i].measured_seconds)
            idx.push_back(i);
    std::sort(idx.begin(), idx.end(),
              [&](auto a, auto b) { return kernels[a].mixed_n < kernels[b].mixed_n; });
    std::optional<double> first_time;
    for (const std::size_t i : idx) {
        const std::size_t pos = s.members.size();
        s.cache = kernels[i].mixed_cache;
        s.members.push_back(kernels[i].name);
        s.neighbours.push_back(kernels[i].mixed_n);
        const double t = results[i].measured_seconds->min / results[i].iterations;
        if (!first_time)
            first_time = t;
        if (!s.measured && t > (1.0 + k_switch_rise) * *first_time)
            s.measured = pos;
        for (const auto& p : results[i].predictions)
            if (p.model == "mixed" && !s.predicted && p.bottleneck != "MEM" && p.bottleneck != "compute")
                s.predicted = pos;
    }
    return s;
}

std::vector<core::AccuracySummary> accuracy_summary(const std::vector<core::KernelResult>& results) {
    std::vector<core::KernelResult> scored;
    for (const auto& r : results)
        if (r.role == "validation" && r.suite != "calibrate")
            scored.push_back(r);
    std::vector<core::AccuracySummary> out;
    for (const auto& model : model_names()) {
        core::AccuracySummary a = core::accuracy_of(scored, model);
        // Per-round verdicts (issue 22 §4): the error against the probes beside each kernel, over the kernels
        // this model bounds; a fraction f = predicted / measured time is an error of 1/f - 1 in the rate.
        std::vector<double> errs;
        for (const auto& r : scored) {
            const core::Prediction* b = bound_prediction(r);
            if (b && b->model == model && r.bound_fraction_median_round && *r.bound_fraction_median_round > 0)
                errs.push_back(std::fabs(1.0 / *r.bound_fraction_median_round - 1.0) * 100.0);
        }
        a.n_round = errs.size();
        if (!errs.empty()) {
            a.median_round_abs_error_pct = core::median(errs);
            a.max_round_abs_error_pct = *std::max_element(errs.begin(), errs.end());
        }
        out.push_back(std::move(a));
    }
    add_interval_accuracy(out, scored);
    return out;
}

std::vector<core::AccuracySummary> accuracy_on_mixed_valid(const std::vector<core::KernelResult>& results) {
    std::vector<core::KernelResult> members;
    for (const auto& r : results) {
        if (r.suite != "mixed")
            continue;
        const bool valid =
            std::any_of(r.predictions.begin(), r.predictions.end(),
                        [](const core::Prediction& p) { return p.model == "mixed" && p.valid; });
        if (!valid)
            continue;
        // Score every model on the members where the mixed model is valid, whatever its own range.
        core::KernelResult copy = r;
        for (auto& p : copy.predictions)
            p.valid = true;
        members.push_back(std::move(copy));
    }
    std::vector<core::AccuracySummary> out;
    for (const auto& model : model_names())
        out.push_back(core::accuracy_of(members, model));
    return out;
}

} // namespace roofcast::model
