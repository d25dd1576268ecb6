#include "analysis/threads/data.hpp"

#include "core/error.hpp"
#include "core/json_keys.hpp"
#include "core/key_path.hpp"
#include "core/machine.hpp"
#include "core/range.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <initializer_list>
#include <nlohmann/json.hpp>

namespace roofcast::model::threads {

namespace {

constexpr std::size_t k_max_points = 1'000'000; // bounds what a file may make us allocate

using json = nlohmann::json;
using core::element_path;
using core::member_path;

// Reads one threads file, marking every member it asks for so that the members it never reads can be
// named (core::JsonKeys). Every error names the field by its full path ("series[0].measurements[3].s").
struct Reader {
    const std::string& file;
    core::JsonKeys keys;

    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw core::InputError(file, field, "expected " + what);
    }
    const json* optional(const json& j, const std::string& where, const char* key) {
        keys.mark(member_path(where, key));
        return j.is_object() && j.contains(key) ? &j.at(key) : nullptr;
    }
    const json& member(const json& j, const std::string& where, const char* key) {
        if (!j.is_object())
            fail(where, "an object");
        const json* v = optional(j, where, key);
        if (!v)
            fail(member_path(where, key), "a value (missing required field)");
        return *v;
    }
    // A finite number in `range` (core/range.hpp).
    double in(const json& j, const std::string& where, const char* key, const core::Range& range) {
        const json& v = member(j, where, key);
        if (!v.is_number() || !range.contains(v.get<double>()))
            throw core::InputError(file, member_path(where, key), range.expected(v.dump()));
        return v.get<double>();
    }
    double number(const json& j, const std::string& where, const char* key, double lo, double hi) {
        return in(j, where, key, core::Range::between(lo, hi));
    }
    // A thread or core count: a whole number in [lo, k_max_threads].
    int count(const json& j, const std::string& where, const char* key, int lo = 1) {
        return static_cast<int>(in(j, where, key, core::Range::whole(lo, k_max_threads)));
    }
    std::string text(const json& j, const std::string& where, const char* key) {
        const json& v = member(j, where, key);
        if (!v.is_string() || v.get_ref<const std::string&>().size() > k_max_text)
            fail(member_path(where, key), fmt::format("a string of at most {} characters", k_max_text));
        return v.get<std::string>();
    }
    std::string optional_text(const json& j, const std::string& where, const char* key) {
        return optional(j, where, key) ? text(j, where, key) : std::string();
    }
    std::string one_of(const json& j, const std::string& where, const char* key,
                       std::initializer_list<const char*> allowed) {
        std::string v = text(j, where, key);
        if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
            throw core::InputError(file, member_path(where, key), core::expected_one_of(allowed, v));
        return v;
    }
    // An array of at most `most` elements at `path`.
    const json& array(const json& v, const std::string& path, std::size_t most, const char* what) {
        if (!v.is_array() || v.size() > most)
            fail(path, fmt::format("an array of at most {} {}", most, what));
        return v;
    }
    // Timed samples: a non-empty array of seconds in [0, k_max_seconds].
    core::Summary samples(const json& j, const std::string& where) {
        const std::string path = member_path(where, "samples");
        const json& v = member(j, where, "samples");
        if (!v.is_array() || v.empty() || v.size() > k_max_samples)
            fail(path, fmt::format("a non-empty array of at most {} times in seconds", k_max_samples));
        std::vector<double> xs;
        xs.reserve(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (const auto range = core::Range::between(0, k_max_seconds);
                !v[i].is_number() || !range.contains(v[i].get<double>()))
                throw core::InputError(file, element_path(path, i), range.expected(v[i].dump()));
            xs.push_back(v[i].get<double>());
        }
        // The summary beside the samples is derived from them on reading, never taken from the file.
        for (const char* k : {"median", "min", "max", "n", "count", "noisy", "spread"})
            keys.mark(member_path(where, k));
        return *core::summarize(std::move(xs));
    }
};

} // namespace

json data_to_json(const ThreadsData& d) {
    const Context& c = d.context;
    json caches = json::array();
    for (const auto& k : c.caches) {
        json one = {{"name", k.name}, {"bytes", k.bytes}};
        if (k.shared_by_cores > 0)
            one["shared_by_cores"] = k.shared_by_cores;
        caches.push_back(std::move(one));
    }
    json bw = json::array();
    for (const auto& [s, gbs] : c.bandwidth_gbs)
        bw.push_back({{"threads", s}, {"gbs", gbs}});
    json series = json::array();
    for (const auto& s : d.series) {
        json pts = json::array();
        for (const auto& p : s.points) {
            json m = core::summary_to_json(p.seconds);
            m["count"] = m["n"]; // "n" is the problem size here
            m["n"] = p.n;
            m["s"] = p.s;
            pts.push_back(std::move(m));
        }
        json fails = json::array();
        for (const auto& f : s.failures)
            fails.push_back({{"n", f.n}, {"s", f.s}, {"reason", f.reason}});
        json over = json::array();
        for (const auto& o : s.overhead) {
            json m = core::summary_to_json(o.seconds);
            m["count"] = m["n"];
            m.erase("n");
            m["s"] = o.s;
            over.push_back(std::move(m));
        }
        series.push_back({{"api", s.api}, {"measurements", pts}, {"failures", fails}, {"overhead", over}});
    }
    return {{"context",
             {{"kernel", c.kernel},
              {"bytes_per_n", c.bytes_per_n},
              {"caches", caches},
              {"cores", c.cores},
              {"hw_threads", c.hw_threads},
              {"bandwidth_gbs", bw},
              {"bandwidth_source", c.bandwidth_source},
              {"machine_source", c.machine_source}}},
            {"command", d.command},
            {"series", series}};
}

ThreadsData data_from_json(const json& j, const std::string& file, std::vector<std::string>* unread_keys) {
    Reader r{file, {}};
    if (!j.is_object())
        r.fail("", "a JSON object (a threads results file written by roofcast threads --json)");
    ThreadsData d;
    if (r.optional(j, "", "format"))
        r.one_of(j, "", "format", {"roofcast-threads"});
    if (r.optional(j, "", "format_version"))
        r.number(j, "", "format_version", 1, 1);
    if (r.optional(j, "", "holdout")) {
        d.holdout = static_cast<int>(r.number(j, "", "holdout", 0, k_max_holdout));
        if (d.holdout == 1 || d.holdout != j.at("holdout").get<double>())
            r.fail("holdout", fmt::format("0 or a whole number from 2 to {}", k_max_holdout));
    }

    const json& c = r.member(j, "", "context");
    d.context.kernel = r.one_of(c, "context", "kernel", {"norm2", "triad", "command"});
    d.context.bytes_per_n = r.number(c, "context", "bytes_per_n", 1e-9, k_max_bytes_per_n);
    d.context.cores = r.count(c, "context", "cores");
    d.context.hw_threads = r.count(c, "context", "hw_threads", d.context.cores);
    d.context.bandwidth_source = r.optional_text(c, "context", "bandwidth_source");
    d.context.machine_source = r.optional_text(c, "context", "machine_source");
    const json& caches = r.array(r.member(c, "context", "caches"), "context.caches", 16, "caches");
    for (std::size_t i = 0; i < caches.size(); ++i) {
        const std::string at = element_path("context.caches", i);
        Cache k{r.text(caches[i], at, "name"), r.number(caches[i], at, "bytes", 1, k_max_cache_bytes)};
        if (r.optional(caches[i], at, "shared_by_cores"))
            k.shared_by_cores = r.count(caches[i], at, "shared_by_cores");
        d.context.caches.push_back(std::move(k));
    }
    if (const json* bw = r.optional(c, "context", "bandwidth_gbs")) {
        r.array(*bw, "context.bandwidth_gbs", 4096, "{threads, gbs} pairs");
        for (std::size_t i = 0; i < bw->size(); ++i) {
            const std::string at = element_path("context.bandwidth_gbs", i);
            d.context.bandwidth_gbs.emplace_back(r.count((*bw)[i], at, "threads"),
                                                 r.number((*bw)[i], at, "gbs", 1e-9, k_max_gbs));
        }
    }
    d.command = r.optional_text(j, "", "command");

    const json& series = r.array(r.member(j, "", "series"), "series", 16, "series");
    if (series.empty())
        r.fail("series", "an array of 1 to 16 series");
    std::size_t total = 0;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const json& s = series[i];
        const std::string at = element_path("series", i);
        Series out;
        out.api = r.one_of(s, at, "api", {"omp", "pthread", "command"});
        for (const auto& earlier : d.series)
            if (earlier.api == out.api)
                r.fail(member_path(at, "api"), fmt::format("each api once, got \"{}\" twice", out.api));
        const std::string pts_at = member_path(at, "measurements");
        const json& pts = r.member(s, at, "measurements");
        if (!pts.is_array() || (total += pts.size()) > k_max_points)
            r.fail(pts_at, fmt::format("an array (at most {} points in all)", k_max_points));
        for (std::size_t k = 0; k < pts.size(); ++k) {
            const std::string p_at = element_path(pts_at, k);
            Measurement m;
            m.n = r.number(pts[k], p_at, "n", 1e-300, k_max_n);
            m.s = r.count(pts[k], p_at, "s");
            m.seconds = r.samples(pts[k], p_at);
            out.points.push_back(std::move(m));
        }
        if (const json* fails = r.optional(s, at, "failures")) {
            const std::string f_at = member_path(at, "failures");
            r.array(*fails, f_at, k_max_points, "failures");
            for (std::size_t k = 0; k < fails->size(); ++k) {
                const std::string e = element_path(f_at, k);
                out.failures.push_back({r.number((*fails)[k], e, "n", 0, k_max_n),
                                        r.count((*fails)[k], e, "s"),
                                        r.optional_text((*fails)[k], e, "reason")});
            }
        }
        if (const json* over = r.optional(s, at, "overhead")) {
            const std::string o_at = member_path(at, "overhead");
            r.array(*over, o_at, 4096, "thread counts");
            for (std::size_t k = 0; k < over->size(); ++k) {
                const std::string e = element_path(o_at, k);
                const int threads = r.count((*over)[k], e, "s");
                out.overhead.push_back({threads, r.samples((*over)[k], e)});
            }
        }
        // What the analysis wrote is derived again from the measurements on reading.
        for (const char* k :
             {"fitted", "held_out", "noise_floor", "noisy_points", "notes", "models", "predictions", "best"})
            r.keys.mark_whole(member_path(at, k));
        d.series.push_back(std::move(out));
    }
    if (unread_keys)
        *unread_keys = r.keys.unread(j);
    return d;
}

} // namespace roofcast::model::threads
