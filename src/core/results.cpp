#include "core/results.hpp"

#include "core/doc.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/json_keys.hpp"
#include "core/key_path.hpp"
#include "core/nesting.hpp"
#include "core/range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <initializer_list>
#include <nlohmann/json.hpp>

namespace roofcast::core {

namespace {

using nlohmann::json;

// Minimal typed access with file/field context, mirroring YamlField for JSON: every member asked for is
// marked in `keys`, so the members no reader asks for can be named afterwards.
struct J {
    const json& v;
    const std::string& file;
    std::string path;
    JsonKeys& keys;

    [[noreturn]] void fail(const std::string& expected) const {
        throw InputError(file, path.empty() ? "(top level)" : path, expected);
    }
    J operator[](const std::string& key) const {
        if (!v.is_object())
            fail("expected an object containing '" + key + "'");
        const std::string child = member_path(path, key);
        keys.mark(child);
        if (!v.contains(key) || v.at(key).is_null())
            throw InputError(file, child, "missing (required)");
        return J{v.at(key), file, child, keys};
    }
    bool has(const std::string& key) const {
        if (!v.is_object())
            return false;
        keys.mark(member_path(path, key));
        return v.contains(key) && !v.at(key).is_null();
    }
    J at(std::size_t i) const { return J{v.at(i), file, element_path(path, i), keys}; }
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
    // A finite number in `range` (docs/formats.md, "Results file").
    double in(const Range& range) const {
        const double d = num();
        if (!range.contains(d))
            fail(range.expected(v.dump()));
        return d;
    }
    double num_in(double lo, double hi) const { return in(Range::between(lo, hi)); }
    double at_least(double lo) const { return in(Range::at_least(lo)); }
    double positive_at_most(double hi) const { return in(Range::positive_at_most(hi)); }
    std::int64_t whole_in(std::int64_t lo, std::int64_t hi) const {
        return static_cast<std::int64_t>(in(Range::whole(lo, hi)));
    }
    std::optional<double> opt_num(const std::string& key) const {
        return has(key) ? std::optional<double>((*this)[key].num()) : std::nullopt;
    }
    std::optional<double> opt_num_in(const std::string& key, double lo, double hi) const {
        return has(key) ? std::optional<double>((*this)[key].num_in(lo, hi)) : std::nullopt;
    }
    std::optional<double> opt_at_least(const std::string& key, double lo) const {
        return has(key) ? std::optional<double>((*this)[key].at_least(lo)) : std::nullopt;
    }
    std::string str() const {
        if (!v.is_string())
            fail("expected a string");
        return v.get<std::string>();
    }
    std::string str_or(const std::string& key, const std::string& fallback) const {
        return has(key) ? (*this)[key].str() : fallback;
    }
    // One of a few names (an enum field).
    std::string one_of(std::initializer_list<const char*> allowed) const {
        std::string s = str();
        if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
            fail(expected_one_of(allowed, s));
        return s;
    }
    bool boolean() const {
        if (!v.is_boolean())
            fail("expected true or false");
        return v.get<bool>();
    }
    // The list at `key` (absent or null: nothing), each element read by `read(element)` onto `out`.
    template <class T, class Read> void each(const std::string& key, std::vector<T>& out, Read read) const {
        if (!has(key))
            return;
        const J list = (*this)[key];
        for (std::size_t i = 0; i < list.size(); ++i)
            out.push_back(read(list.at(i)));
    }
    std::vector<std::string> strings(const std::string& key) const {
        std::vector<std::string> out;
        each(key, out, [](const J& x) { return x.str(); });
        return out;
    }
};

// A measured summary of a results file: every sample (or the median, min and max) in [0, hi], or in (0, hi]
// when `positive`. The statistics written beside the samples are part of the format but derived again from
// the samples.
Summary summary_from(const J& f, double hi, bool positive) {
    const auto value = [&](const J& x) { return positive ? x.positive_at_most(hi) : x.num_in(0, hi); };
    for (const char* derived : {"median", "min", "max", "n", "spread", "noisy"})
        (void)f.has(derived);
    if (f.has("samples") && f["samples"].size() > 0) {
        std::vector<double> v;
        J s = f["samples"];
        for (std::size_t i = 0; i < s.size(); ++i)
            v.push_back(value(s.at(i)));
        return *summarize(v);
    }
    return core::summary_of_statistics(f, value,
                                       [](const J& x, std::int64_t most) { return x.whole_in(1, most); });
}

// Ranges (docs/formats.md, "Results file"). A kernel may be a profile's region, whose one iteration is its
// work over a whole run: declared work is bounded as a run's events (k_max_events) and measured rates as a
// whole machine's. A model's rates come from the machine file and keep its bounds; times, intensities and
// ratios derived from them are finite and signed only, as the machine's rates have no lower bound.

Prediction prediction_from(const J& f) {
    Prediction p;
    p.model = f["model"].str();
    p.seconds_per_iteration = f["seconds_per_iteration"].at_least(0);
    p.gflops = f["gflops"].num_in(0, k_max_gflops);
    p.peak_fraction = f.opt_at_least("peak_fraction", 0).value_or(0);
    p.bottleneck = f["bottleneck"].str();
    p.valid = f.has("valid") ? f["valid"].boolean() : true;
    p.notes = f.strings("notes");
    // (predicted - measured) / measured with a prediction >= 0: at least -100 %.
    p.error_pct = f.opt_at_least("error_pct", -100);
    p.compute_seconds_per_iteration = f.opt_at_least("compute_seconds_per_iteration", 0);
    f.each("terms", p.terms, [](const J& t) {
        LevelTerm lt;
        lt.level = t["level"].str();
        lt.bytes_per_iteration = t["bytes_per_iteration"].num_in(0, k_max_events);
        lt.intensity = t.opt_at_least("intensity", 0);
        if (t.has("bandwidth_gbs"))
            lt.bandwidth_gbs = t["bandwidth_gbs"].positive_at_most(k_max_gbs);
        lt.bandwidth_source = t.str_or("bandwidth_source", "");
        lt.seconds_per_iteration = t.opt_at_least("seconds_per_iteration", 0);
        return lt;
    });
    return p;
}

KernelResult kernel_from(const J& k) {
    KernelResult kr;
    kr.name = k["name"].str();
    kr.suite = k.str_or("suite", "user");
    kr.role = k.has("role") ? k["role"].one_of({"validation", "untuned", "calibration"})
                            : (kr.suite == "calibrate" ? "calibration" : "validation");
    kr.precision = k.has("precision") ? k["precision"].one_of({"double", "single"}) : "double";
    kr.threads = static_cast<int>(k.has("threads") ? k["threads"].whole_in(1, k_max_count) : 1);
    kr.flops_per_iteration = k["flops_per_iteration"].num_in(0, k_max_events);
    kr.iterations = k.opt_num_in("iterations", 0, k_max_iterations).value_or(0); // 0: not known
    if (k.has("bytes_per_iteration")) {
        J b = k["bytes_per_iteration"];
        if (!b.v.is_object())
            b.fail("expected an object of level -> bytes");
        for (const auto& [level, v] : b.v.items())
            kr.bytes_per_iteration[level] = b[level].num_in(0, k_max_events);
    }
    if (k.has("measured")) {
        J m = k["measured"];
        // A kernel without flops measures 0 GFLOP/s; a call takes time.
        if (m.has("gflops"))
            kr.measured_gflops = summary_from(m["gflops"], k_max_system_gflops, false);
        if (m.has("gbs"))
            kr.measured_gbs = summary_from(m["gbs"], k_max_system_gbs, false);
        if (m.has("seconds"))
            kr.measured_seconds = summary_from(m["seconds"], k_max_run_seconds, true);
    }
    if (k.has("error_basis")) {
        // Derived from `measured` when written (error_basis_json): checked, not kept.
        J b = k["error_basis"];
        b["statistic"].one_of({"best_epoch"});
        b.opt_at_least("seconds_per_iteration", 0);
        b.opt_num_in("gflops", 0, k_max_system_gflops);
        b.opt_num_in("gbs", 0, k_max_system_gbs);
    }
    k.each("predictions", kr.predictions, prediction_from);
    kr.notes = k.strings("notes");
    // The slowest thread over the mean: at most the thread count.
    if (k.has("thread_imbalance"))
        kr.thread_imbalance = k["thread_imbalance"].positive_at_most(static_cast<double>(k_max_count));
    if (k.has("in_cache_seconds_per_iteration"))
        kr.in_cache_seconds = k["in_cache_seconds_per_iteration"].positive_at_most(k_max_run_seconds);
    kr.bound_fraction = k.opt_at_least("bound_fraction", 0);
    k.each("ceilings", kr.ceilings, [](const J& x) {
        Ceiling ce;
        ce.name = x["name"].str();
        ce.kind = x["kind"].one_of({"compute", "bandwidth"});
        ce.gflops = x["gflops"].num_in(0, k_max_gflops);
        ce.above = x.has("above") && x["above"].boolean();
        return ce;
    });
    k.each("diagnosis", kr.diagnosis, [](const J& x) {
        Diagnosis dg;
        dg.cause = x["cause"].str();
        dg.evidence = x["evidence"].str();
        dg.figure = x.opt_num("figure"); // in the unit the evidence states: finite, any sign
        dg.limit = x.opt_num("limit");
        return dg;
    });
    k.each("bound_fraction_rounds", kr.bound_fraction_rounds, [](const J& x) { return x.at_least(0); });
    kr.bound_fraction_median_round = k.opt_at_least("bound_fraction_median_round", 0);
    if (k.has("settle")) {
        J x = k["settle"];
        kr.settle =
            RoundSettle{static_cast<int>(x["rounds"].whole_in(1, k_max_count)), x["settled"].boolean()};
    }
    if (k.has("verdict")) {
        J x = k["verdict"];
        Verdict v;
        v.state = x["state"].one_of({"at-bound", "below", "undetermined"});
        v.fraction = x["fraction"].at_least(0);
        v.lo = x["lo"].at_least(0);
        v.hi = x["hi"].at_least(v.lo);
        v.confidence = x["confidence"].num_in(0, 1);
        v.basis = x["basis"].one_of({"epochs and rounds", "epochs", "one epoch"});
        v.threshold = x["threshold"].num_in(0, 1);
        v.probe_moved = x.opt_at_least("probe_moved", 1);
        if (v.probe_moved)
            v.probe = x["probe"].str();
        kr.verdict = std::move(v);
    }
    if (k.has("noise")) {
        J x = k["noise"];
        RowNoise n;
        n.probe = x["probe"].one_of({"memory", "cache", "core", "compute"});
        n.spread = x["spread"].at_least(0);
        n.floor = x["floor"].at_least(0);
        (void)x.has("flagged"); // derived from spread and floor
        set_noise(kr, n);       // a summary read back keeps the run's verdict
    }
    return kr;
}

HostNoise host_noise_from(const J& h) {
    HostNoise hn;
    J probes = h["probes"];
    for (std::size_t i = 0; i < probes.size(); ++i) {
        J x = probes.at(i);
        NoiseProbe p;
        p.kind = x["kind"].one_of({"memory", "cache", "core", "compute"});
        p.kernel = x["kernel"].str();
        p.floor = x["floor"].at_least(0);
        J g = x["gbs"];
        for (std::size_t e = 0; e < g.size(); ++e)
            p.gbs.push_back(g.at(e).num_in(0, k_max_gbs));
        hn.probes.push_back(std::move(p));
    }
    hn.rows = static_cast<std::size_t>(h["rows"].whole_in(0, k_max_count));
    hn.flagged = static_cast<std::size_t>(h["flagged"].whole_in(0, k_max_count));
    if (hn.flagged > hn.rows)
        h["flagged"].fail("expected at most `rows` (" + std::to_string(hn.rows) + ")");
    return hn;
}

AccuracySummary accuracy_from(const J& a) {
    AccuracySummary s;
    s.model = a["model"].str();
    s.n = static_cast<std::size_t>(a.has("n") ? a["n"].whole_in(0, k_max_count) : 0);
    s.median_abs_error_pct = a.opt_at_least("median_abs_error_pct", 0);
    s.max_abs_error_pct = a.opt_at_least("max_abs_error_pct", 0);
    if (s.median_abs_error_pct && s.max_abs_error_pct && *s.median_abs_error_pct > *s.max_abs_error_pct)
        a["median_abs_error_pct"].fail("expected at most max_abs_error_pct");
    s.n_round = static_cast<std::size_t>(a.has("n_round") ? a["n_round"].whole_in(0, k_max_count) : 0);
    s.median_round_abs_error_pct = a.opt_at_least("median_round_abs_error_pct", 0);
    s.max_round_abs_error_pct = a.opt_at_least("max_round_abs_error_pct", 0);
    if (s.median_round_abs_error_pct && s.max_round_abs_error_pct &&
        *s.median_round_abs_error_pct > *s.max_round_abs_error_pct)
        a["median_round_abs_error_pct"].fail("expected at most max_round_abs_error_pct");
    const auto count = [&](const char* key) {
        return static_cast<std::size_t>(a.has(key) ? a[key].whole_in(0, k_max_count) : 0);
    };
    s.n_interval = count("n_interval");
    s.inside_interval = count("inside_interval");
    s.within_tolerance = count("within_tolerance");
    s.max_beyond_pct = a.opt_at_least("max_beyond_pct", 0);
    if (s.within_tolerance > s.n_interval)
        a["within_tolerance"].fail("expected at most n_interval (" + std::to_string(s.n_interval) + ")");
    if (s.inside_interval > s.within_tolerance)
        a["inside_interval"].fail("expected at most within_tolerance (" + std::to_string(s.within_tolerance) +
                                  ")");
    return s;
}

HostSharing host_from(const J& h) {
    HostSharing s;
    s.shared = h["shared"].boolean();
    s.reasons = h.strings("reasons");
    s.steal_fraction = h.opt_num_in("steal_fraction", 0, 1);
    s.probe_moved = h.opt_at_least("probe_moved", 1);
    return s;
}

} // namespace

Results results_from_json(const json& j, const std::string& label, std::vector<std::string>* unread_keys) {
    JsonKeys keys;
    const J root{j, label, "", keys};
    if (!j.is_object())
        root.fail("expected a JSON object (a roofcast results file)");
    keys.mark("kind");
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
    if (root.has("machine")) {
        std::vector<std::string> machine_unread;
        r.machine = machine_from_json(j.at("machine"), label + " (machine)", &machine_unread);
        keys.delegate("machine", std::move(machine_unread));
    }
    J kernels = root["kernels"];
    for (std::size_t i = 0; i < kernels.size(); ++i)
        r.kernels.push_back(kernel_from(kernels.at(i)));
    if (root.has("host_noise"))
        r.host_noise = host_noise_from(root["host_noise"]);
    if (root.has("host"))
        r.host = host_from(root["host"]);
    if (root.has("accuracy")) {
        J acc = root["accuracy"];
        for (std::size_t i = 0; i < acc.size(); ++i)
            r.accuracy.push_back(accuracy_from(acc.at(i)));
    }
    if (unread_keys)
        *unread_keys = keys.unread(j);
    return r;
}

Results results_from_text(const std::string& text, const std::string& label,
                          std::vector<std::string>* unread_keys) {
    check_nesting(text, label);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw InputError(label, "", std::string("malformed JSON: ") + e.what());
    }
    return results_from_json(j, label, unread_keys);
}

Results load_results(const std::string& path, std::vector<std::string>* unread_keys) {
    return results_from_text(read_file(path), path, unread_keys);
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

bool has_round_accuracy(const std::vector<AccuracySummary>& accuracy) {
    return std::any_of(accuracy.begin(), accuracy.end(),
                       [](const AccuracySummary& a) { return a.n_round > 0; });
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
