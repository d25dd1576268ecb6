#include "core/profile.hpp"

#include "core/error.hpp"
#include "core/io.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>

namespace roofcast::core {

using nlohmann::json;

std::string to_string(MetricOrigin o) {
    switch (o) {
    case MetricOrigin::counted:
        return "counted";
    case MetricOrigin::simulated:
        return "simulated";
    case MetricOrigin::sampled:
        return "sampled";
    case MetricOrigin::declared:
        return "declared";
    }
    return "counted";
}

std::optional<MetricOrigin> metric_origin_from_string(const std::string& s) {
    for (auto o :
         {MetricOrigin::counted, MetricOrigin::simulated, MetricOrigin::sampled, MetricOrigin::declared})
        if (to_string(o) == s)
            return o;
    return std::nullopt;
}

double ProfileMetric::reduced(std::size_t repetition) const {
    const auto& v = per_rank.at(repetition);
    if (v.empty())
        return 0.0;
    if (aggregate == "mean")
        return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (aggregate == "max")
        return *std::max_element(v.begin(), v.end());
    if (aggregate == "min")
        return *std::min_element(v.begin(), v.end());
    return std::accumulate(v.begin(), v.end(), 0.0);
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

const json& need(const json& j, const char* key, const std::string& file, const std::string& where) {
    if (!j.is_object() || !j.contains(key))
        bad(file, where.empty() ? key : where + "." + key, "missing required field");
    return j.at(key);
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

Profile profile_from_json(const json& j, const std::string& file) {
    if (!j.is_object())
        bad(file, "", "expected a JSON object");
    if (read_string(need(j, "format", file, ""), file, "format") != "roofcast-profile")
        bad(file, "format", "expected \"roofcast-profile\"");
    const json& ver = need(j, "format_version", file, "");
    if (!ver.is_number_integer() || (ver.get<int>() != 1 && ver.get<int>() != 2))
        bad(file, "format_version", "expected 1 or 2");
    Profile p;
    p.format_version = ver.get<int>();
    const json& params = need(j, "parameters", file, "");
    if (!params.is_object() || params.empty() || params.size() > 2)
        bad(file, "parameters", "expected an object with 1 or 2 {name: value}, e.g. {\"ranks\": 8}");
    for (const auto& [k, v] : params.items()) {
        const double x = read_number(v, file, "parameters." + k);
        if (!std::isfinite(x))
            bad(file, "parameters." + k, "expected a finite number");
        p.parameters.emplace_back(k, x);
    }
    if (j.contains("run")) {
        const json& run = j.at("run");
        if (!run.is_object())
            bad(file, "run", "expected an object");
        if (run.contains("wall_seconds"))
            p.wall_seconds = read_number(run.at("wall_seconds"), file, "run.wall_seconds");
        if (run.contains("cores"))
            p.cores = read_number(run.at("cores"), file, "run.cores");
        if ((p.wall_seconds && !(*p.wall_seconds > 0)) || (p.cores && !(*p.cores > 0)))
            bad(file, "run", "expected positive wall_seconds and cores");
        for (auto [key, dst] : {std::pair{"ranks", &p.ranks}, std::pair{"threads", &p.threads},
                                std::pair{"repetitions", &p.repetitions}})
            if (run.contains(key)) {
                const json& v = run.at(key);
                if (!v.is_number_integer() || v.get<long long>() < 1 ||
                    v.get<long long>() > static_cast<long long>(k_profile_max_ranks))
                    bad(file, std::string("run.") + key, "expected a positive integer");
                *dst = v.get<int>();
            }
        if (run.contains("exit_status")) {
            if (!run.at("exit_status").is_number_integer())
                bad(file, "run.exit_status", "expected an integer");
            p.exit_status = run.at("exit_status").get<int>();
        }
        if (run.contains("command") && run.at("command").is_array())
            for (const auto& c : run.at("command"))
                p.command.push_back(read_string(c, file, "run.command"));
    }
    if (p.format_version >= 2) {
        p.backend = read_string(need(j, "backend", file, ""), file, "backend");
        if (j.contains("backend_reason"))
            p.backend_reason = read_string(j.at("backend_reason"), file, "backend_reason");
        if (j.contains("settings") && j.at("settings").is_object())
            for (const auto& [k, v] : j.at("settings").items())
                p.settings[k] = read_string(v, file, "settings." + k);
        if (j.contains("warnings")) {
            if (!j.at("warnings").is_array())
                bad(file, "warnings", "expected an array of strings");
            for (const auto& w : j.at("warnings"))
                p.warnings.push_back(read_string(w, file, "warnings"));
        }
    }
    const json& funcs = need(j, "functions", file, "");
    if (!funcs.is_array())
        bad(file, "functions", "expected an array of {name, metrics}");
    if (funcs.size() > k_profile_max_functions)
        bad(file, "functions", fmt::format("expected at most {} functions", k_profile_max_functions));
    for (std::size_t i = 0; i < funcs.size(); ++i) {
        const std::string f = fmt::format("functions[{}]", i);
        ProfileFunction pf;
        pf.name = read_string(need(funcs[i], "name", file, f), file, f + ".name");
        if (funcs[i].contains("kind"))
            pf.kind = read_string(funcs[i].at("kind"), file, f + ".kind");
        const json& metrics = need(funcs[i], "metrics", file, f);
        if (!metrics.is_object())
            bad(file, f + ".metrics", "expected an object {metric: {...}}");
        for (const auto& [name, m] : metrics.items()) {
            const std::string fm = f + ".metrics." + name;
            ProfileMetric pm;
            if (!m.is_object())
                bad(file, fm, "expected an object");
            if (m.contains("origin")) {
                const auto o = metric_origin_from_string(read_string(m.at("origin"), file, fm + ".origin"));
                if (!o)
                    bad(file, fm + ".origin", "expected one of counted, simulated, sampled, declared");
                pm.origin = *o;
            } else if (p.format_version >= 2) {
                bad(file, fm + ".origin", "missing required field (counted, simulated, sampled, declared)");
            }
            pm.aggregate = m.value("aggregate", std::string("mean"));
            if (pm.aggregate != "sum" && pm.aggregate != "mean" && pm.aggregate != "max" &&
                pm.aggregate != "min")
                bad(file, fm + ".aggregate", "expected one of sum, mean, max, min");
            if (m.contains("unit"))
                pm.unit = read_string(m.at("unit"), file, fm + ".unit");
            if (m.contains("per_rank")) {
                const json& pr = m.at("per_rank");
                if (!pr.is_array() || pr.empty() || pr.size() > k_profile_max_repetitions)
                    bad(file, fm + ".per_rank", "expected [[value per rank] per repetition]");
                for (std::size_t r = 0; r < pr.size(); ++r) {
                    const std::string fr = fmt::format("{}.per_rank[{}]", fm, r);
                    if (!pr[r].is_array() || pr[r].empty() || pr[r].size() > k_profile_max_ranks)
                        bad(file, fr, "expected a non-empty array with one value per rank");
                    std::vector<double> ranks;
                    for (const auto& v : pr[r])
                        ranks.push_back(read_number(v, file, fr));
                    pm.per_rank.push_back(std::move(ranks));
                }
            } else if (m.contains("repetitions")) {
                const json& reps = m.at("repetitions");
                if (!reps.is_array() || reps.empty() || reps.size() > k_profile_max_repetitions)
                    bad(file, fm + ".repetitions", "expected a non-empty array of numbers");
                pm.aggregate = "sum"; // one value per repetition: already reduced
                for (const auto& v : reps)
                    pm.per_rank.push_back({read_number(v, file, fm + ".repetitions")});
            } else {
                bad(file, fm, "expected 'repetitions' [values] or 'per_rank' [[values]]");
            }
            pf.metrics[name] = std::move(pm);
        }
        p.functions.push_back(std::move(pf));
    }
    return p;
}

Profile load_profile(const std::string& path) {
    const std::string text = read_file(path);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        bad(path, "", std::string("not valid JSON (") + e.what() + ")");
    }
    return profile_from_json(j, path);
}

} // namespace roofcast::core
