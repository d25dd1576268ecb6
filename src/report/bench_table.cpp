#include "report/bench_table.hpp"

#include "model/model.hpp"
#include "model/predict.hpp"
#include "report/diagnosis_text.hpp"
#include "report/noise_text.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

namespace roofcast::report {

namespace {

std::string rate_cell(const std::optional<core::Summary>& s) {
    if (!s)
        return "-";
    return fmt::format("{:.2f} ({:.2f}..{:.2f}) n={}", s->median, s->min, s->max, s->n);
}

std::string prediction_cell(const core::Prediction* p) {
    if (!p)
        return "-";
    const std::string err = p->error_pct ? fmt::format("{:+.0f}%", *p->error_pct) : "n/a";
    return fmt::format("{:.2f} {}{}", p->gflops, err, p->valid ? "" : "*");
}

std::string optional_pct(const std::optional<double>& v) {
    return v ? fmt::format("{:.1f} %", *v) : "-";
}

} // namespace

std::string format_bench_table(const model::BenchReport& r) {
    std::string out;
    out += fmt::format("{:<18} {:<34} {:>8} {:<5}", "kernel", "measured GFLOP/s (min..max) n", "GB/s", "");
    for (const auto& m : model::model_names())
        out += fmt::format(" {:>16}", m);
    out += "  bottleneck\n";
    for (const auto& k : r.results.kernels) {
        const bool noisy = k.measured_seconds && k.measured_seconds->noisy;
        out += fmt::format("{:<18} {:<34} {:>8} {:<5}", k.name, rate_cell(k.measured_gflops),
                           k.measured_gbs ? fmt::format("{:.2f}", k.measured_gbs->median) : "-",
                           noisy ? "NOISY" : "");
        for (const auto& m : model::model_names())
            out += fmt::format(" {:>16}", prediction_cell(core::find_prediction(k, m)));
        const core::Prediction* b = nullptr; // the prediction one-model summaries prefer
        for (const model::Model* m : model::summary_order())
            if (!b)
                b = core::find_prediction(k, std::string(m->name));
        out += fmt::format("  {}\n", b ? b->bottleneck : "-");
    }
    out += "(predictions in GFLOP/s; error = (predicted - measured) / measured; * outside the model's "
           "validity)\n";
    if (const std::string noise = host_noise_text(r.results); !noise.empty())
        out += noise + "\n";

    if (r.calibration) {
        out += "\ncalibration (effective figures for the mixed model)\n";
        for (const auto& l : r.calibration->levels) {
            out += fmt::format("  {:<4} {}; {} compute-bound or off-plateau point(s) excluded\n", l.level,
                               model::effective_bandwidth_text(l), l.excluded.size());
        }
        if (r.calibration->effective_gflops)
            out += fmt::format("  P_eff {:.2f} GFLOP/s ({}, {})\n", *r.calibration->effective_gflops,
                               r.calibration->effective_gflops_kernel, r.calibration->precision);
        if (const auto& o = r.calibration->overlap)
            out += o->exponent
                       ? fmt::format("  overlap {} from {} loop(s): t = (sum t_i^p)^(1/p); rms log error "
                                     "{:.3f} (max: {:.3f})\n",
                                     model::overlap_text(*o), o->used.size(), o->rms_log_error,
                                     o->rms_log_error_max)
                       : fmt::format("  overlap: complete (t = max of the terms) fits the {} loop(s) best; "
                                     "rms log error {:.3f}; {}\n",
                                     o->used.size(), o->rms_log_error_max, model::overlap_text(*o));
        if (const auto& pc = r.calibration->cache_overlap)
            out +=
                pc->exponent
                    ? fmt::format("  cache/cache {} from {} loop(s): t_data = (t_MEM^p + (sum_cache "
                                  "t_level^pc)^(p/pc))^(1/p); rms log error {:.3f} (one p: {:.3f})\n",
                                  model::overlap_text(*pc, "pc"), pc->used.size(), pc->rms_log_error,
                                  pc->rms_log_error_max)
                    : fmt::format("  cache/cache: no exponent of its own fits the {} loop(s) significantly "
                                  "better than one p (rms log error {:.3f} against {:.3f})\n",
                                  pc->used.size(), pc->rms_log_error, pc->rms_log_error_max);
        if (const auto& q = r.calibration->compute_overlap) {
            const std::string text = model::overlap_text(*q, "q");
            out += q->exponent
                       ? fmt::format("  compute/data {} from {} loop(s) with arithmetic: t = (t_data^q + "
                                     "t_C^q)^(1/q); rms log error {:.3f} (max: {:.3f})\n",
                                     text, q->used.size(), q->rms_log_error, q->rms_log_error_max)
                       : fmt::format("  compute/data: the arithmetic hides completely (q = max) in the {} "
                                     "loop(s) with arithmetic; rms log error {:.3f}\n",
                                     q->used.size(), q->rms_log_error_max);
        }
    }

    out += "\n";
    out += accuracy_scope(r.results);
    out += " (predictions inside each model's validity)\n";
    // With rounds and probes, the same error from each kernel's per-round verdict beside it (issue 22 §4).
    const bool rounds = core::has_round_accuracy(r.results.accuracy);
    out += fmt::format("  {:<14} {:>3} {:>14} {:>12}", "model", "n", "median |err|", "max |err|");
    out += rounds ? fmt::format("   {:>3} {:>14} {:>12}\n", "n", "per round med", "max") : "\n";
    for (const auto& a : r.results.accuracy) {
        out += fmt::format("  {:<14} {:>3} {:>14} {:>12}", a.model, a.n, optional_pct(a.median_abs_error_pct),
                           optional_pct(a.max_abs_error_pct));
        out += rounds ? fmt::format("   {:>3} {:>14} {:>12}\n", a.n_round,
                                    optional_pct(a.median_round_abs_error_pct),
                                    optional_pct(a.max_round_abs_error_pct))
                      : "\n";
    }
    if (rounds)
        out +=
            "  (per round: each kernel's verdict against the reference probes run beside it, the median over "
            "the rounds, for the kernels this model bounds: docs/noise.md)\n";
    if (const std::string host = host_sharing_text(r.results); !host.empty())
        out += host + "\n";
    for (const auto& a : r.results.accuracy)
        if (const std::string t = interval_accuracy_text(a); !t.empty())
            out += fmt::format("  {:<14} {}\n", a.model, t);

    out += "\n";
    out += format_below_bound(r.results);

    if (r.mixed_switch && !r.mixed_switch->members.empty()) {
        const auto& s = *r.mixed_switch;
        auto name = [&](const std::optional<std::size_t>& i) {
            return i ? fmt::format("{} (n = {})", s.members[*i], s.neighbours[*i])
                     : std::string("none in the family");
        };
        out += fmt::format("\nmixed family (C = {}), memory-bound -> cache-bound switch along l = n:\n",
                           s.cache);
        out += fmt::format("  predicted: {}\n  measured:  {}\n", name(s.predicted), name(s.measured));
        if (s.predicted && s.measured) {
            const long apart = std::labs(static_cast<long>(*s.predicted) - static_cast<long>(*s.measured));
            out += fmt::format("  {} member(s) apart\n", apart);
        }
    }
    return out;
}

} // namespace roofcast::report
