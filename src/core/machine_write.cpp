// Writing a machine file (docs/machine-file.md): the YAML form machine_from_yaml reads back.
#include "core/machine.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine_noise.hpp"
#include "core/machine_sections.hpp"
#include "core/stream_catalogue.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace roofcast::core {

namespace {

YAML::Node point_to_yaml(const BandwidthPoint& p) {
    YAML::Node n;
    n["kernel"] = p.kernel;
    n["threads"] = p.threads;
    n["working_set_bytes"] = p.working_set_bytes;
    n["gbs"] = summary_to_yaml(p.gbs);
    n["moved_per_requested"] = p.moved_per_requested;
    return n;
}

// format_version, name and where the file came from, at the top of the file.
void write_file_header(const Machine& m, YAML::Node& root) {
    root["format_version"] = m.format_version;
    root["name"] = m.name;
    if (!m.created.empty())
        root["created"] = m.created;
    if (!m.roofcast_version.empty())
        root["roofcast_version"] = m.roofcast_version;
    if (m.measurement_revision)
        root["measurement_revision"] = *m.measurement_revision;
    root["source"] = to_string(m.source);
}

YAML::Node cache_to_yaml(const CacheInfo& c) {
    YAML::Node cn;
    cn["name"] = c.name;
    cn["size_bytes"] = c.size_bytes;
    cn["line_bytes"] = c.line_bytes;
    if (c.associativity)
        cn["associativity"] = *c.associativity;
    cn["shared_by_cores"] = c.shared_by_cores;
    cn["instances"] = c.instances;
    if (c.effective_size_bytes)
        cn["effective_size_bytes"] = *c.effective_size_bytes;
    if (c.effective_size_range_bytes) {
        YAML::Node range(YAML::NodeType::Sequence);
        range.push_back(c.effective_size_range_bytes->first);
        range.push_back(c.effective_size_range_bytes->second);
        range.SetStyle(YAML::EmitterStyle::Flow);
        cn["effective_size_range_bytes"] = range;
    }
    if (!c.note.empty())
        cn["note"] = c.note;
    return cn;
}

YAML::Node topology_to_yaml(const Topology& t) {
    YAML::Node tn;
    tn["cpu_model"] = t.cpu_model;
    if (!t.vendor.empty())
        tn["vendor"] = t.vendor;
    if (t.family)
        tn["family"] = *t.family;
    if (t.model_number)
        tn["model"] = *t.model_number;
    if (t.stepping)
        tn["stepping"] = *t.stepping;
    YAML::Node isa = flow_seq();
    for (const auto& i : t.isa)
        isa.push_back(i);
    tn["isa"] = isa;
    tn["packages"] = t.packages;
    tn["cores"] = t.cores;
    tn["hw_threads"] = t.hw_threads;
    tn["numa_nodes"] = t.numa_nodes;
    for (const auto& c : t.caches)
        tn["caches"].push_back(cache_to_yaml(c));
    if (!t.tlb.empty())
        tn["tlb"] = tlb_to_yaml(t.tlb);
    if (!t.huge_pages.empty())
        tn["huge_pages"] = t.huge_pages;
    return tn;
}

// clock_ghz, tsc_ghz and clock_drift, after the topology.
void write_clock(const Machine& m, YAML::Node& root) {
    if (m.clock_ghz)
        root["clock_ghz"] = summary_to_yaml(*m.clock_ghz);
    if (m.tsc_ghz)
        root["tsc_ghz"] = *m.tsc_ghz;
    root["clock_drift"] = m.clock_drift;
}

YAML::Node ceiling_to_yaml(const ComputeCeiling& c) {
    YAML::Node cn;
    cn["precision"] = c.precision;
    cn["isa"] = c.isa;
    cn["op"] = c.op;
    cn["threads"] = c.threads;
    cn["gflops"] = summary_to_yaml(c.gflops);
    if (c.ghz)
        cn["ghz"] = *c.ghz;
    cn["source"] = to_string(c.source);
    return cn;
}

YAML::Node compute_to_yaml(const Machine& m) {
    YAML::Node compute;
    for (const auto& [p, v] : m.peak_gflops)
        compute["peak_gflops"][p] = v;
    for (const auto& [p, v] : m.effective_gflops)
        compute["effective_gflops"][p] = v;
    for (const auto& [name, value] : exponent_fields(m))
        if (value)
            compute[name] = *value;
    for (const auto& c : m.ceilings)
        compute["ceilings"].push_back(ceiling_to_yaml(c));
    return compute;
}

YAML::Node roof_choice_to_yaml(const RoofChoice& rc) {
    YAML::Node n;
    n["method"] = rc.method;
    n["epochs"] = rc.epochs;
    n["best"] = rc.best;
    n["tolerance"] = rc.tolerance;
    n["settled"] = rc.settled;
    if (rc.visits > 0) {
        n["visits"] = rc.visits;
        n["window_seconds"] = rc.window_seconds;
    }
    if (rc.visit_gbs)
        n["visit_gbs"] = summary_to_yaml(*rc.visit_gbs);
    if (rc.thread_scaling)
        n["thread_scaling"] = *rc.thread_scaling;
    return n;
}

YAML::Node curve_to_yaml(const BandwidthCurve& c) {
    YAML::Node cn;
    cn["x"] = c.x;
    for (const auto& [x, y] : c.points) {
        YAML::Node p = flow_seq();
        p.push_back(x);
        p.push_back(y);
        cn["points"].push_back(p);
    }
    if (c.affine) {
        cn["affine"]["a"] = c.affine->first;
        cn["affine"]["b"] = c.affine->second;
    }
    return cn;
}

YAML::Node level_to_yaml(const Level& l) {
    YAML::Node ln;
    ln["name"] = l.name;
    if (l.bandwidth_gbs)
        ln["bandwidth_gbs"] = *l.bandwidth_gbs;
    if (!l.bandwidth_kernel.empty())
        ln["bandwidth_kernel"] = l.bandwidth_kernel;
    ln["source"] = to_string(l.source);
    if (l.bandwidth)
        ln["bandwidth"] = summary_to_yaml(*l.bandwidth);
    if (l.roof_choice)
        ln["roof_choice"] = roof_choice_to_yaml(*l.roof_choice);
    if (l.effective_bandwidth_gbs)
        ln["effective_bandwidth_gbs"] = *l.effective_bandwidth_gbs;
    if (l.effective_bandwidth_half_width_gbs)
        ln["effective_bandwidth_half_width_gbs"] = *l.effective_bandwidth_half_width_gbs;
    if (l.size_bytes)
        ln["size_bytes"] = *l.size_bytes;
    if (l.curve)
        ln["curve"] = curve_to_yaml(*l.curve);
    for (const auto& p : l.measurements)
        ln["measurements"].push_back(point_to_yaml(p));
    return ln;
}

YAML::Node overhead_to_yaml(const ThreadOverhead& o) {
    YAML::Node on;
    on["method"] = o.method;
    on["threads"] = o.threads;
    on["seconds"] = summary_to_yaml(o.seconds);
    return on;
}

YAML::Node mpi_to_yaml(const MpiFigures& mpi) {
    YAML::Node mn;
    mn["source"] = to_string(mpi.source);
    mn["ranks"] = mpi.ranks;
    if (!mpi.placement.empty())
        mn["placement"] = mpi.placement;
    if (!mpi.library.empty())
        mn["library"] = mpi.library;
    if (mpi.latency_s)
        mn["latency_s"] = summary_to_yaml(*mpi.latency_s);
    if (mpi.bandwidth_gbs)
        mn["bandwidth_gbs"] = summary_to_yaml(*mpi.bandwidth_gbs);
    if (mpi.alpha_s)
        mn["alpha_s"] = *mpi.alpha_s;
    if (mpi.beta_gbs)
        mn["beta_gbs"] = *mpi.beta_gbs;
    for (const auto& p : mpi.points) {
        YAML::Node pn;
        pn["bytes"] = p.bytes;
        pn["seconds"] = summary_to_yaml(p.seconds);
        mn["points"].push_back(pn);
    }
    return mn;
}

YAML::Node validity_to_yaml(const ValidityLimits& v) {
    YAML::Node n;
    n["l1_short_per_mem"] = v.l1_short_per_mem;
    n["l1_long_per_traffic"] = v.l1_long_per_traffic;
    n["l1_long_cache_bound"] = v.l1_long_cache_bound;
    return n;
}

} // namespace

// The file top to bottom, one section at a time; an absent optional section writes no key.
std::string machine_to_yaml(const Machine& m) {
    YAML::Node root;
    write_file_header(m, root);
    if (m.topology)
        root["topology"] = topology_to_yaml(*m.topology);
    write_clock(m, root);
    root["compute"] = compute_to_yaml(m);
    for (const auto& l : m.levels)
        root["levels"].push_back(level_to_yaml(l));
    for (const auto& p : m.sweep)
        root["sweep"].push_back(point_to_yaml(p));
    for (const auto& o : m.thread_overhead)
        root["thread_overhead"].push_back(overhead_to_yaml(o));
    if (m.mpi)
        root["mpi"] = mpi_to_yaml(*m.mpi);
    if (!m.stream_capacity.empty())
        root["stream_capacity"] = stream_capacity_to_yaml(m.stream_capacity);
    root["validity"] = validity_to_yaml(m.validity);
    for (const auto& n : m.notes)
        root["notes"].push_back(n);
    YAML::Emitter out;
    out.SetDoublePrecision(6);
    out << root;
    return std::string(out.c_str()) + "\n";
}

void save_machine(const std::string& path, const Machine& m) {
    write_file_atomic(path, machine_to_yaml(m));
}

} // namespace roofcast::core
