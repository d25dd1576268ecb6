// machine_to_json: the JSON form of a machine file (embedded in results.json, printed by
// `roofcast machine --json`), built from the Machine struct itself. It carries the keys of
// machine_to_yaml, and every number is a JSON float, as the form always had (it was once the YAML text
// converted back, which read every number as a double); numbers keep their full precision.
#include "core/machine.hpp"

#include <nlohmann/json.hpp>

namespace roofcast::core {

namespace {

using nlohmann::json;

// Every number of the JSON form is a float (see the file comment).
template <typename T> json num(T v) {
    return json(static_cast<double>(v));
}

json summary_json(const Summary& s) {
    json j{{"median", num(s.median)},
           {"min", num(s.min)},
           {"max", num(s.max)},
           {"n", num(s.n)},
           {"noisy", s.noisy}};
    if (s.spread)
        j["spread"] = num(*s.spread);
    if (!s.samples.empty()) {
        json v = json::array();
        for (double x : s.samples)
            v.push_back(num(x));
        j["samples"] = v;
    }
    return j;
}

json point_json(const BandwidthPoint& p) {
    return json{{"kernel", p.kernel},
                {"threads", num(p.threads)},
                {"working_set_bytes", num(p.working_set_bytes)},
                {"gbs", summary_json(p.gbs)},
                {"moved_per_requested", num(p.moved_per_requested)}};
}

json topology_json(const Topology& t) {
    json tn{{"cpu_model", t.cpu_model},        {"isa", t.isa},
            {"packages", num(t.packages)},     {"cores", num(t.cores)},
            {"hw_threads", num(t.hw_threads)}, {"numa_nodes", num(t.numa_nodes)}};
    if (!t.vendor.empty())
        tn["vendor"] = t.vendor;
    if (t.family)
        tn["family"] = num(*t.family);
    if (t.model_number)
        tn["model"] = num(*t.model_number);
    if (t.stepping)
        tn["stepping"] = num(*t.stepping);
    for (const auto& c : t.caches) {
        json cn{{"name", c.name},
                {"size_bytes", num(c.size_bytes)},
                {"line_bytes", num(c.line_bytes)},
                {"shared_by_cores", num(c.shared_by_cores)},
                {"instances", num(c.instances)}};
        if (c.associativity)
            cn["associativity"] = num(*c.associativity);
        if (c.effective_size_bytes)
            cn["effective_size_bytes"] = num(*c.effective_size_bytes);
        if (c.effective_size_range_bytes)
            cn["effective_size_range_bytes"] = {num(c.effective_size_range_bytes->first),
                                                num(c.effective_size_range_bytes->second)};
        if (!c.note.empty())
            cn["note"] = c.note;
        tn["caches"].push_back(cn);
    }
    for (const auto& tl : t.tlb) {
        json e{{"level", tl.level}, {"entries", num(tl.entries)}, {"page_bytes", num(tl.page_bytes)}};
        if (tl.associativity)
            e["associativity"] = num(*tl.associativity);
        tn["tlb"].push_back(e);
    }
    if (!t.huge_pages.empty())
        tn["huge_pages"] = t.huge_pages;
    return tn;
}

json compute_json(const Machine& m) {
    json compute = json::object();
    for (const auto& [p, v] : m.peak_gflops)
        compute["peak_gflops"][p] = num(v);
    for (const auto& [p, v] : m.effective_gflops)
        compute["effective_gflops"][p] = num(v);
    for (const auto& [name, value] : exponent_fields(m))
        if (value)
            compute[name] = num(*value);
    for (const auto& c : m.ceilings) {
        json cn{{"precision", c.precision},
                {"isa", c.isa},
                {"op", c.op},
                {"threads", num(c.threads)},
                {"gflops", summary_json(c.gflops)},
                {"source", to_string(c.source)}};
        if (c.ghz)
            cn["ghz"] = num(*c.ghz);
        compute["ceilings"].push_back(cn);
    }
    // An empty YAML map was written as a null value.
    return compute.empty() ? json(nullptr) : compute;
}

json level_json(const Level& l) {
    json ln{{"name", l.name}, {"source", to_string(l.source)}};
    if (l.bandwidth_gbs)
        ln["bandwidth_gbs"] = num(*l.bandwidth_gbs);
    if (!l.bandwidth_kernel.empty())
        ln["bandwidth_kernel"] = l.bandwidth_kernel;
    if (l.bandwidth)
        ln["bandwidth"] = summary_json(*l.bandwidth);
    if (l.roof_choice) {
        ln["roof_choice"] = json{{"method", l.roof_choice->method},
                                 {"epochs", num(static_cast<double>(l.roof_choice->epochs))},
                                 {"best", num(static_cast<double>(l.roof_choice->best))},
                                 {"tolerance", num(l.roof_choice->tolerance)},
                                 {"settled", l.roof_choice->settled}};
        if (l.roof_choice->visits > 0) {
            ln["roof_choice"]["visits"] = num(static_cast<double>(l.roof_choice->visits));
            ln["roof_choice"]["window_seconds"] = num(l.roof_choice->window_seconds);
        }
        if (l.roof_choice->visit_gbs)
            ln["roof_choice"]["visit_gbs"] = summary_json(*l.roof_choice->visit_gbs);
        if (l.roof_choice->thread_scaling)
            ln["roof_choice"]["thread_scaling"] = num(*l.roof_choice->thread_scaling);
    }
    if (l.effective_bandwidth_gbs)
        ln["effective_bandwidth_gbs"] = num(*l.effective_bandwidth_gbs);
    if (l.effective_bandwidth_half_width_gbs)
        ln["effective_bandwidth_half_width_gbs"] = num(*l.effective_bandwidth_half_width_gbs);
    if (l.size_bytes)
        ln["size_bytes"] = num(*l.size_bytes);
    if (l.curve) {
        json cn{{"x", l.curve->x}};
        for (const auto& [x, y] : l.curve->points)
            cn["points"].push_back(json::array({num(x), num(y)}));
        if (l.curve->affine)
            cn["affine"] = json{{"a", num(l.curve->affine->first)}, {"b", num(l.curve->affine->second)}};
        ln["curve"] = cn;
    }
    for (const auto& p : l.measurements)
        ln["measurements"].push_back(point_json(p));
    return ln;
}

json mpi_json(const MpiFigures& f) {
    json mn{{"source", to_string(f.source)}, {"ranks", num(f.ranks)}};
    if (!f.placement.empty())
        mn["placement"] = f.placement;
    if (!f.library.empty())
        mn["library"] = f.library;
    if (f.latency_s)
        mn["latency_s"] = summary_json(*f.latency_s);
    if (f.bandwidth_gbs)
        mn["bandwidth_gbs"] = summary_json(*f.bandwidth_gbs);
    if (f.alpha_s)
        mn["alpha_s"] = num(*f.alpha_s);
    if (f.beta_gbs)
        mn["beta_gbs"] = num(*f.beta_gbs);
    for (const auto& p : f.points)
        mn["points"].push_back(json{{"bytes", num(p.bytes)}, {"seconds", summary_json(p.seconds)}});
    return mn;
}

json stream_capacity_json(const StreamCapacity& s) {
    json n{{"level", s.level},
           {"access", s.access},
           {"threads", num(s.threads)},
           {"working_set_bytes", num(s.working_set_bytes)}};
    if (s.capacity)
        n["capacity"] = num(*s.capacity);
    for (const auto& p : s.points)
        n["points"].push_back(json{{"streams", num(p.streams)}, {"gbs", summary_json(p.gbs)}});
    return n;
}

} // namespace

nlohmann::json machine_to_json(const Machine& m) {
    json root{{"format_version", num(m.format_version)}, {"name", m.name}, {"source", to_string(m.source)}};
    if (!m.created.empty())
        root["created"] = m.created;
    if (!m.roofcast_version.empty())
        root["roofcast_version"] = m.roofcast_version;
    if (m.measurement_revision)
        root["measurement_revision"] = num(*m.measurement_revision);
    if (m.topology)
        root["topology"] = topology_json(*m.topology);
    if (m.clock_ghz)
        root["clock_ghz"] = summary_json(*m.clock_ghz);
    if (m.tsc_ghz)
        root["tsc_ghz"] = num(*m.tsc_ghz);
    root["clock_drift"] = m.clock_drift;
    root["compute"] = compute_json(m);
    for (const auto& l : m.levels)
        root["levels"].push_back(level_json(l));
    for (const auto& p : m.sweep)
        root["sweep"].push_back(point_json(p));
    for (const auto& o : m.thread_overhead)
        root["thread_overhead"].push_back(
            json{{"method", o.method}, {"threads", num(o.threads)}, {"seconds", summary_json(o.seconds)}});
    if (m.mpi)
        root["mpi"] = mpi_json(*m.mpi);
    for (const auto& s : m.stream_capacity)
        root["stream_capacity"].push_back(stream_capacity_json(s));
    root["validity"] = json{{"l1_short_per_mem", num(m.validity.l1_short_per_mem)},
                            {"l1_long_per_traffic", num(m.validity.l1_long_per_traffic)},
                            {"l1_long_cache_bound", num(m.validity.l1_long_cache_bound)}};
    for (const auto& n : m.notes)
        root["notes"].push_back(n);
    return root;
}

} // namespace roofcast::core
