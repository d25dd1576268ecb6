#include "analysis/scale/dataset.hpp"
#include "analysis/scale/reader_detail.hpp"

#include "core/error.hpp"
#include "core/json_keys.hpp"
#include "core/key_path.hpp"
#include "core/nesting.hpp"
#include "core/profile.hpp"
#include "core/range.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <unordered_map>

namespace roofcast::model::scale {

using core::InputError;
using nlohmann::json;

double Point::mean() const {
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::size_t Dataset::point_count() const {
    std::set<Coord> all;
    for (const auto& s : series)
        for (const auto& p : s.points)
            all.insert(p.x);
    return all.size();
}

namespace reading {

std::optional<double> to_number(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '+'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    if (text == "nan" || text == "NaN" || text == "NAN")
        return std::nan("");
    double v = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

std::vector<std::string> split_csv(std::string_view line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(trim(cur));
    return out;
}

Coord to_coord(const std::vector<double>& v, std::size_t nparams, const std::string& file,
               const std::string& field) {
    if (v.size() != nparams)
        throw InputError(file, field,
                         fmt::format("expected {} coordinate(s) per point (one per parameter), got {}",
                                     nparams, v.size()));
    Coord c{};
    for (std::size_t i = 0; i < v.size(); ++i)
        c[i] = v[i];
    return c;
}

void check_parameter_count(std::size_t n, const std::string& file, const std::string& field) {
    if (n == 0 || n > k_max_parameters)
        throw InputError(file, field, fmt::format("expected 1 or 2 parameters, got {}", n));
}

} // namespace reading

using namespace reading;

namespace {

double json_number(const json& j, const std::string& file, const std::string& field) {
    if (j.is_number())
        return j.get<double>();
    if (j.is_string()) { // Extra-P writes "nan"/"inf" as strings
        if (const auto v = to_number(j.get<std::string>()))
            return *v;
    }
    throw InputError(file, field, fmt::format("expected a number, got {}", j.dump()));
}

// An Extra-P id: a whole number of at most 2^53 in magnitude (exact in a double), so the conversion to
// an integer is defined for every input.
long long json_id(const json& j, const std::string& file, const std::string& field) {
    const double v = json_number(j, file, field);
    if (!(std::fabs(v) <= 9007199254740992.0 && v == std::floor(v)))
        throw InputError(file, field, "expected a whole-number id");
    return static_cast<long long>(v);
}

// A number or a non-empty array of numbers; `field()` builds the path an error names, only for an error (a
// profile holds tens of thousands of such arrays).
template <class Path>
std::vector<double> json_numbers(const json& j, const std::string& file, const Path& field) {
    if (j.is_number() || j.is_string())
        return {json_number(j, file, field())};
    if (!j.is_array() || j.empty())
        throw InputError(file, field(), "expected a non-empty array of numbers");
    std::vector<double> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i)
        out.push_back(j[i].is_number() ? j[i].get<double>()
                                       : json_number(j[i], file, core::element_path(field(), i)));
    return out;
}

std::vector<double> json_numbers(const json& j, const std::string& file, const std::string& field) {
    return json_numbers(j, file, [&field] { return field; });
}

const json& member(const json& j, const char* key, const std::string& file, const std::string& field) {
    if (!j.is_object() || !j.contains(key))
        throw InputError(file, field.empty() ? key : field + "." + key, "missing required field");
    return j.at(key);
}

json parse_json(const std::string& text, const std::string& file) {
    core::check_nesting(text, file);
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw InputError(file, "", fmt::format("not valid JSON ({})", e.what()));
    }
}

Dataset extrap_json_new(const json& root, const std::string& file) {
    Dataset d;
    const json& params = member(root, "parameters", file, "");
    if (!params.is_array())
        throw InputError(file, "parameters", "expected an array of parameter names");
    for (const auto& p : params)
        d.parameters.push_back(p.is_string() ? p.get<std::string>() : p.dump());
    check_parameter_count(d.parameters.size(), file, "parameters");
    const json& meas = member(root, "measurements", file, "");
    if (!meas.is_object())
        throw InputError(file, "measurements", "expected an object {callpath: {metric: [...]}}");
    Builder b(d);
    for (const auto& [callpath, metrics] : meas.items()) {
        const std::string f1 = "measurements." + callpath;
        if (!metrics.is_object())
            throw InputError(file, f1, "expected an object {metric: [measurements]}");
        for (const auto& [metric, list] : metrics.items()) {
            const std::string f2 = fmt::format("{}.{}", f1, metric);
            if (!list.is_array())
                throw InputError(file, f2, "expected an array of {point, values}");
            for (std::size_t i = 0; i < list.size(); ++i) {
                const std::string f3 = fmt::format("{}[{}]", f2, i);
                const auto pt = json_numbers(member(list[i], "point", file, f3), file, f3 + ".point");
                auto vals = json_numbers(member(list[i], "values", file, f3), file, f3 + ".values");
                b.add(callpath, metric, to_coord(pt, d.parameters.size(), file, f3 + ".point"),
                      std::move(vals));
            }
        }
    }
    return d;
}

// The older id-based Extra-P JSON layout (parameters/callpaths/metrics/coordinates/measurements).
Dataset extrap_json_old(const json& root, const std::string& file) {
    Dataset d;
    auto names = [&](const char* key) {
        std::map<long long, std::string> out;
        const json& arr = member(root, key, file, "");
        if (!arr.is_array())
            throw InputError(file, key, "expected an array of {id, name}");
        for (std::size_t i = 0; i < arr.size(); ++i) {
            const std::string f = fmt::format("{}[{}]", key, i);
            const auto id = json_id(member(arr[i], "id", file, f), file, f);
            const json& n = member(arr[i], "name", file, f);
            out[id] = n.is_string() ? n.get<std::string>() : n.dump();
        }
        return out;
    };
    const auto params = names("parameters");
    const auto callpaths = names("callpaths");
    const auto metrics = names("metrics");
    std::map<long long, std::size_t> param_index;
    for (const auto& [id, name] : params) {
        param_index[id] = d.parameters.size();
        d.parameters.push_back(name);
    }
    check_parameter_count(d.parameters.size(), file, "parameters");
    std::map<long long, Coord> coords;
    const json& carr = member(root, "coordinates", file, "");
    for (std::size_t i = 0; i < carr.size(); ++i) {
        const std::string f = fmt::format("coordinates[{}]", i);
        const auto id = json_id(member(carr[i], "id", file, f), file, f);
        const json& pairs = member(carr[i], "parameter_value_pairs", file, f);
        Coord c{};
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            const std::string fk = fmt::format("{}.parameter_value_pairs[{}]", f, k);
            const auto pid = json_id(member(pairs[k], "parameter_id", file, fk), file, fk);
            if (!param_index.count(pid))
                throw InputError(file, fk + ".parameter_id", "expected the id of a listed parameter");
            c[param_index[pid]] = json_number(member(pairs[k], "parameter_value", file, fk), file, fk);
        }
        coords[id] = c;
    }
    // Group measurements by (callpath, metric, coordinate): each entry is one repetition.
    std::map<std::tuple<long long, long long, long long>, std::vector<double>> groups;
    const json& marr = member(root, "measurements", file, "");
    for (std::size_t i = 0; i < marr.size(); ++i) {
        const std::string f = fmt::format("measurements[{}]", i);
        auto id = [&](const char* k) { return json_id(member(marr[i], k, file, f), file, f + "." + k); };
        const auto key = std::make_tuple(id("callpath_id"), id("metric_id"), id("coordinate_id"));
        if (!callpaths.count(std::get<0>(key)) || !metrics.count(std::get<1>(key)) ||
            !coords.count(std::get<2>(key)))
            throw InputError(file, f, "refers to a callpath, metric or coordinate id that is not listed");
        groups[key].push_back(json_number(member(marr[i], "value", file, f), file, f + ".value"));
    }
    Builder b(d);
    for (auto& [key, vals] : groups)
        b.add(callpaths.at(std::get<0>(key)), metrics.at(std::get<1>(key)), coords.at(std::get<2>(key)),
              std::move(vals));
    return d;
}

// One metric of a profile's function: its repetitions, each aggregated over the ranks with its `aggregate`
// (per_rank) or as written (repetitions); `fm` builds its path for an error.
template <class Path>
std::vector<double> metric_repetitions(const json& m, const std::string& file, const Path& fm) {
    std::string how = "mean";
    const bool object = m.is_object();
    if (object && m.contains("aggregate")) {
        if (!m.at("aggregate").is_string())
            throw InputError(
                file, fm() + ".aggregate",
                core::expected_one_of(core::k_rank_aggregates, m.at("aggregate").dump().substr(0, 40)));
        how = m.at("aggregate").get<std::string>();
        if (!core::is_rank_aggregate(how))
            throw InputError(file, fm() + ".aggregate", core::expected_one_of(core::k_rank_aggregates, how));
    }
    std::vector<double> reps;
    const bool has_reps = object && m.contains("repetitions");
    const bool has_ranks = object && m.contains("per_rank");
    if (has_reps && has_ranks)
        throw InputError(file, fm(), "expected either 'repetitions' or 'per_rank', not both");
    if (has_reps) {
        const auto fr = [&fm] { return fm() + ".repetitions"; };
        reps = json_numbers(m.at("repetitions"), file, fr);
        for (double v : reps)
            if (!core::profile_value_in_range(v))
                core::check_profile_value(v, file, fr());
    } else if (has_ranks) {
        const json& pr = m.at("per_rank");
        if (!pr.is_array() || pr.empty())
            throw InputError(file, fm() + ".per_rank", "expected [[value per rank] per repetition]");
        for (std::size_t r = 0; r < pr.size(); ++r) {
            const auto fr = [&fm, r] { return core::element_path(fm() + ".per_rank", r); };
            const std::vector<double> ranks = json_numbers(pr[r], file, fr);
            for (double v : ranks)
                if (!core::profile_value_in_range(v))
                    core::check_profile_value(v, file, fr());
            reps.push_back(core::reduce_ranks(ranks, how)); // json_numbers gave at least one
        }
    } else {
        throw InputError(file, fm(), "expected 'repetitions' [values] or 'per_rank' [[values]]");
    }
    return reps;
}

// A roofcast profile's `functions` into `d` at the point c. Their members are checked against the format as
// they are met (a profile holds tens of thousands of metrics: marking each path in a core::JsonKeys took most
// of the read); returns what the format lacks below `functions`, relative to it, in the document's order.
std::vector<std::string> read_profile_functions(const json& funcs, const std::string& file, const Coord& c,
                                                Dataset& d) {
    std::vector<std::string> unread_below;
    const auto is_one_of = [](const std::string& key, std::initializer_list<std::string_view> known) {
        return std::find(known.begin(), known.end(), key) != known.end();
    };
    Builder b(d);
    for (std::size_t i = 0; i < funcs.size(); ++i) {
        const json& fn = funcs[i];
        const std::string f = core::element_path("functions", i);
        const json& name = member(fn, "name", file, f);
        if (!name.is_string())
            throw InputError(file, f + ".name", "expected a string (the call path)");
        const json& metrics = member(fn, "metrics", file, f);
        if (!metrics.is_object())
            throw InputError(file, f + ".metrics", "expected an object {metric: {...}}");
        // What the format lacks, in the document's order (nlohmann's: keys sorted), as core::JsonKeys lists
        // it.
        for (const auto& [key, value] : fn.items()) {
            if (key == "metrics") {
                for (const auto& [metric, m] : value.items())
                    if (m.is_object())
                        for (const auto& [mkey, mvalue] : m.items())
                            if (!is_one_of(mkey, {"aggregate", "origin", "per_rank", "repetitions", "unit"}))
                                unread_below.push_back(
                                    core::member_path(fmt::format("[{}].metrics.{}", i, metric), mkey));
            } else if (!is_one_of(key, {"kind", "name"})) {
                unread_below.push_back(core::member_path(core::element_path("", i), key));
            }
        }
        const std::string kind =
            fn.contains("kind") && fn.at("kind").is_string() ? fn.at("kind").get<std::string>() : "";
        for (const auto& item : metrics.items()) {
            const std::string& metric = item.key(); // named, not bound: a lambda below captures it
            const json& m = item.value();
            // The metric's path, built only where an error or an unread member names it.
            const auto fm = [&f, &metric] { return fmt::format("{}.metrics.{}", f, metric); };
            std::vector<double> reps = metric_repetitions(m, file, fm);
            b.add(name.get<std::string>(), metric, c, std::move(reps)).kind = kind;
        }
    }
    return unread_below;
}

} // namespace

Dataset read_extrap_json(const std::string& text, const std::string& file) {
    const json root = parse_json(text, file);
    Dataset d = root.contains("callpaths") ? extrap_json_old(root, file) : extrap_json_new(root, file);
    normalize(d);
    return d;
}

Dataset read_roofcast_profile(const std::string& text, const std::string& file,
                              std::vector<std::string>* unread_keys) {
    const json root = parse_json(text, file);
    // Every member asked for is marked, so the keys the format lacks can be named (core::JsonKeys).
    core::JsonKeys keys;
    const auto get = [&](const json& j, const char* key, const std::string& where) -> const json& {
        keys.mark(core::member_path(where, key));
        return member(j, key, file, where);
    };
    const auto has = [&](const json& j, const char* key, const std::string& where) {
        keys.mark(core::member_path(where, key));
        return j.is_object() && j.contains(key);
    };
    const json& fmt_field = get(root, "format", "");
    if (!fmt_field.is_string() || fmt_field.get<std::string>() != "roofcast-profile")
        throw InputError(file, "format", "expected \"roofcast-profile\"");
    const json& ver = get(root, "format_version", "");
    // Versions 2 and 3 (written by `roofcast profile`) add backend, origins, warnings, loops and library
    // functions, which scaling reads as functions like the others.
    if (!ver.is_number_integer() || ver.get<int>() < 1 || ver.get<int>() > core::k_profile_format_version)
        throw InputError(file, "format_version",
                         fmt::format("expected 1 to {}", core::k_profile_format_version));
    Dataset d;
    const json& params = get(root, "parameters", "");
    if (!params.is_object())
        throw InputError(file, "parameters", "expected an object {name: value}, e.g. {\"cores\": 8}");
    Coord c{};
    for (const auto& [name, value] : params.items()) {
        if (d.parameters.size() == k_max_parameters)
            throw InputError(file, "parameters", "expected 1 or 2 parameters");
        const std::string field = core::member_path("parameters", name);
        keys.mark(field);
        c[d.parameters.size()] = core::check_profile_parameter(json_number(value, file, field), file, field);
        d.parameters.push_back(name);
    }
    check_parameter_count(d.parameters.size(), file, "parameters");
    if (has(root, "run", "")) {
        const json& run = root.at("run");
        RunCost cost{c, json_number(get(run, "wall_seconds", "run"), file, "run.wall_seconds"),
                     json_number(get(run, "cores", "run"), file, "run.cores"), std::nullopt};
        if (!(cost.wall_seconds > 0 && cost.wall_seconds <= core::k_profile_max_wall_seconds) ||
            !(cost.cores > 0 && cost.cores <= core::k_profile_max_cores))
            throw InputError(
                file, "run",
                fmt::format("expected positive wall_seconds (at most {:g}) and cores (at most {:g})",
                            core::k_profile_max_wall_seconds, core::k_profile_max_cores));
        if (has(run, "cpu_seconds", "run"))
            cost.cpu_seconds = core::check_profile_cpu_seconds(
                json_number(get(run, "cpu_seconds", "run"), file, "run.cpu_seconds"), file,
                "run.cpu_seconds");
        d.costs.push_back(cost);
        // The launch, read by core::load_profile (version 2 writes it), is part of the format.
        for (const char* key : {"ranks", "threads", "repetitions", "command", "exit_status"})
            keys.mark_whole(core::member_path("run", key));
    }
    if (ver.get<int>() >= 2)
        for (const char* key : {"backend", "backend_reason", "settings", "warnings"})
            keys.mark_whole(key);
    const json& funcs = get(root, "functions", "");
    if (!funcs.is_array())
        throw InputError(file, "functions", "expected an array of {name, metrics}");
    keys.delegate("functions", read_profile_functions(funcs, file, c, d));
    normalize(d);
    if (unread_keys)
        *unread_keys = keys.unread(root);
    return d;
}

void merge(Dataset& into, Dataset more, const std::string& file) {
    if (into.parameters.empty()) {
        into = std::move(more);
        return;
    }
    if (into.parameters != more.parameters)
        throw InputError(file, "parameters",
                         fmt::format("expected the parameters of the other inputs ({}), got ({})",
                                     fmt::join(into.parameters, ", "), fmt::join(more.parameters, ", ")));
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < into.series.size(); ++i)
        index.emplace(into.series[i].function + '\x1f' + into.series[i].metric, i);
    for (auto& s : more.series) {
        const auto it = index.find(s.function + '\x1f' + s.metric);
        if (it == index.end()) {
            index.emplace(s.function + '\x1f' + s.metric, into.series.size());
            into.series.push_back(std::move(s));
        } else {
            auto& dst = into.series[it->second];
            dst.points.insert(dst.points.end(), s.points.begin(), s.points.end());
            dst.notes.insert(dst.notes.end(), s.notes.begin(), s.notes.end());
        }
    }
    into.costs.insert(into.costs.end(), more.costs.begin(), more.costs.end());
    into.warnings.insert(into.warnings.end(), more.warnings.begin(), more.warnings.end());
    normalize(into);
}

Coord parse_point(const std::string& text, const std::vector<std::string>& parameters) {
    Coord c{};
    const std::string expected =
        parameters.size() == 1
            ? fmt::format("expected a number (or {}=NUMBER), got '{}'", parameters[0], text)
            : fmt::format("expected {}=NUMBER,{}=NUMBER, got '{}'", parameters[0], parameters[1], text);
    if (parameters.size() == 1) {
        std::string_view t = text;
        if (const auto eq = t.find('='); eq != std::string_view::npos) {
            if (trim(t.substr(0, eq)) != parameters[0])
                throw InputError("", "predict", expected);
            t = t.substr(eq + 1);
        }
        const auto v = to_number(t);
        if (!v || !std::isfinite(*v))
            throw InputError("", "predict", expected);
        c[0] = *v;
        return c;
    }
    std::vector<bool> seen(parameters.size(), false);
    for (const auto& part : split_csv(text)) {
        const auto eq = part.find('=');
        if (eq == std::string::npos)
            throw InputError("", "predict", expected);
        const std::string name = trim(std::string_view(part).substr(0, eq));
        const auto it = std::find(parameters.begin(), parameters.end(), name);
        const auto v = to_number(std::string_view(part).substr(eq + 1));
        if (it == parameters.end() || !v || !std::isfinite(*v))
            throw InputError("", "predict", expected);
        const auto k = static_cast<std::size_t>(it - parameters.begin());
        c[k] = *v;
        seen[k] = true;
    }
    if (std::find(seen.begin(), seen.end(), false) != seen.end())
        throw InputError("", "predict", expected);
    return c;
}

std::string format_point(const Coord& x, const std::vector<std::string>& parameters) {
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < parameters.size(); ++k)
        parts.push_back(fmt::format("{}={:g}", parameters[k], x[k]));
    return fmt::format("{}", fmt::join(parts, ","));
}

} // namespace roofcast::model::scale
