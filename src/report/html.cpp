#include "report/html.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/units.hpp"
#include "experiment/diagnosis.hpp"
#include "report/bandwidth.hpp"
#include "report/diagnosis_text.hpp"
#include "report/format.hpp"
#include "report/html_parts.hpp"
#include "report/noise_text.hpp"
#include "report/roofline.hpp"
#include "report/svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace roofcast::report {

namespace {

using html_detail::compact_row;
using html_detail::compact_table_end;
using html_detail::compact_table_start;
using html_detail::derivation;
using html_detail::fixed3;
using html_detail::h;
using html_detail::machine_spread_cell;
using html_detail::noisy_badge;
using html_detail::num_td;
using html_detail::predictions_section;
using html_detail::td;
using html_detail::threads_text;

// The whole page's style: no external fonts or resources, system font stacks only.
constexpr const char* k_css = R"(
:root { --ink: #1d2330; --muted: #5b6472; --line: #dde2e8; --bg: #f4f5f7; --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
.wrap { max-width: 1160px; margin: 0 auto; padding: 0 24px; }
header { background: #1d2330; color: #fff; padding: 26px 0 20px; }
header h1 { margin: 0; font-size: 26px; font-weight: 650; letter-spacing: -0.01em; }
header p { margin: 4px 0 0; color: #c4cad3; font-size: 14px; }
nav { margin-top: 14px; }
nav a { color: #9fd3f5; text-decoration: none; margin-right: 18px; font-size: 14px; }
nav a:hover { text-decoration: underline; }
section { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 20px 24px; margin: 20px 0; }
h2 { font-size: 19px; margin: 0 0 14px; }
h3 { font-size: 13px; margin: 22px 0 8px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
h4 { font-size: 14px; margin: 16px 0 6px; }
p { margin: 6px 0; }
.muted { color: var(--muted); }
td small { display: block; color: var(--muted); font-size: inherit; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; margin: 4px 0 8px; }
th, td { padding: 6px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f0f2f5; font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafbfc; }
tr.bound td { font-weight: 650; background: #eef5fb; }
td.closest { font-weight: 650; color: #004b75; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 11px; font-weight: 700;
         letter-spacing: 0.03em; vertical-align: 1px; margin-left: 4px; }
.badge.noisy { background: #fbe3d3; color: #8a3300; }
.badge.invalid { background: #e4e6ea; color: #3d434c; }
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; }
.card .value { font-size: 21px; font-weight: 650; }
.card .detail { color: var(--muted); font-size: 12.5px; }
#headline-below h3 { margin: 16px 0 4px; font-size: 15px; }
#headline-below ul { margin: 0; padding-left: 20px; }
#headline-below p { margin: 4px 0 0; font-size: 14px; }
ul.warnings { list-style: none; padding: 0; margin: 0; }
ul.warnings li { border-left: 4px solid #D55E00; background: #fdf3ec; padding: 7px 12px; margin: 6px 0;
                 border-radius: 0 4px 4px 0; font-size: 14px; }
ul.warnings li.info { border-left-color: #56B4E9; background: #eef7fc; }
p.none { color: var(--muted); }
figure { margin: 0 0 22px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
svg.roofcast-chart { width: 100%; height: auto; display: block; }
details { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; margin: 8px 0; }
details[open] { padding-bottom: 14px; }
summary { cursor: pointer; font-weight: 600; }
summary .muted { font-weight: 400; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; background: #f0f2f5;
       padding: 1px 4px; border-radius: 3px; }
.why { background: #f7f9fb; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
footer { color: var(--muted); font-size: 12.5px; padding: 10px 0 30px; }
@media (max-width: 800px) { .cards { grid-template-columns: repeat(2, 1fr); } }
@media print { body { background: #fff; } section { border: none; padding: 0; } nav { display: none; } }
)";

struct Warning {
    std::string text;
    bool info = false;
};

std::vector<Warning> collect_warnings(const core::Results& r, const core::Machine& m,
                                      const std::vector<std::string>& chart_notes) {
    std::vector<Warning> w;
    if (m.clock_drift) {
        std::string t =
            "Unstable clock: the core clock moved by more than 5 % during the machine measurement";
        if (m.clock_ghz)
            t += fmt::format(" ({:.2f}–{:.2f} GHz, median {:.2f} GHz)", m.clock_ghz->min, m.clock_ghz->max,
                             m.clock_ghz->median);
        w.push_back({t + "; rates measured at different clocks are not comparable.", false});
    } else if (m.clock_ghz && m.clock_ghz->noisy) {
        w.push_back({fmt::format("Clock spread {} during the run.", spread_percent(*m.clock_ghz)), false});
    }
    int noisy_ceilings = 0;
    for (const auto& c : m.ceilings)
        noisy_ceilings += c.gflops.noisy;
    int noisy_bw = 0;
    for (const auto& l : m.levels) {
        noisy_bw += l.bandwidth && l.bandwidth->noisy;
        for (const auto& p : l.measurements)
            noisy_bw += p.gbs.noisy;
    }
    int noisy_sweep = 0;
    for (const auto& p : m.sweep)
        noisy_sweep += p.gbs.noisy;
    if (noisy_ceilings > 0)
        w.push_back({fmt::format(
            "High spread: {} compute ceiling{} above the noise floor of the run (flagged NOISY below).",
            noisy_ceilings, noisy_ceilings == 1 ? "" : "s")});
    if (noisy_bw > 0)
        w.push_back({fmt::format(
            "High spread: {} bandwidth figure{} above the noise floor of the run (flagged NOISY below).",
            noisy_bw, noisy_bw == 1 ? "" : "s")});
    if (noisy_sweep > 0)
        w.push_back(
            {fmt::format("High spread: {} point{} of the bandwidth sweep (hollow markers in the chart).",
                         noisy_sweep, noisy_sweep == 1 ? "" : "s")});
    for (const auto& k : r.kernels) {
        if (k.measured_gflops && k.measured_gflops->noisy)
            w.push_back({fmt::format("High spread: {} measured {} ({}).", k.name,
                                     gflops_text(k.measured_gflops->median),
                                     k.noise ? row_noise_text(k) : spread_text(*k.measured_gflops))});
        for (const auto& p : k.predictions) {
            if (p.valid)
                continue;
            std::string t = fmt::format("Outside model validity: {} with the {} model", k.name, p.model);
            for (const auto& n : p.notes)
                t += " — " + n;
            w.push_back({t + " (excluded from the accuracy summary)."});
        }
    }
    for (const auto& n : chart_notes)
        w.push_back({"Chart: " + n, true});
    for (const auto& n : m.notes)
        w.push_back({"Machine: " + n, true});
    for (const auto& n : r.notes)
        w.push_back({"Results: " + n, true});
    return w;
}

// Warnings grouped by kind (the text before its first colon), each group with its count; a group of
// more than three is collapsed, never cut: a long list of one kind says one thing.
void warnings_section(std::string& o, const std::vector<Warning>& warnings) {
    o += "<section id=\"warnings\"><h2>Warnings</h2>\n";
    if (warnings.empty()) {
        o += "<p class=\"none\">None: stable clock, every spread below 5 %, every prediction inside its "
             "model's validity.</p>\n</section>\n";
        return;
    }
    std::vector<std::pair<std::string, std::vector<const Warning*>>> groups;
    for (const auto& w : warnings) {
        const auto colon = w.text.find(':');
        const std::string kind = colon != std::string::npos && colon < 40 ? w.text.substr(0, colon) : "Other";
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == kind; });
        if (it == groups.end()) {
            groups.push_back({kind, {}});
            it = std::prev(groups.end());
        }
        it->second.push_back(&w);
    }
    for (const auto& [kind, ws] : groups) {
        o += std::string("<details class=\"warning-group\"") + (ws.size() <= 3 ? " open=\"open\"" : "") +
             "><summary>" + h(kind) + " <span class=\"badge\">" + std::to_string(ws.size()) +
             "</span></summary>\n<ul class=\"warnings\">\n";
        for (const auto* w : ws)
            o += std::string("<li") + (w->info ? " class=\"info\"" : "") + ">" + h(w->text) + "</li>\n";
        o += "</ul></details>\n";
    }
    o += "</section>\n";
}

// The machine's facts: name, CPU, clock, peaks, the mixed model's exponents and MPI.
void machine_facts(std::string& o, const core::Machine& m) {
    o += "<table class=\"facts\"><tbody>\n";
    const auto row = [&](const std::string& k, const std::string& v) {
        o += "<tr><th>" + h(k) + "</th><td>" + v + "</td></tr>\n";
    };
    row("Name", h(m.name) + " <span class=\"muted\">(" + h(core::to_string(m.source)) + ")</span>");
    if (m.topology) {
        const auto& t = *m.topology;
        row("CPU", h(t.cpu_model.empty() ? "unknown" : t.cpu_model));
        row("Cores", h(fmt::format("{} package{}, {} cores, {} hardware threads, {} NUMA node{}", t.packages,
                                   t.packages == 1 ? "" : "s", t.cores, t.hw_threads, t.numa_nodes,
                                   t.numa_nodes == 1 ? "" : "s")));
        std::string isa;
        for (const auto& i : t.isa)
            isa += (isa.empty() ? "" : ", ") + i;
        row("Vector ISAs", h(isa.empty() ? "unknown" : isa));
    }
    if (m.clock_ghz)
        row("Core clock", h(fmt::format("{:.2f} GHz (min {:.2f}, max {:.2f}; {})", m.clock_ghz->median,
                                        m.clock_ghz->min, m.clock_ghz->max, spread_text(*m.clock_ghz))) +
                              noisy_badge(*m.clock_ghz) +
                              (m.clock_drift ? "<span class=\"badge noisy\">DRIFT</span>" : ""));
    if (m.tsc_ghz)
        row("TSC", h(fmt::format("{:.3g} GHz", *m.tsc_ghz)));
    for (const auto& [p, v] : m.peak_gflops)
        row("Peak (" + p + ")", h(gflops_text(v)) + " <span class=\"muted\">theoretical</span>");
    for (const auto& [p, v] : m.effective_gflops)
        row("Effective (" + p + ")", h(gflops_text(v)));
    if (m.overlap_exponent)
        row("Mixed-model overlap",
            h(fmt::format("p = {:.2f}: the terms combine as (sum of t_i^p)^(1/p)", *m.overlap_exponent)) +
                " <span class=\"muted\">1: they add; none: the max</span>");
    if (m.cache_overlap_exponent)
        row("Mixed-model cache overlap",
            h(fmt::format(
                "pc = {:.2f}: the caches' terms combine as (sum of t_cache^pc)^(1/pc) before memory's "
                "joins them with p",
                *m.cache_overlap_exponent)) +
                " <span class=\"muted\">1: they add; large: the max</span>");
    if (m.compute_overlap_exponent)
        row("Mixed-model compute overlap",
            h(fmt::format(
                "q = {:.2f}: the arithmetic combines with the data terms as (t_data^q + t_C^q)^(1/q)",
                *m.compute_overlap_exponent)) +
                " <span class=\"muted\">1: it adds; large: it hides</span>");
    if (m.mpi && m.mpi->latency_s && m.mpi->bandwidth_gbs)
        row("MPI point to point",
            h(fmt::format("latency {}, bandwidth {:.2f} GB/s{}",
                          core::format_seconds(m.mpi->latency_s->median), m.mpi->bandwidth_gbs->median,
                          m.mpi->alpha_s && m.mpi->beta_gbs
                              ? fmt::format("; Hockney α = {}, β = {:.2f} GB/s",
                                            core::format_seconds(*m.mpi->alpha_s), *m.mpi->beta_gbs)
                              : std::string())) +
                " <span class=\"muted\">" +
                h(m.mpi->placement.empty() ? core::to_string(m.mpi->source) : m.mpi->placement) + "</span>" +
                noisy_badge(*m.mpi->latency_s));
    if (!m.created.empty())
        row("Measured", h(m.created));
    o += "</tbody></table>\n";
}

// The machine's facts, then its caches, compute ceilings, memory levels and bandwidth measurements.
void machine_section(std::string& o, const core::Machine& m, const Roofs& roofs) {
    o += "<section id=\"machine\"><h2>Machine</h2>\n";
    machine_facts(o, m);
    if (m.topology && !m.topology->caches.empty()) {
        o += "<h3>Caches</h3><table><thead><tr><th>Level</th><th class=\"n\">Size</th><th "
             "class=\"n\">Usable "
             "(sweep)</th><th class=\"n\">Line</th><th class=\"n\">Ways</th><th class=\"n\">Shared "
             "by</th><th class=\"n\">Instances</th><th>Note</th></tr></thead><tbody>\n";
        for (const auto& c : m.topology->caches) {
            o += "<tr>" + td(c.name) + num_td(core::format_size(static_cast<double>(c.size_bytes))) +
                 num_td(c.effective_size_bytes
                            ? core::format_size(static_cast<double>(*c.effective_size_bytes))
                            : "–") +
                 num_td(fmt::format("{} B", c.line_bytes)) +
                 num_td(c.associativity ? std::to_string(*c.associativity) : "–") +
                 num_td(fmt::format("{} core{}", c.shared_by_cores, c.shared_by_cores == 1 ? "" : "s")) +
                 num_td(std::to_string(c.instances)) + td(c.note) + "</tr>\n";
        }
        o += "</tbody></table>\n";
    }

    if (const std::string noise = machine_noise_text(m); !noise.empty())
        o += "<p class=\"muted\" id=\"machine-noise\">" + h(noise) + "</p>\n";
    if (!m.ceilings.empty()) {
        o += "<h3>Compute ceilings</h3><table><thead><tr><th>Precision</th><th>ISA</th><th>Operation</th><th "
             "class=\"n\">Threads</th><th class=\"n\">Median</th><th class=\"n\">Min – max</th><th "
             "class=\"n\">IQR</th><th class=\"n\">n</th><th>Source</th></tr></thead><tbody>\n";
        for (const auto& c : m.ceilings) {
            o += "<tr>" + td(c.precision) + td(c.isa) + td(c.op) + num_td(std::to_string(c.threads)) +
                 num_td(gflops_text(c.gflops.median)) +
                 num_td(fmt::format("{} – {}", fixed3(c.gflops.min), fixed3(c.gflops.max))) +
                 "<td class=\"n\">" + machine_spread_cell(c.gflops) + "</td>" +
                 num_td(std::to_string(c.gflops.n)) + td(core::to_string(c.source)) + "</tr>\n";
        }
        o += "</tbody></table>\n";
    }

    o += "<h3>Memory levels</h3><table><thead><tr><th>Level</th><th class=\"n\">Roof in the "
         "charts</th><th>From</th><th class=\"n\">bandwidth_gbs</th><th>Kernel</th><th "
         "class=\"n\">IQR</th><th>Source</th></tr></thead><tbody>\n";
    for (const auto& l : m.levels) {
        const auto roof = std::find_if(roofs.memory.begin(), roofs.memory.end(),
                                       [&](const MemoryRoof& r) { return r.level == l.name; });
        o += "<tr>" + td(l.name) + num_td(roof != roofs.memory.end() ? gbs_text(roof->gbs) : "–") +
             td(roof != roofs.memory.end() ? roof->source : "") +
             num_td(l.bandwidth_gbs ? gbs_text(*l.bandwidth_gbs) : "–") + td(l.bandwidth_kernel) +
             "<td class=\"n\">" + (l.bandwidth ? machine_spread_cell(*l.bandwidth) : "–") + "</td>" +
             td(core::to_string(l.source)) + "</tr>\n";
    }
    o += "</tbody></table>\n";

    bool any_measurement = false;
    for (const auto& l : m.levels)
        any_measurement = any_measurement || !l.measurements.empty();
    if (any_measurement) {
        o += "<h3>Bandwidth measurements per level</h3><table><thead><tr><th>Level</th><th>Kernel</th><th "
             "class=\"n\">Threads</th><th class=\"n\">Working set</th><th class=\"n\">Median</th><th "
             "class=\"n\">Min – max [GB/s]</th><th class=\"n\">IQR</th><th class=\"n\">n</th><th "
             "class=\"n\">Moved / requested</th></tr></thead><tbody>\n";
        for (const auto& l : m.levels)
            for (const auto& p : l.measurements)
                o += "<tr>" + td(l.name) + td(p.kernel) + num_td(std::to_string(p.threads)) +
                     num_td(core::format_size(static_cast<double>(p.working_set_bytes))) +
                     num_td(gbs_text(p.gbs.median)) +
                     num_td(fmt::format("{} – {}", fixed3(p.gbs.min), fixed3(p.gbs.max))) +
                     "<td class=\"n\">" + machine_spread_cell(p.gbs) + "</td>" +
                     num_td(std::to_string(p.gbs.n)) + num_td(fmt::format("{:.3g}", p.moved_per_requested)) +
                     "</tr>\n";
        o += "</tbody></table>\n";
    }
    o += "</section>\n";
}

// The page's head, its title and the header with the machine and the navigation.
void page_head(std::string& o, const core::Results& r, const core::Machine& m) {
    o += "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta "
         "charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
    o += "<title>" + h("roofcast report · " + m.name) + "</title>\n<style>" + k_css +
         "</style>\n</head>\n<body>\n";
    o += "<header><div class=\"wrap\"><h1>roofcast report</h1><p>" + h(m.name);
    if (m.topology && !m.topology->cpu_model.empty())
        o += " · " + h(m.topology->cpu_model);
    if (!r.created.empty())
        o += " · " + h(r.created);
    if (!r.roofcast_version.empty())
        o += " · roofcast " + h(r.roofcast_version);
    o += "</p><nav><a href=\"#charts\">Charts</a><a href=\"#predictions\">Predictions</a><a "
         "href=\"#below-bound\">Below bound</a><a "
         "href=\"#machine\">Machine</a><a href=\"#warnings\">Warnings</a><a "
         "href=\"#derivations\">Derivations</a></nav></div></header>\n<main class=\"wrap\">\n";
}

// The model with the smallest median |error|; on a shared host the one most often inside or near the measured
// interval. Null when no model was scored.
const core::AccuracySummary* most_accurate(const core::Results& r) {
    const core::AccuracySummary* best_model = nullptr;
    for (const auto& a : r.accuracy)
        if (a.median_abs_error_pct &&
            (!best_model || *a.median_abs_error_pct < *best_model->median_abs_error_pct))
            best_model = &a;
    const auto interval_share = [](const core::AccuracySummary& a) {
        return static_cast<double>(a.within_tolerance) / static_cast<double>(a.n_interval);
    };
    if (judged_by_interval(r)) {
        best_model = nullptr;
        for (const auto& a : r.accuracy)
            if (a.n_interval > 0 && (!best_model || interval_share(a) > interval_share(*best_model)))
                best_model = &a;
    }
    return best_model;
}

// The summary cards: kernels, roofs, the most accurate model and each model's accuracy, the kernels below
// their bound, the undetermined and noisy ones and the warnings; then the headlines under them.
void summary_section(std::string& o, const core::Results& r, const Roofs& roofs,
                     const std::vector<Warning>& warnings) {
    std::size_t measured = 0;
    for (const auto& k : r.kernels)
        measured += k.measured_gflops.has_value();
    const core::AccuracySummary* best_model = most_accurate(r);
    o += "<section id=\"summary\"><div class=\"cards\">\n";
    const auto card = [&](const std::string& label, const std::string& value, const std::string& detail) {
        o += "<div class=\"card\"><div class=\"label\">" + h(label) + "</div><div class=\"value\">" +
             h(value) + "</div><div class=\"detail\">" + h(detail) + "</div></div>\n";
    };
    card("Kernels", std::to_string(r.kernels.size()), fmt::format("{} measured", measured));
    card("Compute roof", gflops_text(roofs.top()),
         fmt::format("{}, {}", roofs.compute.empty() ? "peak" : roofs.compute.front().label,
                     threads_text(roofs.threads)));
    card("Memory roof", roofs.memory.empty() ? "–" : gbs_text(roofs.memory.back().gbs),
         roofs.memory.empty() ? "" : roofs.memory.back().level + ", " + roofs.memory.back().source);
    if (best_model && judged_by_interval(r))
        card("Most accurate model", best_model->model,
             fmt::format("{} of {} validation kernels inside or ≤ 10 % beyond their measured interval",
                         best_model->within_tolerance, best_model->n_interval));
    else if (best_model)
        card("Most accurate model", best_model->model,
             fmt::format("median |error| {:.1f} % over {} validation kernels",
                         *best_model->median_abs_error_pct, best_model->n));
    else
        card("Most accurate model", "–", "no measured kernels");
    // Each model's accuracy, in the headline: the finding a reader comes for. Kept apart from the kernels
    // below their bound (issue 13 §4): accuracy is scored on the validation kernels only.
    const bool by_interval = judged_by_interval(r);
    for (const auto& a : r.accuracy)
        if (by_interval && a.n_interval > 0)
            card(a.model + " model", fmt::format("{} of {}", a.within_tolerance, a.n_interval),
                 fmt::format("inside or ≤ 10 % beyond the measured interval (shared host); {} inside; median "
                             "|error| against the point {:.1f} %",
                             a.inside_interval, a.median_abs_error_pct.value_or(0.0)));
        else if (a.median_abs_error_pct)
            card(a.model + " model", fmt::format("{:.1f} %", *a.median_abs_error_pct),
                 fmt::format("median |error| over {} validation kernels; max {}", a.n,
                             a.max_abs_error_pct ? fmt::format("{:.1f} %", *a.max_abs_error_pct) : "–"));
    card("Below their bound", std::to_string(below_bound(r).size()),
         fmt::format("kernels under {:.0f} % of their prediction, with causes",
                     100 * model::k_diagnosis_fraction));
    if (const auto open = undetermined(r); !open.empty())
        card("Undetermined", std::to_string(open.size()),
             fmt::format("kernels whose interval spans {:.0f} %: the host, not the code, decided",
                         100 * model::k_diagnosis_fraction));
    if (r.host_noise && r.host_noise->rows > 0)
        card("Noisy rows", fmt::format("{} of {}", r.host_noise->flagged, r.host_noise->rows),
             "moved more than the host did under the reference probes");
    // The count is of warnings proper; the machine's, the charts' and the results' notes (informational) are
    // counted beside them, not as warnings: a run whose machine file carries 70 notes has not 70 problems.
    if (!warnings.empty()) {
        const auto notes = static_cast<std::size_t>(
            std::count_if(warnings.begin(), warnings.end(), [](const Warning& w) { return w.info; }));
        card("Warnings", std::to_string(warnings.size() - notes),
             notes == 0 ? std::string("grouped by kind below the tables")
                        : fmt::format("and {} note{}, grouped by kind below the tables", notes,
                                      notes == 1 ? "" : "s"));
    }
    o += "</div>\n";
    o += below_bound_headline_html(r);
    if (const std::string host = host_sharing_text(r); !host.empty())
        o += "<p id=\"host-sharing\">" + h(host) + "</p>\n";
    if (const std::string noise = host_noise_text(r); !noise.empty())
        o += "<p class=\"muted\" id=\"host-noise\">" + h(noise) + "</p>\n";
    o += "</section>\n";
}

// The charts: the suite filter, the roofline, the hierarchical roofline, the bandwidth chart and the
// calibration loops' own roofline.
void charts_section(std::string& o, const core::Results& r, const svg::Document& classic,
                    const svg::Document& hierarchical, const svg::Document& bandwidth) {
    o += "<section id=\"charts\"><h2>Charts</h2>\n";
    // Per-suite filter: a checkbox per suite hides its kernels in the charts and the prediction table
    // (inline script, no library: the page stays self-contained and opens offline).
    std::vector<std::string> suites;
    for (const auto& k : r.kernels)
        if (std::find(suites.begin(), suites.end(), k.suite) == suites.end())
            suites.push_back(k.suite);
    if (suites.size() > 1) {
        o += "<p class=\"filter\">Show:";
        for (const auto& s : suites)
            o += " <label><input type=\"checkbox\" checked=\"checked\" data-suite=\"" + h(suite_class(s)) +
                 "\"/> " + h(s) + "</label>";
        o += "</p>\n";
    }
    o += "<figure id=\"fig-roofline\">" + classic.inline_markup() +
         "<figcaption>Roofline: filled dots are measurements at the kernel's memory-side intensity, hollow "
         "markers each model's prediction (the mixed family: the mixed model's, which it validates), joined "
         "to the "
         "measurement by a faint stem. Hover a marker for its "
         "numbers.</figcaption></figure>\n";
    o += "<figure id=\"fig-hierarchical\">" + hierarchical.inline_markup() +
         "<figcaption>Hierarchical roofline: the measured performance of each kernel at the arithmetic "
         "intensity "
         "of every memory level; a dot left of a level's roof means that level can bound the "
         "kernel.</figcaption></figure>\n";
    o += "<figure id=\"fig-bandwidth\">" + bandwidth.inline_markup() +
         "<figcaption>Bandwidth against working-set size; vertical lines mark cache sizes (dashed: the size "
         "the "
         "sweep showed to be usable), shaded bands the working sets each level "
         "serves.</figcaption></figure>\n";
    // The calibration loops' own chart, collapsed: they are many and calibrate the models, which the
    // validation kernels above judge.
    if (const auto n = static_cast<std::size_t>(
            std::count_if(r.kernels.begin(), r.kernels.end(),
                          [](const core::KernelResult& k) { return k.suite == "calibrate"; }));
        n > 0)
        o += "<details id=\"calibration-chart\"><summary>" +
             h(fmt::format("Calibration loops ({} kernels): their own roofline", n)) +
             "</summary><figure id=\"fig-calibration\">" +
             roofline_chart(r, RooflineView::classic, "roofline-calibration", KernelSet::calibration_only)
                 .inline_markup() +
             "<figcaption>Each sweep of calibration loops joined in catalogue order, with the mixed model's "
             "prediction; every model's is in the predictions table.</figcaption></figure></details>\n";
    o += "</section>\n";
}

// Per kernel, the level that bounds it and each model's per-level terms.
void derivations_section(std::string& o, const core::Results& r, const Roofs& roofs) {
    o +=
        "<section id=\"derivations\"><h2>Derivations</h2>\n<p class=\"muted\">Per kernel: which memory level "
        "bounds it on the roofline of the charts (the compute roof P = " +
        h(fmt::format("{}, {}, {}", gflops_text(roofs.top()),
                      roofs.compute.empty() ? "peak" : roofs.compute.front().label,
                      threads_text(roofs.threads))) +
        "), then each model's per-level terms; the highlighted row is the model's bottleneck. The "
        "calibration loops, the STREAM kernels and the mixed family's members (rows of one construction "
        "each) take one row of a table with the level bounding them: their predictions are in the "
        "predictions table, their per-level terms in results.json.</p>\n";
    if (r.kernels.empty())
        o += "<p class=\"none\">No kernels.</p>\n";
    // The calibration loops, the mixed family and STREAM (rows of one construction each) as rows of compact
    // tables, in the suite's order; every other kernel with its full derivation.
    bool in_table = false;
    for (const auto& k : r.kernels) {
        const bool compact = k.suite == "calibrate" || k.suite == "mixed" || k.suite == "stream";
        if (compact != in_table)
            compact ? compact_table_start(o) : compact_table_end(o);
        in_table = compact;
        if (compact)
            compact_row(o, k, roofs);
        else
            derivation(o, k, roofs);
    }
    if (in_table)
        compact_table_end(o);
    o += "</section>\n";
}

// The footer with the sources, and the suite filter's script.
void page_foot(std::string& o, const core::Results& r) {
    o += "</main>\n<footer><div class=\"wrap\">Written by roofcast";
    if (!r.roofcast_version.empty())
        o += " " + h(r.roofcast_version);
    o += ". Roofline: Williams, Waterman &amp; Patterson, CACM 52(4), 2009. Hierarchical/cache-aware "
         "roofline: "
         "Ilic, Pratas &amp; Sousa, IEEE CAL 13(1), 2014. Colours: Okabe &amp; Ito palette.</div></footer>\n";
    // The filter's script: no '<' or '&' in it, so the page stays well-formed XML.
    o += "<script>\ndocument.querySelectorAll('input[data-suite]').forEach(function (box) {\n"
         "  box.addEventListener('change', function () {\n"
         "    document.querySelectorAll('.' + box.getAttribute('data-suite')).forEach(function (e) {\n"
         "      e.style.display = box.checked ? '' : 'none';\n"
         "    });\n  });\n});\n</script>\n";
    o += "</body>\n</html>\n";
}

} // namespace

std::string html_report(const core::Results& r) {
    if (!r.machine)
        throw core::InputError("", "machine",
                               "the results have no embedded machine: cannot write the report");
    const core::Machine& m = *r.machine;
    const Roofs roofs = roofs_for(m, dominant_threads(r), dominant_precision(r));
    const svg::Document classic = roofline_chart(r, RooflineView::classic, "roofline");
    const svg::Document hierarchical = roofline_chart(r, RooflineView::hierarchical, "roofline-hierarchical");
    const svg::Document bandwidth = bandwidth_chart(m, "bandwidth");
    std::vector<std::string> chart_notes = classic.notes();
    for (const auto& n : bandwidth.notes())
        chart_notes.push_back(n);
    const auto warnings = collect_warnings(r, m, chart_notes);

    std::string o;
    o.reserve(1 << 18);
    page_head(o, r, m);
    summary_section(o, r, roofs, warnings);
    charts_section(o, r, classic, hierarchical, bandwidth);
    predictions_section(o, r);
    o += below_bound_html(r);
    machine_section(o, m, roofs);
    warnings_section(o, warnings);
    derivations_section(o, r, roofs);
    page_foot(o, r);
    return o;
}

void write_report_dir(const std::filesystem::path& dir, const core::Results& results) {
    if (!results.machine)
        throw core::InputError("", "machine",
                               "the results have no embedded machine: cannot write the report");
    // Render everything first, so that a failure leaves no partial report behind.
    const std::string html = html_report(results);
    const std::string roofline = roofline_chart(results, RooflineView::classic).standalone();
    const std::string hierarchical =
        roofline_chart(results, RooflineView::hierarchical, "roofline-hierarchical").standalone();
    const std::string bandwidth = bandwidth_chart(*results.machine).standalone();
    const std::string calibration =
        roofline_chart(results, RooflineView::classic, "roofline-calibration", KernelSet::calibration_only)
            .standalone();
    // The set is swapped in whole: an interrupted run leaves the old report or the new one.
    core::replace_directory(dir, k_report_files, [&](const std::filesystem::path& staging) {
        core::write_file_atomic(staging / "roofline.svg", roofline);
        core::write_file_atomic(staging / "roofline-hierarchical.svg", hierarchical);
        core::write_file_atomic(staging / "bandwidth.svg", bandwidth);
        core::write_file_atomic(staging / "roofline-calibration.svg", calibration);
        core::save_results((staging / "results.json").string(), results);
        core::save_machine((staging / "machine.yaml").string(), *results.machine);
        core::write_file_atomic(staging / "index.html", html);
    });
}

} // namespace roofcast::report
