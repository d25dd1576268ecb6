#include "report/diagnosis_text.hpp"

#include "experiment/diagnosis.hpp"
#include "experiment/verdict.hpp"
#include "report/svg.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report {

namespace {

// One line per cause and one for the ceilings the kernel sits under, each after `indent`.
std::string cause_lines(const core::KernelResult& k, const char* indent) {
    std::string out;
    for (const auto& d : k.diagnosis)
        out += fmt::format("{}{:<16} {}\n", indent, d.cause, d.evidence);
    const std::string under = ceilings_above_text(k);
    if (!under.empty())
        out += fmt::format("{}{:<16} {}\n", indent, "sits under", under);
    return out;
}

} // namespace

std::vector<const core::KernelResult*> below_bound(const core::Results& r) {
    std::vector<const core::KernelResult*> out;
    for (const auto& k : r.kernels)
        if (k.verdict ? k.verdict->state == "below" && !k.diagnosis.empty() : !k.diagnosis.empty())
            out.push_back(&k);
    return out;
}

std::vector<const core::KernelResult*> undetermined(const core::Results& r) {
    std::vector<const core::KernelResult*> out;
    for (const auto& k : r.kernels)
        if (k.verdict && k.verdict->state == "undetermined")
            out.push_back(&k);
    return out;
}

std::string verdict_counts(const core::Results& r) {
    std::size_t at = 0, below = 0, open = 0;
    for (const auto& k : r.kernels)
        if (k.verdict)
            (k.verdict->state == "at-bound" ? at : k.verdict->state == "below" ? below : open) += 1;
    if (at + below + open == 0)
        return "";
    return fmt::format("{} at their bound, {} below it, {} undetermined (the interval of the fraction spans "
                       "{:.0f} %)",
                       at, below, open, 100 * model::k_diagnosis_fraction);
}

std::string interval_text(const core::KernelResult& k) {
    if (!k.verdict)
        return "";
    return fmt::format(" [{:.0f}-{:.0f} %]", 100 * k.verdict->lo, 100 * k.verdict->hi);
}

std::string accuracy_scope(const core::Results& r) {
    std::size_t validation = 0, untuned = 0, calibration = 0;
    for (const auto& k : r.kernels)
        (k.role == "untuned"                                 ? untuned
         : k.role == "calibration" || k.suite == "calibrate" ? calibration
                                                             : validation) += 1;
    std::string s =
        fmt::format("model accuracy over the {} validation kernel{}", validation, validation == 1 ? "" : "s");
    std::vector<std::string> left;
    if (untuned)
        left.push_back(
            fmt::format("{} untuned kernel{} (listed below their bound)", untuned, untuned == 1 ? "" : "s"));
    if (calibration)
        left.push_back(fmt::format("{} calibration loop{}", calibration, calibration == 1 ? "" : "s"));
    if (!left.empty()) {
        s += "; not scored: ";
        for (std::size_t i = 0; i < left.size(); ++i)
            s += (i ? " and " : "") + left[i];
    }
    return s;
}

std::string ceilings_above_text(const core::KernelResult& k, std::size_t most) {
    std::vector<const core::Ceiling*> above;
    for (const auto& c : k.ceilings)
        if (c.above)
            above.push_back(&c);
    std::stable_sort(above.begin(), above.end(),
                     [](const auto* a, const auto* b) { return a->gflops < b->gflops; });
    std::string s;
    for (std::size_t i = 0; i < above.size() && i < most; ++i)
        s += fmt::format("{}{} {:.1f} GF/s", i ? ", " : "", above[i]->name, above[i]->gflops);
    return s;
}

std::string format_below_bound(const core::Results& r) {
    const auto ks = below_bound(r);
    std::string out;
    if (const std::string counts = verdict_counts(r); !counts.empty())
        out += "verdicts: " + counts + "\n";
    out += fmt::format("kernels below {:.0f} % of their bound: {}\n", 100 * model::k_diagnosis_fraction,
                       ks.size());
    for (const auto* k : ks) {
        const core::Prediction* p = model::bound_prediction(*k);
        out += fmt::format("  {:<22} {:>5.1f} %{} of its {} prediction{}\n", k->name,
                           100 * k->bound_fraction.value_or(0), interval_text(*k), p ? p->model : "-",
                           k->role == "untuned" ? " (untuned)" : "");
        out += cause_lines(*k, "    ");
    }
    const auto open = undetermined(r);
    if (!open.empty()) {
        out += fmt::format("kernels undetermined (no causes: the host decided): {}\n", open.size());
        for (const auto* k : open)
            out += fmt::format("  {:<22} {}\n", k->name, model::undetermined_text(*k->verdict));
    }
    return out;
}

std::string format_measured_verdict(const core::KernelResult& k) {
    const core::Prediction* p = model::bound_prediction(k);
    if (!p || !k.bound_fraction)
        return "measured: no valid prediction to compare with\n";
    std::string out = fmt::format("measured: {} = {:.1f} % of its {} prediction ({})\n",
                                  k.measured_gflops ? fmt::format("{:.2f} GFLOP/s", k.measured_gflops->min)
                                                    : std::string("-"),
                                  100 * *k.bound_fraction, p->model, p->bottleneck);
    if (k.diagnosis.empty())
        return out + fmt::format("it reaches {:.0f} % of its bound: no diagnosis\n",
                                 100 * model::k_diagnosis_fraction);
    return out + cause_lines(k, "  ");
}

std::string below_bound_html(const core::Results& r) {
    const auto h = [](const std::string& s) { return svg::escape(s); };
    const auto ks = below_bound(r);
    std::string o = "<section id=\"below-bound\"><h2>Below their bound</h2>\n<p class=\"muted\">" +
                    h(fmt::format("Kernels under {:.0f} % of their prediction, each with the causes roofcast "
                                  "found evidence for (untuned kernels are kept to show them; they never "
                                  "enter the accuracy figures). ",
                                  100 * model::k_diagnosis_fraction)) +
                    "</p>\n";
    if (ks.empty())
        return o + "<p class=\"none\">Every measured kernel reaches its bound.</p></section>\n";
    o += "<table><thead><tr><th>Kernel</th><th class=\"n\">Of its bound</th><th>Cause</th><th>Evidence</th>"
         "</tr></thead><tbody>\n";
    for (const auto* k : ks) {
        const core::Prediction* p = model::bound_prediction(*k);
        const std::size_t rows = k->diagnosis.size() + 1;
        for (std::size_t i = 0; i < rows; ++i) {
            o += "<tr>";
            if (i == 0)
                o += "<td rowspan=\"" + std::to_string(rows) + "\">" + h(k->name) +
                     (k->role == "untuned" ? " <span class=\"muted\">(untuned)</span>" : "") +
                     "</td><td class=\"n\" rowspan=\"" + std::to_string(rows) + "\">" +
                     h(fmt::format("{:.1f} % of {}", 100 * k->bound_fraction.value_or(0),
                                   p ? p->model : "–")) +
                     "</td>";
            if (i < k->diagnosis.size())
                o += "<td>" + h(k->diagnosis[i].cause) + "</td><td>" + h(k->diagnosis[i].evidence) + "</td>";
            else
                o += "<td class=\"muted\">sits under</td><td>" + h(ceilings_above_text(*k)) + "</td>";
            o += "</tr>\n";
        }
    }
    o += "</tbody></table>\n";
    const auto open = undetermined(r);
    if (!open.empty()) {
        o += "<h3 id=\"undetermined\">" +
             h(fmt::format("Undetermined: {} kernel{} whose interval spans {:.0f} %", open.size(),
                           open.size() == 1 ? "" : "s", 100 * model::k_diagnosis_fraction)) +
             "</h3>\n<ul>\n";
        for (const auto* k : open)
            o += "<li><strong>" + h(k->name) + "</strong> " + h(model::undetermined_text(*k->verdict)) +
                 "</li>\n";
        o += "</ul>\n";
    }
    return o + "</section>\n";
}

std::string below_bound_headline_html(const core::Results& r, std::size_t most) {
    auto ks = below_bound(r);
    if (ks.empty())
        return "";
    std::stable_sort(ks.begin(), ks.end(), [](const core::KernelResult* a, const core::KernelResult* b) {
        return a->bound_fraction.value_or(0) < b->bound_fraction.value_or(0);
    });
    const auto h = [](const std::string& s) { return svg::escape(s); };
    std::string o =
        "<div id=\"headline-below\"><h3>" +
        h(fmt::format("Below their bound: {} kernel{}, lowest first", ks.size(), ks.size() == 1 ? "" : "s")) +
        "</h3><ul>\n";
    for (std::size_t i = 0; i < std::min(most, ks.size()); ++i) {
        const core::KernelResult& k = *ks[i];
        const core::Prediction* p = model::bound_prediction(k);
        std::vector<std::string> causes;
        for (const auto& d : k.diagnosis)
            if (std::find(causes.begin(), causes.end(), d.cause) == causes.end())
                causes.push_back(d.cause);
        std::string cause_list;
        for (const auto& c : causes)
            cause_list += (cause_list.empty() ? "" : ", ") + c;
        // The evidence's first clause ("16 streams of the innermost loop map into one L1 set of 8 ways"):
        // the whole text is in the section below.
        const std::string& evidence = k.diagnosis.front().evidence;
        const std::string clause = evidence.substr(0, evidence.find_first_of(";:("));
        o += "<li><strong>" + h(k.name) + "</strong>" +
             (k.role == "untuned" ? " <span class=\"muted\">(untuned)</span>" : "") + " " +
             h(fmt::format("{:.0f} % of its {} bound — {}: {}", 100 * k.bound_fraction.value_or(0),
                           p ? p->model : "predicted", cause_list, clause)) +
             "</li>\n";
    }
    if (ks.size() > most)
        o += "<li class=\"muted\">" + h(fmt::format("and {} more", ks.size() - most)) + "</li>\n";
    return o + "</ul><p><a href=\"#below-bound\">Every cause with its evidence</a></p></div>\n";
}

} // namespace roofcast::report
