#include "core/profile.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/json_keys.hpp"
#include "core/key_path.hpp"
#include "core/names.hpp"
#include "core/nesting.hpp"
#include "core/range.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>

namespace roofcast::core {

using nlohmann::json;

namespace {

constexpr NameTable<MetricOrigin, 4> k_origin_names{{{MetricOrigin::counted, "counted"},
                                                     {MetricOrigin::simulated, "simulated"},
                                                     {MetricOrigin::sampled, "sampled"},
                                                     {MetricOrigin::declared, "declared"}}};

} // namespace

std::string to_string(MetricOrigin o) {
    return std::string(name_of(k_origin_names, o));
}

std::optional<MetricOrigin> metric_origin_from_string(const std::string& s) {
    return value_named(k_origin_names, s);
}

bool is_rank_aggregate(std::string_view how) {
    return std::find(k_rank_aggregates.begin(), k_rank_aggregates.end(), how) != k_rank_aggregates.end();
}

double reduce_ranks(const std::vector<double>& v, std::string_view how) {
    if (v.empty())
        return 0.0;
    if (how == "mean")
        return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (how == "max")
        return *std::max_element(v.begin(), v.end());
    if (how == "min")
        return *std::min_element(v.begin(), v.end());
    return std::accumulate(v.begin(), v.end(), 0.0);
}

double ProfileMetric::reduced(std::size_t repetition) const {
    return reduce_ranks(per_rank.at(repetition), aggregate);
}

double ProfileMetric::reduced_mean() const {
    if (per_rank.empty())
        return 0.0;
    double s = 0;
    for (std::size_t r = 0; r < per_rank.size(); ++r)
        s += reduced(r);
    return s / static_cast<double>(per_rank.size());
}

namespace {

// NaN and infinities are not JSON numbers: written as strings, as the version-1 reader accepts.
json number(double v) {
    return std::isfinite(v) ? json(v) : json(fmt::format("{}", v));
}

[[noreturn]] void bad(const std::string& file, const std::string& field, const std::string& what) {
    throw InputError(file, field, what);
}

double read_number(const json& j, const std::string& file, const std::string& field) {
    if (j.is_number())
        return j.get<double>();
    if (j.is_string() && (j.get<std::string>() == "nan" || j.get<std::string>() == "NaN"))
        return std::nan("");
    bad(file, field, "expected a number");
}

std::string read_string(const json& j, const std::string& file, const std::string& field) {
    if (!j.is_string())
        bad(file, field, "expected a string");
    return j.get<std::string>();
}

} // namespace

json profile_to_json(const Profile& p) {
    json j;
    j["format"] = "roofcast-profile";
    j["format_version"] = p.format_version;
    json params = json::object();
    for (const auto& [k, v] : p.parameters)
        params[k] = number(v);
    j["parameters"] = params;
    // Version-1 readers require both figures of `run` when it is present: without them it is left out.
    json run = json::object();
    run["wall_seconds"] = number(p.wall_seconds.value_or(0));
    run["cores"] = number(p.cores.value_or(0));
    if (p.cpu_seconds)
        run["cpu_seconds"] = number(*p.cpu_seconds);
    run["ranks"] = p.ranks;
    run["threads"] = p.threads;
    run["repetitions"] = p.repetitions;
    if (!p.command.empty())
        run["command"] = p.command;
    if (p.exit_status)
        run["exit_status"] = *p.exit_status;
    if (p.wall_seconds && p.cores)
        j["run"] = run;
    j["backend"] = p.backend;
    if (!p.backend_reason.empty())
        j["backend_reason"] = p.backend_reason;
    if (!p.settings.empty())
        j["settings"] = p.settings;
    j["warnings"] = p.warnings;
    json funcs = json::array();
    for (const auto& f : p.functions) {
        json jf;
        jf["name"] = f.name;
        jf["kind"] = f.kind;
        json metrics = json::object();
        for (const auto& [name, m] : f.metrics) {
            json jm;
            jm["origin"] = to_string(m.origin);
            jm["aggregate"] = m.aggregate;
            if (!m.unit.empty())
                jm["unit"] = m.unit;
            json reps = json::array();
            for (const auto& ranks : m.per_rank) {
                json r = json::array();
                for (double v : ranks)
                    r.push_back(number(v));
                reps.push_back(r);
            }
            jm["per_rank"] = reps;
            metrics[name] = jm;
        }
        jf["metrics"] = metrics;
        funcs.push_back(jf);
    }
    j["functions"] = funcs;
    return j;
}

double check_profile_parameter(double v, const std::string& file, const std::string& field) {
    if (!(std::fabs(v) <= k_profile_max_parameter))
        bad(file, field,
            fmt::format("expected a finite number of magnitude at most 2^63 = {:g}, got {}",
                        k_profile_max_parameter, v));
    return v;
}

double check_profile_value(double v, const std::string& file, const std::string& field) {
    if (!profile_value_in_range(v))
        bad(file, field,
            fmt::format("expected a number from 0 to {:g} (or \"nan\"), got {}", k_profile_max_value, v));
    return v;
}

double check_profile_cpu_seconds(double v, const std::string& file, const std::string& field) {
    if (const auto r = Range::non_negative_at_most(k_profile_max_cpu_seconds); !r.contains(v))
        bad(file, field, r.expected(fmt::format("{}", v)));
    return v;
}

namespace {

// A member asked for, marked in `keys` by its path.
const json* member(const json& j, const std::string& key, const std::string& where, JsonKeys& keys) {
    keys.mark(member_path(where, key));
    return j.is_object() && j.contains(key) ? &j.at(key) : nullptr;
}

const json& required(const json& j, const std::string& key, const std::string& file, const std::string& where,
                     JsonKeys& keys) {
    const json* v = member(j, key, where, keys);
    if (!v)
        bad(file, member_path(where, key), "missing required field");
    return *v;
}

// A whole number in [lo, hi].
long long whole_in(const json& v, long long lo, long long hi, const std::string& file,
                   const std::string& field) {
    const Range range = Range::whole(lo, hi);
    if (!v.is_number_integer() || !range.contains(static_cast<double>(v.get<long long>())))
        bad(file, field, range.expected(v.dump()));
    return v.get<long long>();
}

void read_run(const json& run, Profile& p, const std::string& file, JsonKeys& keys) {
    if (!run.is_object())
        bad(file, "run", "expected an object");
    if (const json* w = member(run, "wall_seconds", "run", keys)) {
        p.wall_seconds = read_number(*w, file, "run.wall_seconds");
        if (const auto r = Range::positive_at_most(k_profile_max_wall_seconds); !r.contains(*p.wall_seconds))
            bad(file, "run.wall_seconds", r.expected(fmt::format("{}", *p.wall_seconds)));
    }
    if (const json* c = member(run, "cores", "run", keys)) {
        p.cores = read_number(*c, file, "run.cores");
        if (const auto r = Range::positive_at_most(k_profile_max_cores); !r.contains(*p.cores))
            bad(file, "run.cores", r.expected(fmt::format("{}", *p.cores)));
    }
    if (const json* c = member(run, "cpu_seconds", "run", keys))
        p.cpu_seconds =
            check_profile_cpu_seconds(read_number(*c, file, "run.cpu_seconds"), file, "run.cpu_seconds");
    const std::pair<const char*, std::pair<int*, long long>> counts[] = {
        {"ranks", {&p.ranks, static_cast<long long>(k_profile_max_ranks)}},
        {"threads", {&p.threads, static_cast<long long>(k_profile_max_ranks)}},
        {"repetitions", {&p.repetitions, static_cast<long long>(k_profile_max_repetitions)}}};
    for (const auto& [key, dst] : counts)
        if (const json* v = member(run, key, "run", keys))
            *dst.first = static_cast<int>(whole_in(*v, 1, dst.second, file, std::string("run.") + key));
    if (const json* e = member(run, "exit_status", "run", keys))
        p.exit_status = static_cast<int>(whole_in(*e, 0, 255, file, "run.exit_status"));
    if (const json* c = member(run, "command", "run", keys)) {
        if (!c->is_array())
            bad(file, "run.command", "expected an array of strings");
        for (const auto& arg : *c)
            p.command.push_back(read_string(arg, file, "run.command"));
    }
}

ProfileMetric read_metric(const json& m, const std::string& fm, int version, const std::string& file,
                          JsonKeys& keys) {
    ProfileMetric pm;
    if (!m.is_object())
        bad(file, fm, "expected an object");
    if (const json* o = member(m, "origin", fm, keys)) {
        const auto origin = metric_origin_from_string(read_string(*o, file, fm + ".origin"));
        if (!origin)
            bad(file, fm + ".origin", "expected one of counted, simulated, sampled, declared");
        pm.origin = *origin;
    } else if (version >= 2) {
        bad(file, fm + ".origin", "missing required field (counted, simulated, sampled, declared)");
    }
    if (const json* a = member(m, "aggregate", fm, keys))
        pm.aggregate = read_string(*a, file, fm + ".aggregate");
    else
        pm.aggregate = "mean";
    if (!is_rank_aggregate(pm.aggregate))
        bad(file, fm + ".aggregate", expected_one_of(k_rank_aggregates, pm.aggregate));
    if (const json* u = member(m, "unit", fm, keys))
        pm.unit = read_string(*u, file, fm + ".unit");
    const json* per_rank = member(m, "per_rank", fm, keys);
    const json* reps = member(m, "repetitions", fm, keys);
    if (per_rank && reps)
        bad(file, fm, "expected either 'repetitions' or 'per_rank', not both");
    if (per_rank) {
        const json& pr = *per_rank;
        if (!pr.is_array() || pr.empty() || pr.size() > k_profile_max_repetitions)
            bad(file, fm + ".per_rank", "expected [[value per rank] per repetition]");
        for (std::size_t r = 0; r < pr.size(); ++r) {
            const std::string fr = fmt::format("{}.per_rank[{}]", fm, r);
            if (!pr[r].is_array() || pr[r].empty() || pr[r].size() > k_profile_max_ranks)
                bad(file, fr, "expected a non-empty array with one value per rank");
            std::vector<double> ranks;
            ranks.reserve(pr[r].size());
            for (const auto& v : pr[r])
                ranks.push_back(check_profile_value(read_number(v, file, fr), file, fr));
            pm.per_rank.push_back(std::move(ranks));
        }
    } else if (reps) {
        if (!reps->is_array() || reps->empty() || reps->size() > k_profile_max_repetitions)
            bad(file, fm + ".repetitions", "expected a non-empty array of numbers");
        pm.aggregate = "sum"; // one value per repetition: already reduced
        for (const auto& v : *reps)
            pm.per_rank.push_back(
                {check_profile_value(read_number(v, file, fm + ".repetitions"), file, fm + ".repetitions")});
    } else {
        bad(file, fm, "expected 'repetitions' [values] or 'per_rank' [[values]]");
    }
    return pm;
}

} // namespace

Profile profile_from_json(const json& j, const std::string& file, std::vector<std::string>* unread_keys) {
    if (!j.is_object())
        bad(file, "", "expected a JSON object");
    JsonKeys keys;
    if (read_string(required(j, "format", file, "", keys), file, "format") != "roofcast-profile")
        bad(file, "format", "expected \"roofcast-profile\"");
    const json& ver = required(j, "format_version", file, "", keys);
    if (!ver.is_number_integer() || ver.get<int>() < 1 || ver.get<int>() > k_profile_format_version)
        bad(file, "format_version", fmt::format("expected 1 to {}", k_profile_format_version));
    Profile p;
    p.format_version = ver.get<int>();
    const json& params = required(j, "parameters", file, "", keys);
    if (!params.is_object() || params.empty() || params.size() > 2)
        bad(file, "parameters", "expected an object with 1 or 2 {name: value}, e.g. {\"ranks\": 8}");
    for (const auto& [k, v] : params.items()) {
        const std::string field = member_path("parameters", k);
        keys.mark(field);
        p.parameters.emplace_back(k, check_profile_parameter(read_number(v, file, field), file, field));
    }
    if (const json* run = member(j, "run", "", keys))
        read_run(*run, p, file, keys);
    if (p.format_version >= 2) {
        p.backend = read_string(required(j, "backend", file, "", keys), file, "backend");
        if (const json* r = member(j, "backend_reason", "", keys))
            p.backend_reason = read_string(*r, file, "backend_reason");
        if (const json* s = member(j, "settings", "", keys)) {
            if (!s->is_object())
                bad(file, "settings", "expected an object of strings");
            for (const auto& [k, v] : s->items()) {
                keys.mark(member_path("settings", k));
                p.settings[k] = read_string(v, file, member_path("settings", k));
            }
        }
        if (const json* w = member(j, "warnings", "", keys)) {
            if (!w->is_array())
                bad(file, "warnings", "expected an array of strings");
            for (const auto& x : *w)
                p.warnings.push_back(read_string(x, file, "warnings"));
        }
    }
    const json& funcs = required(j, "functions", file, "", keys);
    if (!funcs.is_array())
        bad(file, "functions", "expected an array of {name, metrics}");
    if (funcs.size() > k_profile_max_functions)
        bad(file, "functions", fmt::format("expected at most {} functions", k_profile_max_functions));
    for (std::size_t i = 0; i < funcs.size(); ++i) {
        const std::string f = element_path("functions", i);
        ProfileFunction pf;
        pf.name = read_string(required(funcs[i], "name", file, f, keys), file, f + ".name");
        if (const json* kind = member(funcs[i], "kind", f, keys))
            pf.kind = read_string(*kind, file, f + ".kind");
        const json& metrics = required(funcs[i], "metrics", file, f, keys);
        if (!metrics.is_object())
            bad(file, f + ".metrics", "expected an object {metric: {...}}");
        for (const auto& [name, m] : metrics.items()) {
            const std::string fm = member_path(f + ".metrics", name);
            keys.mark(fm);
            pf.metrics[name] = read_metric(m, fm, p.format_version, file, keys);
        }
        p.functions.push_back(std::move(pf));
    }
    if (unread_keys)
        *unread_keys = keys.unread(j);
    return p;
}

Profile profile_from_text(const std::string& text, const std::string& file,
                          std::vector<std::string>* unread_keys) {
    check_nesting(text, file);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        bad(file, "", std::string("not valid JSON (") + e.what() + ")");
    }
    return profile_from_json(j, file, unread_keys);
}

Profile load_profile(const std::string& path, std::vector<std::string>* unread_keys) {
    return profile_from_text(read_file(path), path, unread_keys);
}

} // namespace roofcast::core
