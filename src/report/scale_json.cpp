// `roofcast scale --json`: the document (format "roofcast-scale", version 1) written as it is formatted,
// function by function, in nlohmann::json's dump(2) layout (report/json_out.hpp): a million functions make
// a document of gigabytes, which a tree of nlohmann values would hold several times over.
#include "report/chunks.hpp"
#include "report/json_out.hpp"
#include "report/scale_report.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <utility>

namespace roofcast::report {

using namespace model::scale;

namespace {

// {"name": value, ...} for the parameters, in the order (and with the one value per name) of the
// std::map that holds a JSON object.
void point_out(JsonOut& j, const Coord& x, const std::vector<std::string>& params) {
    std::vector<std::pair<std::string_view, double>> members;
    for (std::size_t k = 0; k < params.size(); ++k) {
        const auto it =
            std::find_if(members.begin(), members.end(), [&](const auto& m) { return m.first == params[k]; });
        if (it != members.end())
            it->second = x[k]; // a repeated name: the last value, as j[name] = value leaves it
        else
            members.emplace_back(params[k], x[k]);
    }
    std::sort(members.begin(), members.end());
    j.begin_object();
    for (const auto& [name, v] : members) {
        j.field(name, v);
    }
    j.end_object();
}

void prediction_out(JsonOut& j, const Prediction& p, const std::vector<std::string>& params) {
    j.begin_object();
    j.field("distance", p.distance);
    j.field("far", p.far);
    j.field("hi", p.hi);
    j.field("lo", p.lo);
    j.field("value", p.value);
    j.key("x");
    point_out(j, p.x, params);
    j.end_object();
}

void points_out(JsonOut& j, const Series& s, const std::vector<std::string>& params) {
    j.begin_array();
    for (const auto& p : s.points) {
        const auto sum = core::summarize(p.values);
        j.begin_object();
        j.field("max", sum->max);
        j.field("mean", p.mean());
        j.field("median", sum->median);
        j.field("min", sum->min);
        j.unsigned_field("n", sum->n);
        j.field("noisy", sum->noisy);
        j.field("spread", sum->spread);
        j.key("x");
        point_out(j, p.x, params);
        j.end_object();
    }
    j.end_array();
}

void function_out(JsonOut& j, const ScaleResult& r, std::size_t i) {
    const auto& params = r.data.parameters;
    const Series& s = r.data.series[i];
    const Fit& f = r.fits[i];
    j.begin_object();
    j.key("fit");
    j.begin_object();
    j.unsigned_field("candidates", f.candidates);
    j.field("mape_percent", f.mape);
    j.field("rss", f.rss);
    j.field("validation_error", f.validation_error);
    j.end_object();
    j.field("function", s.function);
    j.key("kind");
    if (s.kind.empty())
        j.null();
    else
        j.value(s.kind);
    j.field("metric", s.metric);
    j.key("model");
    j.begin_object();
    j.list_field("coefficients", f.model.coef);
    j.field("family", to_string(f.model.family));
    j.field("formula", f.model.formula(params));
    j.unsigned_field("parameter_count", f.model.parameter_count());
    j.end_object();
    j.list_field("notes", f.notes);
    j.key("points");
    points_out(j, s, params);
    j.key("predictions");
    j.begin_array();
    for (const auto& p : r.predictions[i])
        prediction_out(j, p, params);
    j.end_array();
    j.end_object();
}

void evaluation_out(JsonOut& j, const ScaleResult& r) {
    const Evaluation& e = *r.evaluation;
    j.begin_object();
    j.field("cost_ratio", e.cost_ratio);
    j.field("cpu_cost_ratio", e.cpu_cost_ratio);
    j.field("file", e.file);
    j.unsigned_field("inside", e.inside);
    j.unsigned_field("library_rows", e.library_rows);
    j.field("mean_relative_error", e.mean_relative_error);
    j.field("mean_relative_error_library", e.mean_relative_error_library);
    j.field("mean_relative_error_own", e.mean_relative_error_own);
    j.key("rows");
    j.begin_array();
    for (const auto& c : e.rows) {
        j.begin_object();
        j.field("function", r.data.series[c.series].function);
        j.field("inside", c.inside);
        j.field("measured", c.measured);
        j.field("metric", r.data.series[c.series].metric);
        j.key("predicted");
        prediction_out(j, c.predicted, r.data.parameters);
        j.field("relative_error", c.relative_error);
        j.end_object();
    }
    j.end_array();
    j.field("small_core_seconds", e.small_core_seconds);
    j.field("small_cpu_seconds", e.small_cpu_seconds);
    j.field("target_core_seconds", e.target_core_seconds);
    j.field("target_cpu_seconds", e.target_cpu_seconds);
    j.list_field("unmatched", e.unmatched);
    j.end_object();
}

// {"dims": D, "domain": [...], "shapes": {"P": [a, b], ...}}: the shapes keyed by rank count as printed,
// in the string order of nlohmann's object.
void grid_out(JsonOut& j, const ScaleResult& r) {
    std::vector<std::pair<std::string, std::vector<int>>> shapes;
    for (const double p : grid_rank_counts(r))
        shapes.emplace_back(rank_count_text(p), r.grid->shape(p));
    std::sort(shapes.begin(), shapes.end());
    j.begin_object();
    j.key("dims");
    j.value_integer(r.grid->dims);
    j.list_field("domain", r.grid->domain);
    j.key("shapes");
    j.begin_object();
    for (const auto& [ranks, shape] : shapes) {
        j.key(ranks);
        j.begin_array();
        for (const int k : shape)
            j.value_integer(k);
        j.end_array();
    }
    j.end_object();
    j.end_object();
}

// Every string the document holds, checked before its first byte is written (the formulas are made of
// numbers, fixed text and the parameters' names).
void check_strings(const ScaleResult& r) {
    for (const auto& p : r.data.parameters)
        check_json_string(p);
    for (const auto& w : r.data.warnings)
        check_json_string(w);
    for (std::size_t i = 0; i < r.data.series.size(); ++i) {
        check_json_string(r.data.series[i].function);
        check_json_string(r.data.series[i].metric);
        for (const auto& n : r.fits[i].notes)
            check_json_string(n);
    }
    if (r.evaluation) {
        check_json_string(r.evaluation->file);
        for (const auto& u : r.evaluation->unmatched)
            check_json_string(u);
    }
}

} // namespace

void write_scale_json(const ScaleResult& r, const TextSink& sink) {
    check_strings(r);
    std::string head;
    JsonOut j(head);
    j.begin_object();
    if (r.evaluation) {
        j.key("evaluation");
        evaluation_out(j, r);
    }
    j.field("format", "roofcast-scale");
    j.key("format_version");
    j.value_integer(1);
    j.key("functions");
    j.begin_array();
    sink(head);
    constexpr std::size_t k_chunk = 512;
    write_in_chunks(
        r.data.series.size(), k_chunk,
        [&](std::size_t begin, std::size_t end, std::string& out) {
            JsonOut piece = JsonOut::inside_array(out, 2, begin == 0);
            for (std::size_t i = begin; i < end; ++i)
                function_out(piece, r, i);
        },
        sink);
    std::string tail;
    JsonOut t = JsonOut::inside_array(tail, 2, r.data.series.empty());
    t.end_array();
    if (r.grid) {
        t.key("grid");
        grid_out(t, r);
    }
    t.list_field("parameters", r.data.parameters);
    t.field("selection", to_string(r.selection));
    t.key("targets");
    t.begin_array();
    for (const auto& x : r.targets)
        point_out(t, x, r.data.parameters);
    t.end_array();
    t.list_field("warnings", r.data.warnings);
    t.end_object();
    tail += '\n';
    sink(tail);
}

std::string scale_json(const ScaleResult& r) {
    std::string out;
    write_scale_json(r, [&](std::string_view piece) { out += piece; });
    return out;
}

} // namespace roofcast::report
