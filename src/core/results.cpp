#include "core/results.hpp"

#include "core/doc.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/nesting.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace roofcast::core {

namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

// Minimal typed access with file/field context, mirroring YamlField for JSON.
struct J {
    const json& v;
    const std::string& file;
    std::string path;

    [[noreturn]] void fail(const std::string& expected) const {
        throw InputError(file, path.empty() ? "(top level)" : path, expected);
    }
    J operator[](const std::string& key) const {
        if (!v.is_object())
            fail("expected an object containing '" + key + "'");
        const std::string child = path.empty() ? key : path + "." + key;
        if (!v.contains(key) || v.at(key).is_null())
            throw InputError(file, child, "missing (required)");
        return J{v.at(key), file, child};
    }
    bool has(const std::string& key) const {
        return v.is_object() && v.contains(key) && !v.at(key).is_null();
    }
    J at(std::size_t i) const { return J{v.at(i), file, path + "[" + std::to_string(i) + "]"}; }
    std::size_t size() const {
        if (!v.is_array())
            fail("expected a list");
        return v.size();
    }
    double num() const {
        if (!v.is_number())
            fail("expected a number");
        const double d = v.get<double>();
        if (!std::isfinite(d))
            fail("expected a finite number");
        return d;
    }
    std::optional<double> opt_num(const std::string& key) const {
        return has(key) ? std::optional<double>((*this)[key].num()) : std::nullopt;
    }
    std::string str() const {
        if (!v.is_string())
            fail("expected a string");
        return v.get<std::string>();
    }
    std::string str_or(const std::string& key, const std::string& fallback) const {
        return has(key) ? (*this)[key].str() : fallback;
    }
    bool boolean() const {
        if (!v.is_boolean())
            fail("expected true or false");
        return v.get<bool>();
    }
    std::vector<std::string> strings(const std::string& key) const {
        std::vector<std::string> out;
        if (has(key)) {
            J list = (*this)[key];
            for (std::size_t i = 0; i < list.size(); ++i)
                out.push_back(list.at(i).str());
        }
        return out;
    }
};

Summary summary_from(const J& f) {
    if (f.has("samples") && f["samples"].size() > 0) {
        std::vector<double> v;
        J s = f["samples"];
        for (std::size_t i = 0; i < s.size(); ++i)
            v.push_back(s.at(i).num());
        return *summarize(v);
    }
    Summary s;
    s.median = f["median"].num();
    s.min = f.opt_num("min").value_or(s.median);
    s.max = f.opt_num("max").value_or(s.median);
    s.n = static_cast<std::size_t>(f.opt_num("n").value_or(1));
    if (s.median != 0)
        s.spread = (s.max - s.min) / std::fabs(s.median);
    s.noisy = s.spread && *s.spread > k_noisy_spread;
    return s;
}

} // namespace

json prediction_to_json(const Prediction& p) {
    json terms = json::array();
    for (const auto& t : p.terms)
        terms.push_back({{"level", t.level},
                         {"bytes_per_iteration", t.bytes_per_iteration},
                         {"intensity", opt(t.intensity)},
                         {"bandwidth_gbs", opt(t.bandwidth_gbs)},
                         {"bandwidth_source", t.bandwidth_source},
                         {"seconds_per_iteration", opt(t.seconds_per_iteration)}});
    return {{"model", p.model},
            {"seconds_per_iteration", p.seconds_per_iteration},
            {"gflops", p.gflops},
            {"peak_fraction", p.peak_fraction},
            {"bottleneck", p.bottleneck},
            {"valid", p.valid},
            {"notes", p.notes},
            {"terms", terms},
            {"error_pct", opt(p.error_pct)}};
}

namespace {

double non_negative(const J& f) {
    const double d = f.num();
    if (d < 0)
        f.fail("expected a number >= 0");
    return d;
}

std::size_t count_of(const J& f) {
    const double d = f.num();
    if (d < 0 || d != std::floor(d) || d > 1e15)
        f.fail("expected a whole number >= 0");
    return static_cast<std::size_t>(d);
}

std::string probe_kind(const J& f) {
    std::string k = f.str();
    if (k != "memory" && k != "core")
        f.fail("expected \"memory\" or \"core\"");
    return k;
}

Prediction prediction_from(const J& f) {
    Prediction p;
    p.model = f["model"].str();
    p.seconds_per_iteration = f["seconds_per_iteration"].num();
    p.gflops = f["gflops"].num();
    p.peak_fraction = f.opt_num("peak_fraction").value_or(0);
    p.bottleneck = f["bottleneck"].str();
    p.valid = f.has("valid") ? f["valid"].boolean() : true;
    p.notes = f.strings("notes");
    p.error_pct = f.opt_num("error_pct");
    if (f.has("terms")) {
        J terms = f["terms"];
        for (std::size_t i = 0; i < terms.size(); ++i) {
            J t = terms.at(i);
            LevelTerm lt;
            lt.level = t["level"].str();
            lt.bytes_per_iteration = t["bytes_per_iteration"].num();
            lt.intensity = t.opt_num("intensity");
            lt.bandwidth_gbs = t.opt_num("bandwidth_gbs");
            lt.bandwidth_source = t.str_or("bandwidth_source", "");
            lt.seconds_per_iteration = t.opt_num("seconds_per_iteration");
            p.terms.push_back(lt);
        }
    }
    return p;
}

} // namespace

json results_to_json(const Results& r) {
    json kernels = json::array();
    for (const auto& k : r.kernels) {
        json preds = json::array();
        for (const auto& p : k.predictions)
            preds.push_back(prediction_to_json(p));
        json measured = json::object();
        if (k.measured_gflops)
            measured["gflops"] = summary_to_json(*k.measured_gflops);
        if (k.measured_gbs)
            measured["gbs"] = summary_to_json(*k.measured_gbs);
        if (k.measured_seconds)
            measured["seconds"] = summary_to_json(*k.measured_seconds);
        json kj = {{"name", k.name},
                   {"suite", k.suite},
                   {"role", k.role},
                   {"precision", k.precision},
                   {"threads", k.threads},
                   {"flops_per_iteration", k.flops_per_iteration},
                   {"iterations", k.iterations},
                   {"bytes_per_iteration", k.bytes_per_iteration},
                   {"measured", measured},
                   {"predictions", preds},
                   {"notes", k.notes}};
        if (k.thread_imbalance)
            kj["thread_imbalance"] = *k.thread_imbalance;
        if (k.bound_fraction)
            kj["bound_fraction"] = *k.bound_fraction;
        if (!k.ceilings.empty()) {
            json cs = json::array();
            for (const auto& c : k.ceilings)
                cs.push_back({{"name", c.name}, {"kind", c.kind}, {"gflops", c.gflops}, {"above", c.above}});
            kj["ceilings"] = cs;
        }
        if (!k.diagnosis.empty()) {
            json ds = json::array();
            for (const auto& d : k.diagnosis)
                ds.push_back({{"cause", d.cause},
                              {"evidence", d.evidence},
                              {"figure", opt(d.figure)},
                              {"limit", opt(d.limit)}});
            kj["diagnosis"] = ds;
        }
        if (!k.bound_fraction_rounds.empty())
            kj["bound_fraction_rounds"] = k.bound_fraction_rounds;
        if (k.bound_fraction_median_round)
            kj["bound_fraction_median_round"] = *k.bound_fraction_median_round;
        if (k.noise)
            kj["noise"] = {{"probe", k.noise->probe},
                           {"spread", k.noise->spread},
                           {"floor", k.noise->floor},
                           {"flagged", k.noise->flagged()}};
        kernels.push_back(std::move(kj));
    }
    json acc = json::array();
    for (const auto& a : r.accuracy)
        acc.push_back({{"model", a.model},
                       {"n", a.n},
                       {"median_abs_error_pct", opt(a.median_abs_error_pct)},
                       {"max_abs_error_pct", opt(a.max_abs_error_pct)}});
    json out{{"format_version", r.format_version},
             {"kind", "roofcast-results"},
             {"roofcast_version", r.roofcast_version},
             {"created", r.created},
             {"kernels", kernels},
             {"accuracy", acc},
             {"notes", r.notes}};
    out["machine"] = r.machine ? machine_to_json(*r.machine) : json(nullptr);
    if (r.host_noise) {
        json probes = json::array();
        for (const auto& p : r.host_noise->probes)
            probes.push_back({{"kind", p.kind}, {"kernel", p.kernel}, {"floor", p.floor}, {"gbs", p.gbs}});
        out["host_noise"] = {
            {"probes", probes}, {"rows", r.host_noise->rows}, {"flagged", r.host_noise->flagged}};
    }
    return out;
}

Results results_from_json(const json& j, const std::string& label) {
    const J root{j, label, ""};
    if (!j.is_object())
        root.fail("expected a JSON object (a roofcast results file)");
    if (!j.contains("kind") || !j.at("kind").is_string() ||
        j.at("kind").get<std::string>() != "roofcast-results")
        throw InputError(label, "kind", "expected \"roofcast-results\": not a roofcast results file");
    Results r;
    const double version = root["format_version"].num();
    if (version != k_results_format_version)
        root["format_version"].fail("unsupported version (expected " +
                                    std::to_string(k_results_format_version) + ")");
    r.format_version = k_results_format_version;
    r.roofcast_version = root.str_or("roofcast_version", "");
    r.created = root.str_or("created", "");
    r.notes = root.strings("notes");
    if (root.has("machine"))
        r.machine = machine_from_json(j.at("machine"), label + " (machine)");
    J kernels = root["kernels"];
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        J k = kernels.at(i);
        KernelResult kr;
        kr.name = k["name"].str();
        kr.suite = k.str_or("suite", "user");
        kr.role = k.str_or("role", kr.suite == "calibrate" ? "calibration" : "validation");
        if (kr.role != "validation" && kr.role != "untuned" && kr.role != "calibration")
            k["role"].fail("expected \"validation\", \"untuned\" or \"calibration\"");
        kr.precision = k.str_or("precision", "double");
        if (kr.precision != "double" && kr.precision != "single")
            k["precision"].fail("expected \"double\" or \"single\"");
        const double threads = k.opt_num("threads").value_or(1);
        if (!(threads >= 1 && threads <= static_cast<double>(k_max_count) && threads == std::floor(threads)))
            k["threads"].fail("expected a whole number of threads, 1 to " + std::to_string(k_max_count));
        kr.threads = static_cast<int>(threads);
        kr.flops_per_iteration = k["flops_per_iteration"].num();
        kr.iterations = k.opt_num("iterations").value_or(0);
        if (k.has("bytes_per_iteration")) {
            J b = k["bytes_per_iteration"];
            if (!b.v.is_object())
                b.fail("expected an object of level -> bytes");
            for (const auto& [level, v] : b.v.items())
                kr.bytes_per_iteration[level] = J{v, label, b.path + "." + level}.num();
        }
        if (k.has("measured")) {
            J m = k["measured"];
            if (m.has("gflops"))
                kr.measured_gflops = summary_from(m["gflops"]);
            if (m.has("gbs"))
                kr.measured_gbs = summary_from(m["gbs"]);
            if (m.has("seconds"))
                kr.measured_seconds = summary_from(m["seconds"]);
        }
        if (k.has("predictions")) {
            J ps = k["predictions"];
            for (std::size_t p = 0; p < ps.size(); ++p)
                kr.predictions.push_back(prediction_from(ps.at(p)));
        }
        kr.notes = k.strings("notes");
        kr.thread_imbalance = k.opt_num("thread_imbalance");
        kr.bound_fraction = k.opt_num("bound_fraction");
        if (k.has("ceilings")) {
            J cs = k["ceilings"];
            for (std::size_t c = 0; c < cs.size(); ++c) {
                J x = cs.at(c);
                Ceiling ce;
                ce.name = x["name"].str();
                ce.kind = x["kind"].str();
                if (ce.kind != "compute" && ce.kind != "bandwidth")
                    x["kind"].fail("expected \"compute\" or \"bandwidth\"");
                ce.gflops = x["gflops"].num();
                ce.above = x.has("above") && x["above"].boolean();
                kr.ceilings.push_back(std::move(ce));
            }
        }
        if (k.has("diagnosis")) {
            J ds = k["diagnosis"];
            for (std::size_t d = 0; d < ds.size(); ++d) {
                J x = ds.at(d);
                Diagnosis dg;
                dg.cause = x["cause"].str();
                dg.evidence = x["evidence"].str();
                dg.figure = x.opt_num("figure");
                dg.limit = x.opt_num("limit");
                kr.diagnosis.push_back(std::move(dg));
            }
        }
        if (k.has("bound_fraction_rounds")) {
            J f = k["bound_fraction_rounds"];
            for (std::size_t e = 0; e < f.size(); ++e)
                kr.bound_fraction_rounds.push_back(non_negative(f.at(e)));
        }
        if (k.has("bound_fraction_median_round"))
            kr.bound_fraction_median_round = non_negative(k["bound_fraction_median_round"]);
        if (k.has("noise")) {
            J x = k["noise"];
            RowNoise n;
            n.probe = probe_kind(x["probe"]);
            n.spread = non_negative(x["spread"]);
            n.floor = non_negative(x["floor"]);
            set_noise(kr, n); // a summary read back keeps the run's verdict
        }
        r.kernels.push_back(std::move(kr));
    }
    if (root.has("host_noise")) {
        J h = root["host_noise"];
        HostNoise hn;
        J probes = h["probes"];
        for (std::size_t i = 0; i < probes.size(); ++i) {
            J x = probes.at(i);
            NoiseProbe p;
            p.kind = probe_kind(x["kind"]);
            p.kernel = x["kernel"].str();
            p.floor = non_negative(x["floor"]);
            J g = x["gbs"];
            for (std::size_t e = 0; e < g.size(); ++e)
                p.gbs.push_back(non_negative(g.at(e)));
            hn.probes.push_back(std::move(p));
        }
        hn.rows = count_of(h["rows"]);
        hn.flagged = count_of(h["flagged"]);
        if (hn.flagged > hn.rows)
            h["flagged"].fail("expected at most `rows` (" + std::to_string(hn.rows) + ")");
        r.host_noise = std::move(hn);
    }
    if (root.has("accuracy")) {
        J acc = root["accuracy"];
        for (std::size_t i = 0; i < acc.size(); ++i) {
            J a = acc.at(i);
            AccuracySummary s;
            s.model = a["model"].str();
            s.n = static_cast<std::size_t>(a.opt_num("n").value_or(0));
            s.median_abs_error_pct = a.opt_num("median_abs_error_pct");
            s.max_abs_error_pct = a.opt_num("max_abs_error_pct");
            r.accuracy.push_back(s);
        }
    }
    return r;
}

Results load_results(const std::string& path) {
    const std::string text = read_file(path);
    check_nesting(text, path);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw InputError(path, "", std::string("malformed JSON: ") + e.what());
    }
    return results_from_json(j, path);
}

void save_results(const std::string& path, const Results& r) {
    write_file_atomic(path, results_to_json(r).dump(2) + "\n");
}

void set_noise(KernelResult& k, const RowNoise& n) {
    for (auto* s : {&k.measured_seconds, &k.measured_gflops, &k.measured_gbs})
        if (*s)
            (*s)->noisy = n.flagged();
    k.noise = n;
}

const Prediction* find_prediction(const KernelResult& k, const std::string& model) {
    for (const auto& p : k.predictions)
        if (p.model == model)
            return &p;
    return nullptr;
}

AccuracySummary accuracy_of(const std::vector<KernelResult>& kernels, const std::string& model) {
    AccuracySummary s;
    s.model = model;
    std::vector<double> errs;
    for (const auto& k : kernels)
        for (const auto& p : k.predictions)
            if (p.model == model && p.valid && p.error_pct)
                errs.push_back(std::fabs(*p.error_pct));
    s.n = errs.size();
    if (!errs.empty()) {
        s.median_abs_error_pct = median(errs);
        s.max_abs_error_pct = *std::max_element(errs.begin(), errs.end());
    }
    return s;
}

} // namespace roofcast::core
