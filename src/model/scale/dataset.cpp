#include "model/scale/dataset.hpp"

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

namespace {

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

// Collects values per (function, metric) while a reader runs; keeps first-seen order.
class Builder {
public:
    explicit Builder(Dataset& d) : m_d(d) {}
    Series& add(const std::string& function, const std::string& metric, const Coord& x,
                std::vector<double> values) {
        const std::string key = function + '\x1f' + metric;
        auto [it, inserted] = m_index.try_emplace(key, m_d.series.size());
        if (inserted)
            m_d.series.push_back(Series{function, metric, {}, {}});
        // Rows for a point already seen in this file are further repetitions of it.
        auto& pts = m_d.series[it->second].points;
        for (auto& p : pts)
            if (p.x == x) {
                p.values.insert(p.values.end(), values.begin(), values.end());
                return m_d.series[it->second];
            }
        pts.push_back(Point{x, std::move(values)});
        return m_d.series[it->second];
    }

private:
    Dataset& m_d;
    std::unordered_map<std::string, std::size_t> m_index;
};

std::vector<std::string_view> split_ws(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
        std::size_t j = i;
        while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
            ++j;
        if (j > i)
            out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

std::vector<std::string_view> lines_of(const std::string& text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string_view l(text.data() + start, end - start);
        if (!l.empty() && l.back() == '\r')
            l.remove_suffix(1);
        out.push_back(l);
        start = end + 1;
    }
    return out;
}

std::string trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s);
}

// Extra-P POINTS: "( 20 )", "20 30", "( 20 1 ) ( 30 2 )", "((20) (1)) ((30) (2))". A parenthesised
// group at depth 0 is one point; bare numbers at depth 0 are one-parameter points.
std::vector<std::vector<double>> parse_points(std::string_view rest, const std::string& file,
                                              const std::string& field) {
    std::vector<std::vector<double>> points;
    std::vector<double> current;
    int depth = 0;
    std::size_t i = 0;
    while (i < rest.size()) {
        const char c = rest[i];
        if (c == '(') {
            ++depth;
            ++i;
        } else if (c == ')') {
            if (--depth < 0)
                throw InputError(file, field, "unbalanced ')' in POINTS");
            if (depth == 0) {
                points.push_back(current);
                current.clear();
            }
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else {
            std::size_t j = i;
            while (j < rest.size() && rest[j] != '(' && rest[j] != ')' &&
                   !std::isspace(static_cast<unsigned char>(rest[j])))
                ++j;
            const auto v = to_number(rest.substr(i, j - i));
            if (!v || !std::isfinite(*v))
                throw InputError(file, field,
                                 fmt::format("expected a number, got '{}'", rest.substr(i, j - i)));
            if (depth == 0)
                points.push_back({*v});
            else
                current.push_back(*v);
            i = j;
        }
    }
    if (depth != 0)
        throw InputError(file, field, "unbalanced '(' in POINTS");
    return points;
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

std::vector<double> json_numbers(const json& j, const std::string& file, const std::string& field) {
    if (j.is_number() || j.is_string())
        return {json_number(j, file, field)};
    if (!j.is_array() || j.empty())
        throw InputError(file, field, "expected a non-empty array of numbers");
    std::vector<double> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i)
        out.push_back(json_number(j[i], file, fmt::format("{}[{}]", field, i)));
    return out;
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

// One repetition's ranks reduced with `how` (already checked against core::k_rank_aggregates).
double aggregate(const std::vector<double>& ranks, const std::string& how, const std::string& file,
                 const std::string& field) {
    if (ranks.empty())
        throw InputError(file, field, "expected at least one value per rank");
    return core::reduce_ranks(ranks, how);
}

} // namespace

Dataset read_extrap_text(const std::string& text, const std::string& file) {
    Dataset d;
    std::vector<Coord> points;
    std::string metric = "metric";
    std::string region;
    std::size_t data_index = 0;
    std::size_t region_line = 0;
    Builder b(d);
    const auto lines = lines_of(text);
    auto finish_region = [&](const std::string& at) {
        if (!region.empty() && data_index != 0 && data_index != points.size())
            throw InputError(
                file, at,
                fmt::format("region '{}' (line {}) has {} DATA lines, expected one per point ({})", region,
                            region_line, data_index, points.size()));
    };
    for (std::size_t ln = 0; ln < lines.size(); ++ln) {
        const std::string field = fmt::format("line {}", ln + 1);
        const std::string line = trim(lines[ln]);
        if (line.empty() || line[0] == '#')
            continue;
        const auto sp = line.find_first_of(" \t");
        const std::string tag = line.substr(0, sp);
        const std::string rest = sp == std::string::npos ? "" : trim(std::string_view(line).substr(sp));
        if (tag == "PARAMETER") {
            for (auto n : split_ws(rest))
                d.parameters.emplace_back(n);
            check_parameter_count(d.parameters.size(), file, field);
        } else if (tag == "POINTS") {
            if (d.parameters.empty())
                throw InputError(file, field, "expected PARAMETER before POINTS");
            for (const auto& p : parse_points(rest, file, field))
                points.push_back(to_coord(p, d.parameters.size(), file, field));
        } else if (tag == "METRIC") {
            finish_region(field);
            if (rest.empty())
                throw InputError(file, field, "expected a metric name after METRIC");
            metric = rest;
            data_index = 0;
        } else if (tag == "REGION") {
            finish_region(field);
            if (rest.empty())
                throw InputError(file, field, "expected a call path after REGION");
            region = rest;
            region_line = ln + 1;
            data_index = 0;
        } else if (tag == "DATA") {
            if (region.empty())
                throw InputError(file, field, "expected REGION before DATA");
            if (data_index >= points.size())
                throw InputError(
                    file, field,
                    fmt::format("more DATA lines than POINTS ({}) for region '{}'", points.size(), region));
            std::vector<double> vals;
            for (auto tok : split_ws(rest)) {
                const auto v = to_number(tok);
                if (!v)
                    throw InputError(file, field, fmt::format("expected a number, got '{}'", tok));
                vals.push_back(*v);
            }
            if (vals.empty())
                throw InputError(file, field, "expected at least one value after DATA");
            b.add(region, metric, points[data_index++], std::move(vals));
        } else {
            throw InputError(
                file, field,
                fmt::format("expected PARAMETER, POINTS, REGION, METRIC or DATA, got '{}'", tag));
        }
    }
    finish_region("end of file");
    if (d.parameters.empty() || points.empty() || d.series.empty())
        throw InputError(file, "", "expected PARAMETER, POINTS, REGION and DATA lines (Extra-P text format)");
    normalize(d);
    return d;
}

Dataset read_extrap_json(const std::string& text, const std::string& file) {
    const json root = parse_json(text, file);
    Dataset d = root.contains("callpaths") ? extrap_json_old(root, file) : extrap_json_new(root, file);
    normalize(d);
    return d;
}

Dataset read_csv(const std::string& text, const std::string& file) {
    Dataset d;
    const auto lines = lines_of(text);
    std::size_t ln = 0;
    while (ln < lines.size() && trim(lines[ln]).empty())
        ++ln;
    if (ln == lines.size())
        throw InputError(file, "header", "expected a header line 'function,metric,<parameter>...,value'");
    const auto header = split_csv(lines[ln]);
    if (header.size() < 4 || header[0] != "function" || header[1] != "metric" || header.back() != "value")
        throw InputError(file, "header",
                         "expected 'function,metric,<parameter>...,value' (1 or 2 parameters)");
    d.parameters.assign(header.begin() + 2, header.end() - 1);
    check_parameter_count(d.parameters.size(), file, "header");
    Builder b(d);
    for (++ln; ln < lines.size(); ++ln) {
        if (trim(lines[ln]).empty())
            continue;
        const std::string field = fmt::format("line {}", ln + 1);
        const auto cells = split_csv(lines[ln]);
        if (cells.size() != header.size())
            throw InputError(file, field,
                             fmt::format("expected {} columns, got {}", header.size(), cells.size()));
        Coord c{};
        for (std::size_t k = 0; k < d.parameters.size(); ++k) {
            const auto v = to_number(cells[2 + k]);
            if (!v || !std::isfinite(*v))
                throw InputError(file, field + " " + d.parameters[k],
                                 fmt::format("expected a finite number, got '{}'", cells[2 + k]));
            c[k] = *v;
        }
        const auto v = to_number(cells.back());
        if (!v)
            throw InputError(file, field + " value",
                             fmt::format("expected a number, got '{}'", cells.back()));
        b.add(cells[0], cells[1], c, {*v});
    }
    if (d.series.empty())
        throw InputError(file, "", "expected at least one data line after the header");
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
    Builder b(d);
    for (std::size_t i = 0; i < funcs.size(); ++i) {
        const std::string f = fmt::format("functions[{}]", i);
        const json& name = get(funcs[i], "name", f);
        if (!name.is_string())
            throw InputError(file, f + ".name", "expected a string (the call path)");
        keys.mark_whole(core::member_path(f, "kind"));
        const std::string kind = has(funcs[i], "kind", f) && funcs[i].at("kind").is_string()
                                     ? funcs[i].at("kind").get<std::string>()
                                     : "";
        const json& metrics = get(funcs[i], "metrics", f);
        if (!metrics.is_object())
            throw InputError(file, f + ".metrics", "expected an object {metric: {...}}");
        for (const auto& [metric, m] : metrics.items()) {
            const std::string fm = fmt::format("{}.metrics.{}", f, metric);
            keys.mark(fm);
            for (const char* key : {"origin", "unit"}) // where the value came from, its unit: not for fitting
                keys.mark_whole(core::member_path(fm, key));
            std::string how = "mean";
            if (has(m, "aggregate", fm)) {
                if (!m.at("aggregate").is_string())
                    throw InputError(file, fm + ".aggregate",
                                     core::expected_one_of(core::k_rank_aggregates,
                                                           m.at("aggregate").dump().substr(0, 40)));
                how = m.at("aggregate").get<std::string>();
                if (!core::is_rank_aggregate(how))
                    throw InputError(file, fm + ".aggregate",
                                     core::expected_one_of(core::k_rank_aggregates, how));
            }
            std::vector<double> reps;
            const bool has_reps = has(m, "repetitions", fm);
            const bool has_ranks = has(m, "per_rank", fm);
            if (has_reps && has_ranks)
                throw InputError(file, fm, "expected either 'repetitions' or 'per_rank', not both");
            if (has_reps) {
                reps = json_numbers(m.at("repetitions"), file, fm + ".repetitions");
                for (double v : reps)
                    core::check_profile_value(v, file, fm + ".repetitions");
            } else if (has_ranks) {
                const json& pr = m.at("per_rank");
                if (!pr.is_array() || pr.empty())
                    throw InputError(file, fm + ".per_rank", "expected [[value per rank] per repetition]");
                for (std::size_t r = 0; r < pr.size(); ++r) {
                    const std::string fr = fmt::format("{}.per_rank[{}]", fm, r);
                    auto ranks = json_numbers(pr[r], file, fr);
                    for (double v : ranks)
                        core::check_profile_value(v, file, fr);
                    reps.push_back(aggregate(ranks, how, file, fm + ".aggregate"));
                }
            } else {
                throw InputError(file, fm, "expected 'repetitions' [values] or 'per_rank' [[values]]");
            }
            b.add(name.get<std::string>(), metric, c, std::move(reps)).kind = kind;
        }
    }
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
            if (dst.kind.empty())
                dst.kind = s.kind;
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
