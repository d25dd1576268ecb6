#include "core/units.hpp"
#include "report/format.hpp"
#include "report/html_parts.hpp"
#include "report/noise_text.hpp"
#include "report/run_summary.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report::html_detail {

void predictions_section(std::string& o, const core::Results& r) {
    const auto models = model_names(r);
    o += "<section id=\"predictions\"><h2>Predictions</h2>\n";
    if (r.kernels.empty()) {
        o += "<p class=\"none\">The results file has no kernels.</p></section>\n";
        return;
    }
    o += "<p class=\"muted\">Predicted rate per model and its error against the best epoch (the fastest, as "
         "STREAM reports its best rate: the models bound what the machine attains), (predicted − best) / "
         "best; "
         "the median and the epochs' min..max beside it. Kernels without flops are read in GB/s at the "
         "farthest level that moves data. The closest valid prediction of each kernel is in bold; the "
         "application and validation kernels come first, the calibration loops last.</p>\n";
    o += "<table><thead><tr><th>Kernel</th><th class=\"n\">Threads</th><th class=\"n\">Median</th><th "
         "class=\"n\">Best epoch (min..max)</th><th class=\"n\">Spread</th>";
    for (const auto& m : models)
        o += "<th class=\"n\">" + h(m) + "</th>";
    o += "<th>Bound by (closest model)</th></tr></thead><tbody>\n";
    for (const core::KernelResult* kp : reading_order(r)) {
        const core::KernelResult& k = *kp;
        const core::Prediction* best = closest(k);
        const RowRates rates = row_rates(k);
        o += "<tr class=\"" + h(suite_class(k.suite)) + "\"><td><a href=\"#" + h(anchor_id(k.name)) + "\">" +
             h(k.name) + "</a></td>" + num_td(std::to_string(k.threads));
        if (rates.measured && k.measured_gflops)
            o += num_td(rates.text(rates.measured->median)) + "<td class=\"n best\">" +
                 h(rates.text(rates.measured->max)) + "<small>" + h(rates.range_text()) +
                 "</small></td><td class=\"n\">" + kernel_spread_cell(k) + "</td>";
        else
            o += num_td("not measured") + num_td("–") + num_td("–");
        for (const auto& model : models) {
            const auto p = std::find_if(k.predictions.begin(), k.predictions.end(),
                                        [&](const core::Prediction& x) { return x.model == model; });
            if (p == k.predictions.end()) {
                o += num_td("–");
                continue;
            }
            const std::optional<double> predicted = predicted_rate(k, *p, rates);
            o += std::string("<td class=\"n") + (&*p == best ? " closest" : "") + "\">" +
                 h(predicted ? rates.text(*predicted) : "–");
            if (p->error_pct)
                o += "<small>" + h(error_text(p->error_pct)) + "</small>"; // the error, on its own line
            if (!p->valid)
                o += "<span class=\"badge invalid\" title=\"outside the model's validity "
                     "range\">INVALID</span>";
            o += "</td>";
        }
        o += td(best ? best->bottleneck + " (" + best->model + ")" : "–") + "</tr>\n";
    }
    o += "</tbody></table>\n";
    if (!r.accuracy.empty()) {
        const bool rounds = core::has_round_accuracy(r.accuracy);
        const auto pct = [](const std::optional<double>& v) {
            return v ? fmt::format("{:.1f} %", *v) : std::string("–");
        };
        o += "<h3>Accuracy per model</h3><table><thead><tr><th>Model</th><th class=\"n\">Kernels</th><th "
             "class=\"n\">Median |error|</th><th class=\"n\">Max |error|</th>";
        if (rounds)
            o += "<th class=\"n\">Per round: kernels</th><th class=\"n\">median</th><th class=\"n\">max</th>";
        o += "</tr></thead><tbody>\n";
        for (const auto& a : r.accuracy) {
            o += "<tr>" + td(a.model) + num_td(std::to_string(a.n)) + num_td(pct(a.median_abs_error_pct)) +
                 num_td(pct(a.max_abs_error_pct));
            if (rounds)
                o += num_td(std::to_string(a.n_round)) + num_td(pct(a.median_round_abs_error_pct)) +
                     num_td(pct(a.max_round_abs_error_pct));
            o += "</tr>\n";
        }
        o += "</tbody></table><p class=\"muted\">Only the validation kernels' predictions inside each "
             "model's validity "
             "range with a measurement count: never the calibration loops or the untuned kernels (those are "
             "listed "
             "below their bound).</p>\n";
        if (rounds)
            o +=
                "<p class=\"muted\">Per round: each kernel's verdict against the reference probes run "
                "beside it, the median over the rounds, for the kernels the model bounds: a check on whether "
                "a burst or a lull of the host during part of the run moved the best epochs' figures.</p>\n";
    }
    o += "</section>\n";
}

namespace {

// The level bounding a kernel on the charts' roofline (Williams et al. 2009, eq. 1, applied per level as in
// Ilic et al. 2014: level L bounds it when I_L < I*_L = P / B_L and then allows I_L × B_L) and its rate;
// "compute" and P when every level's intensity lies right of its ridge.
std::pair<std::string, double> roofline_bound(const core::KernelResult& k, const Roofs& roofs) {
    std::string bound = "compute";
    double rate = roofs.top();
    for (const auto& roof : roofs.memory) {
        auto it = k.bytes_per_iteration.find(roof.level);
        if (it == k.bytes_per_iteration.end() || !(it->second > 0))
            continue;
        const double attainable = std::min(roofs.top(), k.flops_per_iteration / it->second * roof.gbs);
        if (attainable < rate) {
            rate = attainable;
            bound = roof.level;
        }
    }
    return {bound, rate};
}

std::string bytes_text(const core::KernelResult& k, const char* unit) {
    std::string bytes;
    for (const auto& [level, b] : k.bytes_per_iteration)
        bytes += (bytes.empty() ? "" : ", ") + fmt::format("{} {:g}{}", level, b, unit);
    return bytes.empty() ? "none" : bytes;
}

} // namespace

void compact_table_start(std::string& o) {
    o += "<table class=\"compact\"><thead><tr><th>Kernel</th><th class=\"n\">FLOP / it.</th><th>Bytes / "
         "iteration</th><th class=\"n\">Measured</th><th>Closest model</th><th>Bound on the chart by</th>"
         "</tr></thead><tbody>\n";
}

void compact_table_end(std::string& o) {
    o += "</tbody></table>\n";
}

void compact_row(std::string& o, const core::KernelResult& k, const Roofs& roofs) {
    const core::Prediction* best = closest(k);
    o += "<tr id=\"" + h(anchor_id(k.name)) + "\">" + td(k.name) +
         num_td(fmt::format("{:g}", k.flops_per_iteration)) + td(bytes_text(k, ""));
    o += "<td class=\"n\">" +
         (k.measured_gflops ? h(fmt::format("{} ({})", gflops_text(k.measured_gflops->median),
                                            spread_text(*k.measured_gflops))) +
                                  noisy_badge(*k.measured_gflops)
                            : std::string("–")) +
         "</td>";
    o +=
        td(best ? fmt::format("{} {}, {}", best->model, error_text(best->error_pct), best->bottleneck) : "–");
    if (!(k.flops_per_iteration > 0)) {
        o += td("no arithmetic: bandwidth") + "</tr>\n";
        return;
    }
    const auto [bound, rate] = roofline_bound(k, roofs);
    o += td(fmt::format("{} ({})", bound, gflops_text(rate))) + "</tr>\n";
}

// With the threshold table and each model's per-level terms (the conclusion is always there). The calibration
// loops, the members of the mixed family (dozens of rows of one construction) and the four STREAM kernels
// take a compact row instead (compact_row), which keeps the page of a default run under 400 KB; every
// term stays in results.json.
void derivation(std::string& o, const core::KernelResult& k, const Roofs& roofs) {
    const core::Prediction* best = closest(k);
    o += "<details id=\"" + h(anchor_id(k.name)) + "\"><summary>" + h(k.name) + " <span class=\"muted\">— " +
         h(fmt::format("{}, {}, {}", k.suite, k.precision, threads_text(k.threads)));
    if (best)
        o += h(fmt::format("; closest: {} ({}), bound by {}", best->model, error_text(best->error_pct),
                           best->bottleneck));
    o += "</span></summary>\n";
    o += "<p>" +
         h(fmt::format("Per iteration: {:g} FLOP; bytes: {}.", k.flops_per_iteration, bytes_text(k, " B")));
    if (k.measured_gflops)
        o += h(fmt::format(" Measured {} ({}).", gflops_text(k.measured_gflops->median),
                           spread_text(*k.measured_gflops))) +
             noisy_badge(*k.measured_gflops);
    if (k.measured_gbs)
        o += h(fmt::format(" Memory-side traffic {} ({}).", gbs_text(k.measured_gbs->median),
                           spread_text(*k.measured_gbs)));
    o += "</p>\n";
    for (const auto& n : k.notes)
        o += "<p class=\"muted\">" + h(n) + "</p>\n";

    // Roofline thresholds with the charts' roofs (roofline_bound).
    const double top = roofs.top();
    if (!(k.flops_per_iteration > 0)) {
        o += "<p class=\"why\">No floating-point work per iteration: the kernel has no arithmetic intensity "
             "and no place on the roofline; its figure of merit is bandwidth.</p>\n";
    } else {
        o += "<h4>Which level bounds it (roofline thresholds, roofs of the charts)</h4>\n<table><thead><tr>"
             "<th>Level</th><th class=\"n\">Bytes / iteration</th><th class=\"n\">I = F / bytes</th>"
             "<th class=\"n\">Roof B</th><th class=\"n\">Ridge I* = P / B</th><th>I vs I*</th>"
             "<th class=\"n\">Attainable min(P, I × B)</th></tr></thead><tbody>\n";
        for (const auto& roof : roofs.memory) {
            auto it = k.bytes_per_iteration.find(roof.level);
            if (it == k.bytes_per_iteration.end() || !(it->second > 0))
                continue;
            const double intensity = k.flops_per_iteration / it->second;
            o += "<tr data-level=\"" + h(roof.level) + "\">" + td(roof.level) +
                 num_td(fmt::format("{:g}", it->second)) + num_td(intensity_text(intensity)) +
                 num_td(gbs_text(roof.gbs)) + num_td(intensity_text(roof.ridge)) +
                 td(intensity < roof.ridge ? "I < I*: can bound" : "I ≥ I*: compute side") +
                 num_td(gflops_text(std::min(top, intensity * roof.gbs))) + "</tr>\n";
        }
        o += "</tbody></table>\n";
        const auto [bound, bound_rate] = roofline_bound(k, roofs);
        o += "<p class=\"why\">";
        if (bound == "compute")
            o += h(fmt::format("Every level's intensity lies right of its ridge: the compute roof P = {} "
                               "bounds it.",
                               gflops_text(top)));
        else
            o += h(fmt::format("{}-bound: I × B = {} is the lowest of all levels and below P.", bound,
                               gflops_text(bound_rate)));
        o += "</p>\n";
    }
    for (const auto& p : k.predictions) {
        o += "<h4>" + h(fmt::format("{}: {}, bound by {}, error {}", p.model, gflops_text(p.gflops),
                                    p.bottleneck, error_text(p.error_pct)));
        if (!p.valid)
            o += "<span class=\"badge invalid\">OUTSIDE VALIDITY</span>";
        o += "</h4>\n";
        o += "<p class=\"muted\">" +
             h(fmt::format("Time per iteration {} ({:.3g} % of peak).",
                           core::format_seconds(p.seconds_per_iteration), p.peak_fraction * 100)) +
             "</p>\n";
        for (const auto& n : p.notes)
            o += "<p>" + h(n) + "</p>\n";
        if (p.terms.empty())
            continue;
        o += "<table><thead><tr><th>Level</th><th class=\"n\">Bytes / iteration</th><th "
             "class=\"n\">Intensity</th><th class=\"n\">Bandwidth</th><th>Bandwidth from</th><th "
             "class=\"n\">Time / iteration</th></tr></thead><tbody>\n";
        for (const auto& t : p.terms)
            o += std::string("<tr") + (t.level == p.bottleneck ? " class=\"bound\"" : "") + ">" +
                 td(t.level) + num_td(fmt::format("{:g}", t.bytes_per_iteration)) +
                 num_td(t.intensity ? intensity_text(*t.intensity) : "–") +
                 num_td(t.bandwidth_gbs ? gbs_text(*t.bandwidth_gbs) : "–") + td(t.bandwidth_source) +
                 num_td(t.seconds_per_iteration ? core::format_seconds(*t.seconds_per_iteration) : "–") +
                 "</tr>\n";
        o += "</tbody></table>\n";
    }
    o += "</details>\n";
}

} // namespace roofcast::report::html_detail
