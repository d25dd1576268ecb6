#include "report/scale_report.hpp"
#include "report/format.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <set>

namespace roofcast::report {

using namespace model::scale;

namespace {

// The rank counts of the measured points and the targets, ascending (a grid's data set has one parameter).
std::vector<double> grid_rank_counts(const ScaleResult& r) {
    std::set<double> ps;
    for (const auto& s : r.data.series)
        for (const auto& p : s.points)
            ps.insert(p.x[0]);
    for (const auto& t : r.targets)
        ps.insert(t[0]);
    return {ps.begin(), ps.end()};
}

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

nlohmann::json point_json(const Coord& x, const std::vector<std::string>& params) {
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t k = 0; k < params.size(); ++k)
        j[params[k]] = x[k];
    return j;
}

nlohmann::json prediction_json(const Prediction& p, const std::vector<std::string>& params) {
    return {
        {"x", point_json(p.x, params)}, {"value", json_or_null(p.value)},       {"lo", json_or_null(p.lo)},
        {"hi", json_or_null(p.hi)},     {"distance", json_or_null(p.distance)}, {"far", p.far}};
}

std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string csv_num(std::optional<double> v) {
    return v && std::isfinite(*v) ? fmt::format("{:.10g}", *v) : std::string();
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

std::string process_grid_text(const ScaleResult& r) {
    std::vector<std::string> at;
    for (const double p : grid_rank_counts(r))
        at.push_back(fmt::format("{} ranks {}", g(p), r.grid->shape_text(p)));
    const std::string domain = r.grid->domain.empty()
                                   ? std::string()
                                   : fmt::format(" over a {} domain", fmt::join(r.grid->domain, "x"));
    return fmt::format(
        "process grid ({}-D{}, halo terms cuts{}(ranks) and faces{}(ranks) among the candidates): "
        "{}\n",
        r.grid->dims, domain, r.grid->dims, r.grid->dims, fmt::join(at, ", "));
}

std::string scale_json(const ScaleResult& r) {
    const auto& params = r.data.parameters;
    nlohmann::json root;
    root["format"] = "roofcast-scale";
    root["format_version"] = 1;
    root["parameters"] = params;
    root["selection"] = to_string(r.selection);
    root["targets"] = nlohmann::json::array();
    for (const auto& t : r.targets)
        root["targets"].push_back(point_json(t, params));
    auto& fns = root["functions"] = nlohmann::json::array();
    for (std::size_t i = 0; i < r.data.series.size(); ++i) {
        const Series& s = r.data.series[i];
        const Fit& f = r.fits[i];
        nlohmann::json points = nlohmann::json::array();
        for (const auto& p : s.points) {
            const auto sum = core::summarize(p.values);
            points.push_back({{"x", point_json(p.x, params)},
                              {"mean", p.mean()},
                              {"median", sum->median},
                              {"min", sum->min},
                              {"max", sum->max},
                              {"n", sum->n},
                              {"spread", json_or_null(sum->spread)},
                              {"noisy", sum->noisy}});
        }
        nlohmann::json preds = nlohmann::json::array();
        for (const auto& p : r.predictions[i])
            preds.push_back(prediction_json(p, params));
        fns.push_back({{"function", s.function},
                       {"kind", s.kind.empty() ? nlohmann::json() : nlohmann::json(s.kind)},
                       {"metric", s.metric},
                       {"points", points},
                       {"model",
                        {{"family", to_string(f.model.family)},
                         {"formula", f.model.formula(params)},
                         {"coefficients", f.model.coef},
                         {"parameter_count", f.model.parameter_count()}}},
                       {"fit",
                        {{"mape_percent", f.mape},
                         {"rss", f.rss},
                         {"validation_error", json_or_null(f.validation_error)},
                         {"candidates", f.candidates}}},
                       {"predictions", preds},
                       {"notes", f.notes}});
    }
    root["warnings"] = r.data.warnings;
    if (r.grid) {
        nlohmann::json shapes = nlohmann::json::object();
        for (const double p : grid_rank_counts(r))
            shapes[g(p)] = r.grid->shape(p);
        root["grid"] = {{"dims", r.grid->dims}, {"shapes", shapes}, {"domain", r.grid->domain}};
    }
    if (r.evaluation) {
        const Evaluation& e = *r.evaluation;
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& c : e.rows)
            rows.push_back({{"function", r.data.series[c.series].function},
                            {"metric", r.data.series[c.series].metric},
                            {"predicted", prediction_json(c.predicted, params)},
                            {"measured", c.measured},
                            {"relative_error", json_or_null(c.relative_error)},
                            {"inside", c.inside}});
        root["evaluation"] = {{"file", e.file},
                              {"rows", rows},
                              {"mean_relative_error", json_or_null(e.mean_relative_error)},
                              {"mean_relative_error_own", json_or_null(e.mean_relative_error_own)},
                              {"mean_relative_error_library", json_or_null(e.mean_relative_error_library)},
                              {"library_rows", e.library_rows},
                              {"inside", e.inside},
                              {"unmatched", e.unmatched},
                              {"small_core_seconds", json_or_null(e.small_core_seconds)},
                              {"target_core_seconds", json_or_null(e.target_core_seconds)},
                              {"cost_ratio", json_or_null(e.cost_ratio)},
                              {"small_cpu_seconds", json_or_null(e.small_cpu_seconds)},
                              {"target_cpu_seconds", json_or_null(e.target_cpu_seconds)},
                              {"cpu_cost_ratio", json_or_null(e.cpu_cost_ratio)}};
    }
    return root.dump(2) + "\n";
}

std::string scale_csv(const ScaleResult& r) {
    const auto& params = r.data.parameters;
    std::string out =
        "function,metric,family,model,points,fit_mape_percent,validation_error,max_spread,noisy,"
        "target,predicted,lo,hi,distance,far,notes\n";
    for (std::size_t i = 0; i < r.data.series.size(); ++i) {
        const Series& s = r.data.series[i];
        const Fit& f = r.fits[i];
        const Spread sp = spread_of(s);
        const std::string head = fmt::format(
            "{},{},{},{},{},{},{},{},{}", csv_cell(s.function), csv_cell(s.metric), to_string(f.model.family),
            csv_cell(f.model.formula(params)), f.xs.size(), csv_num(f.mape), csv_num(f.validation_error),
            sp.known ? csv_num(sp.max_spread) : std::string(), sp.noisy ? "true" : "false");
        const std::string notes = csv_cell(fmt::format("{}", fmt::join(f.notes, "; ")));
        if (r.predictions[i].empty())
            out += head + ",,,,,,," + notes + "\n";
        for (const auto& p : r.predictions[i])
            out += fmt::format("{},{},{},{},{},{},{},{}\n", head, csv_cell(format_point(p.x, params)),
                               csv_num(p.value), csv_num(p.lo), csv_num(p.hi), csv_num(p.distance),
                               p.far ? "true" : "false", notes);
    }
    return out;
}

} // namespace roofcast::report
