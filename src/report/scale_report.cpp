#include "report/scale_report.hpp"
#include "report/chunks.hpp"
#include "report/format.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>
#include <set>

namespace roofcast::report {

using namespace model::scale;

namespace {

struct Spread {
    double max_spread = 0.0;
    bool noisy = false;
    bool known = false;
};

// Largest relative spread of the repetitions over a series' points (core::summarize's definition).
Spread spread_of(const Series& s) {
    Spread out;
    for (const auto& p : s.points) {
        if (p.values.size() < 2)
            continue;
        const auto sum = core::summarize(p.values);
        if (sum && sum->spread) {
            out.known = true;
            out.max_spread = std::max(out.max_spread, *sum->spread);
            out.noisy = out.noisy || sum->noisy;
        }
    }
    return out;
}

std::string g(double v) {
    return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string("n/a");
}

std::string percent(std::optional<double> fraction) {
    return fraction && std::isfinite(*fraction) ? fmt::format("{:.2f} %", 100.0 * *fraction)
                                                : std::string("n/a");
}

std::string interval_text(const Prediction& p) {
    if (!p.lo || !p.hi)
        return "[n/a]";
    return fmt::format("[{}, {}]", g(*p.lo), g(*p.hi));
}

// Renders rows as left-aligned columns separated by two spaces.
std::string table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    auto display = [](const std::string& s) { // count UTF-8 code points, not bytes ("·")
        return static_cast<std::size_t>(std::count_if(
            s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    };
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) {
            if (width.size() <= c)
                width.push_back(0);
            width[c] = std::max(width[c], display(r[c]));
        }
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t c = 0; c < r.size(); ++c) {
            line += r[c];
            if (c + 1 < r.size())
                line += std::string(width[c] - display(r[c]) + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    return out;
}

void append_csv_cell(std::string& out, std::string_view s) {
    if (s.find_first_of(",\"\n") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

// "{:.10g}" of a finite figure, written by std::to_chars with the same digits (printf's "%.10g", which fmt
// follows) at a fraction of the cost: five figures a row, a row per series and target.
void append_csv_num(std::string& out, std::optional<double> v) {
    if (!v || !std::isfinite(*v))
        return;
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, *v, std::chars_format::general, 10);
    out.append(buf, r.ptr);
}

// The CSV rows of series [begin, end): one per target (or one without a prediction when there is none).
void csv_rows(const ScaleResult& r, std::size_t begin, std::size_t end,
              const std::vector<std::string>& targets, std::string& out) {
    const auto& params = r.data.parameters;
    std::string head, notes, target;
    for (std::size_t i = begin; i < end; ++i) {
        const Series& s = r.data.series[i];
        const Fit& f = r.fits[i];
        const Spread sp = spread_of(s);
        head.clear();
        append_csv_cell(head, s.function);
        head += ',';
        append_csv_cell(head, s.metric);
        head += ',';
        head += to_string(f.model.family);
        head += ',';
        append_csv_cell(head, f.model.formula(params));
        fmt::format_to(std::back_inserter(head), ",{},", f.xs.size());
        append_csv_num(head, f.mape);
        head += ',';
        append_csv_num(head, f.validation_error);
        head += ',';
        if (sp.known)
            append_csv_num(head, sp.max_spread);
        head += sp.noisy ? ",true" : ",false";
        notes.clear();
        append_csv_cell(notes, fmt::format("{}", fmt::join(f.notes, "; ")));
        if (r.predictions[i].empty()) {
            out += head;
            out += ",,,,,,,";
            out += notes;
            out += '\n';
        }
        for (std::size_t t = 0; t < r.predictions[i].size(); ++t) {
            const Prediction& p = r.predictions[i][t];
            out += head;
            out += ',';
            if (t < r.targets.size() && r.targets[t] == p.x) {
                out += targets[t];
            } else {
                target.clear();
                append_csv_cell(target, format_point(p.x, params));
                out += target;
            }
            out += ',';
            append_csv_num(out, p.value);
            out += ',';
            append_csv_num(out, p.lo);
            out += ',';
            append_csv_num(out, p.hi);
            out += ',';
            append_csv_num(out, p.distance);
            out += p.far ? ",true," : ",false,";
            out += notes;
            out += '\n';
        }
    }
}

} // namespace

std::string scale_text(const ScaleResult& r) {
    const auto& params = r.data.parameters;
    std::string out = fmt::format("{} series over {} point(s) of ({}); selection: {}\n", r.data.series.size(),
                                  r.data.point_count(), fmt::join(params, ", "), to_string(r.selection));
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"function", "metric", "n", "model", "fit MAPE", "valid. err", "spread"};
    for (const auto& t : r.targets)
        head.push_back(fmt::format("at {} [95 % interval]", format_point(t, params)));
    head.push_back("flags");
    rows.push_back(head);
    std::vector<std::string> notes;
    for (std::size_t i = 0; i < r.data.series.size(); ++i) {
        const Series& s = r.data.series[i];
        const Fit& f = r.fits[i];
        const Spread sp = spread_of(s);
        std::vector<std::string> row = {s.function,
                                        s.metric,
                                        std::to_string(f.xs.size()),
                                        f.model.formula(params),
                                        fmt::format("{:.2f} %", f.mape),
                                        percent(f.validation_error),
                                        sp.known ? percent(sp.max_spread) : std::string("n/a")};
        std::vector<std::string> fl;
        if (sp.noisy)
            fl.push_back("noisy");
        for (const auto& p : r.predictions[i]) {
            row.push_back(fmt::format("{} {}", g(p.value), interval_text(p)));
            if (p.far)
                fl.push_back(std::isfinite(p.distance)
                                 ? fmt::format("far: {} is {:.1f} measured ranges out",
                                               format_point(p.x, params), p.distance)
                                 : fmt::format("far: {} is unboundedly far out (at or below 0 beside "
                                               "positive points, or the points share one value)",
                                               format_point(p.x, params)));
        }
        row.push_back(fmt::format("{}", fmt::join(fl, "; ")));
        rows.push_back(row);
        for (const auto& n : f.notes)
            notes.push_back(fmt::format("  {} {}: {}", s.function, s.metric, n));
    }
    out += table(rows);
    for (const auto& w : r.data.warnings)
        notes.push_back("  " + w);
    if (!notes.empty())
        out += "notes:\n" + fmt::format("{}\n", fmt::join(notes, "\n"));
    if (r.evaluation) {
        const Evaluation& e = *r.evaluation;
        out += fmt::format("evaluation against {}:\n", e.file);
        std::vector<std::vector<std::string>> er = {
            {"function", "metric", "at", "predicted [95 % interval]", "measured", "rel. error", "inside"}};
        for (const auto& c : e.rows) {
            const Series& s = r.data.series[c.series];
            er.push_back({s.function, s.metric, format_point(c.predicted.x, params),
                          fmt::format("{} {}", g(c.predicted.value), interval_text(c.predicted)),
                          g(c.measured), percent(c.relative_error), c.inside ? "yes" : "no"});
        }
        out += table(er);
        out += fmt::format("mean relative error: {} over {} comparison(s); {} of {} inside their interval\n",
                           percent(e.mean_relative_error), e.rows.size(), e.inside, e.rows.size());
        if (e.library_rows > 0)
            out += fmt::format(
                "  the program's own functions: {} over {}; shared libraries' functions: {} over {}\n",
                percent(e.mean_relative_error_own), e.rows.size() - e.library_rows,
                percent(e.mean_relative_error_library), e.library_rows);
        for (const auto& u : e.unmatched)
            out += fmt::format("not modelled (absent from the small runs): {}\n", u);
        if (e.cost_ratio)
            out += fmt::format("profiling cost: small runs {} core-s, target run {} core-s, ratio {:.3f}\n",
                               g(*e.small_core_seconds), g(*e.target_core_seconds), *e.cost_ratio);
        if (e.cpu_cost_ratio)
            out += fmt::format("profiling cost in processor time: small runs {} CPU-s, target run {} CPU-s, "
                               "ratio {:.3f}\n",
                               g(*e.small_cpu_seconds), g(*e.target_cpu_seconds), *e.cpu_cost_ratio);
        if (!e.cost_ratio)
            out += "profiling cost: n/a (run cost is recorded only in roofcast profiles: run.wall_seconds × "
                   "run.cores)\n";
    }
    return out;
}

std::vector<double> grid_rank_counts(const ScaleResult& r) {
    std::set<double> ps;
    for (const auto& s : r.data.series)
        for (const auto& p : s.points)
            ps.insert(p.x[0]);
    for (const auto& t : r.targets)
        ps.insert(t[0]);
    return {ps.begin(), ps.end()};
}

std::string rank_count_text(double ranks) {
    return g(ranks);
}

std::string process_grid_text(const ScaleResult& r) {
    std::vector<std::string> at;
    for (const double p : grid_rank_counts(r))
        at.push_back(fmt::format("{} ranks {}", rank_count_text(p), r.grid->shape_text(p)));
    const std::string domain = r.grid->domain.empty()
                                   ? std::string()
                                   : fmt::format(" over a {} domain", fmt::join(r.grid->domain, "x"));
    return fmt::format(
        "process grid ({}-D{}, halo terms cuts{}(ranks) and faces{}(ranks) among the candidates): "
        "{}\n",
        r.grid->dims, domain, r.grid->dims, r.grid->dims, fmt::join(at, ", "));
}

void write_scale_csv(const ScaleResult& r, const TextSink& sink) {
    sink("function,metric,family,model,points,fit_mape_percent,validation_error,max_spread,noisy,"
         "target,predicted,lo,hi,distance,far,notes\n");
    std::vector<std::string> targets; // each target's cell, the same on every row
    for (const auto& t : r.targets) {
        targets.emplace_back();
        append_csv_cell(targets.back(), format_point(t, r.data.parameters));
    }
    constexpr std::size_t k_chunk = 2048;
    write_in_chunks(
        r.data.series.size(), k_chunk,
        [&](std::size_t begin, std::size_t end, std::string& out) { csv_rows(r, begin, end, targets, out); },
        sink);
}

std::string scale_csv(const ScaleResult& r) {
    std::string out;
    write_scale_csv(r, [&](std::string_view piece) { out += piece; });
    return out;
}

} // namespace roofcast::report
