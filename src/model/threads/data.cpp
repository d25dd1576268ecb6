#include "model/threads/data.hpp"

#include "core/error.hpp"
#include "core/machine.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace roofcast::model::threads {

namespace {

constexpr std::size_t k_max_points = 1'000'000; // bounds what a file may make us allocate

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& what) {
    throw core::InputError(file, field, "expected " + what);
}

const json& member(const json& j, const char* key, const std::string& file, const std::string& field) {
    if (!j.is_object() || !j.contains(key))
        fail(file, field + key, "a value");
    return j.at(key);
}

double number(const json& j, const char* key, const std::string& file, const std::string& field, double lo) {
    const json& v = member(j, key, file, field);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo)
        fail(file, field + key, fmt::format("a number >= {}", lo));
    return v.get<double>();
}

// A thread or core count: an integer in [1, 1e6].
int count(const json& j, const char* key, const std::string& file, const std::string& field) {
    const json& v = member(j, key, file, field);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 1 || v.get<double>() > 1e6 ||
        v.get<double>() != std::floor(v.get<double>()))
        fail(file, field + key, "an integer from 1 to 1000000");
    return static_cast<int>(v.get<double>());
}

std::string text(const json& j, const char* key, const std::string& file, const std::string& field) {
    const json& v = member(j, key, file, field);
    if (!v.is_string())
        fail(file, field + key, "a string");
    return v.get<std::string>();
}

} // namespace

json data_to_json(const ThreadsData& d) {
    const Context& c = d.context;
    json caches = json::array();
    for (const auto& k : c.caches)
        caches.push_back({{"name", k.name}, {"bytes", k.bytes}});
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

ThreadsData data_from_json(const json& j, const std::string& file) {
    ThreadsData d;
    const json& c = member(j, "context", file, "");
    d.context.kernel = text(c, "kernel", file, "context.");
    d.context.bytes_per_n = number(c, "bytes_per_n", file, "context.", 1e-9);
    d.context.cores = count(c, "cores", file, "context.");
    d.context.hw_threads = count(c, "hw_threads", file, "context.");
    d.context.bandwidth_source = c.value("bandwidth_source", "");
    d.context.machine_source = c.value("machine_source", "");
    const json& caches = member(c, "caches", file, "context.");
    if (!caches.is_array() || caches.size() > 16)
        fail(file, "context.caches", "an array of at most 16 caches");
    for (const auto& k : caches)
        d.context.caches.push_back(
            {text(k, "name", file, "context.caches[]."), number(k, "bytes", file, "context.caches[].", 1)});
    if (c.contains("bandwidth_gbs")) {
        const json& bw = c.at("bandwidth_gbs");
        if (!bw.is_array() || bw.size() > 4096)
            fail(file, "context.bandwidth_gbs", "an array of {threads, gbs}");
        for (const auto& b : bw)
            d.context.bandwidth_gbs.emplace_back(count(b, "threads", file, "context.bandwidth_gbs[]."),
                                                 number(b, "gbs", file, "context.bandwidth_gbs[].", 1e-9));
    }
    d.command = j.value("command", "");
    const json& series = member(j, "series", file, "");
    if (!series.is_array() || series.empty() || series.size() > 16)
        fail(file, "series", "an array of 1 to 16 series");
    std::size_t total = 0;
    for (const auto& s : series) {
        Series out;
        out.api = text(s, "api", file, "series[].");
        const json& pts = member(s, "measurements", file, "series[].");
        if (!pts.is_array() || (total += pts.size()) > k_max_points)
            fail(file, "series[].measurements",
                 fmt::format("an array (at most {} points in all)", k_max_points));
        for (const auto& p : pts) {
            Measurement m;
            m.n = number(p, "n", file, "series[].measurements[].", 1e-300);
            m.s = count(p, "s", file, "series[].measurements[].");
            const json& samples = member(p, "samples", file, "series[].measurements[].");
            std::vector<double> xs;
            if (!samples.is_array() || samples.empty() || samples.size() > 100000)
                fail(file, "series[].measurements[].samples", "a non-empty array of seconds");
            for (const auto& v : samples) {
                if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
                    fail(file, "series[].measurements[].samples", "non-negative numbers (seconds)");
                xs.push_back(v.get<double>());
            }
            m.seconds = *core::summarize(std::move(xs));
            out.points.push_back(std::move(m));
        }
        if (s.contains("failures") && s.at("failures").is_array())
            for (const auto& f : s.at("failures"))
                out.failures.push_back({number(f, "n", file, "series[].failures[].", 0),
                                        count(f, "s", file, "series[].failures[]."), f.value("reason", "")});
        if (s.contains("overhead") && s.at("overhead").is_array() && s.at("overhead").size() <= 4096)
            for (const auto& o : s.at("overhead")) {
                const json& samples = member(o, "samples", file, "series[].overhead[].");
                std::vector<double> xs;
                if (!samples.is_array() || samples.empty() || samples.size() > 100000)
                    fail(file, "series[].overhead[].samples", "a non-empty array of seconds");
                for (const auto& v : samples) {
                    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
                        fail(file, "series[].overhead[].samples", "non-negative numbers (seconds)");
                    xs.push_back(v.get<double>());
                }
                out.overhead.push_back(
                    {count(o, "s", file, "series[].overhead[]."), *core::summarize(std::move(xs))});
            }
        d.series.push_back(std::move(out));
    }
    return d;
}

} // namespace roofcast::model::threads
