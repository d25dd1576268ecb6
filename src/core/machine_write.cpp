// Writing a machine file (docs/machine-file.md): one tree of the machine, written as the YAML form
// machine_from_yaml reads back and as the JSON form machine_from_json reads back, so that a field is
// written in one place for both.
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

using Tree = nlohmann::ordered_json;

Tree point_tree(const BandwidthPoint& p) {
    Tree n;
    n["kernel"] = p.kernel;
    n["threads"] = p.threads;
    n["working_set_bytes"] = p.working_set_bytes;
    n["gbs"] = summary_tree(p.gbs);
    n["moved_per_requested"] = p.moved_per_requested;
    return n;
}

// format_version, name and where the file came from, at the top of the file.
void write_file_header(const Machine& m, Tree& root) {
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

Tree cache_tree(const CacheInfo& c) {
    Tree cn;
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
        cn["effective_size_range_bytes"] = {c.effective_size_range_bytes->first,
                                            c.effective_size_range_bytes->second};
    }
    if (!c.note.empty())
        cn["note"] = c.note;
    return cn;
}

Tree topology_tree(const Topology& t) {
    Tree tn;
    tn["cpu_model"] = t.cpu_model;
    if (!t.vendor.empty())
        tn["vendor"] = t.vendor;
    if (t.family)
        tn["family"] = *t.family;
    if (t.model_number)
        tn["model"] = *t.model_number;
    if (t.stepping)
        tn["stepping"] = *t.stepping;
    Tree isa = Tree::array();
    for (const auto& i : t.isa)
        isa.push_back(i);
    tn["isa"] = isa;
    tn["packages"] = t.packages;
    tn["cores"] = t.cores;
    tn["hw_threads"] = t.hw_threads;
    tn["numa_nodes"] = t.numa_nodes;
    for (const auto& c : t.caches)
        tn["caches"].push_back(cache_tree(c));
    if (!t.tlb.empty())
        tn["tlb"] = tlb_tree(t.tlb);
    if (!t.huge_pages.empty())
        tn["huge_pages"] = t.huge_pages;
    return tn;
}

// clock_ghz, tsc_ghz and clock_drift, after the topology.
void write_clock(const Machine& m, Tree& root) {
    if (m.clock_ghz)
        root["clock_ghz"] = summary_tree(*m.clock_ghz);
    if (m.tsc_ghz)
        root["tsc_ghz"] = *m.tsc_ghz;
    root["clock_drift"] = m.clock_drift;
}

Tree ceiling_tree(const ComputeCeiling& c) {
    Tree cn;
    cn["precision"] = c.precision;
    cn["isa"] = c.isa;
    cn["op"] = c.op;
    cn["threads"] = c.threads;
    cn["gflops"] = summary_tree(c.gflops);
    if (c.ghz)
        cn["ghz"] = *c.ghz;
    cn["source"] = to_string(c.source);
    return cn;
}

Tree compute_tree(const Machine& m) {
    Tree compute;
    for (const auto& [p, v] : m.peak_gflops)
        compute["peak_gflops"][p] = v;
    for (const auto& [p, v] : m.effective_gflops)
        compute["effective_gflops"][p] = v;
    for (const auto& [name, value] : exponent_fields(m))
        if (value)
            compute[name] = *value;
    for (const auto& c : m.ceilings)
        compute["ceilings"].push_back(ceiling_tree(c));
    return compute;
}

Tree roof_choice_tree(const RoofChoice& rc) {
    Tree n;
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
        n["visit_gbs"] = summary_tree(*rc.visit_gbs);
    if (rc.thread_scaling)
        n["thread_scaling"] = *rc.thread_scaling;
    return n;
}

Tree curve_tree(const BandwidthCurve& c) {
    Tree cn;
    cn["x"] = c.x;
    for (const auto& [x, y] : c.points) {
        Tree p = Tree::array();
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

Tree level_tree(const Level& l) {
    Tree ln;
    ln["name"] = l.name;
    if (l.bandwidth_gbs)
        ln["bandwidth_gbs"] = *l.bandwidth_gbs;
    if (!l.bandwidth_kernel.empty())
        ln["bandwidth_kernel"] = l.bandwidth_kernel;
    ln["source"] = to_string(l.source);
    if (l.bandwidth)
        ln["bandwidth"] = summary_tree(*l.bandwidth);
    if (l.roof_choice)
        ln["roof_choice"] = roof_choice_tree(*l.roof_choice);
    if (l.effective_bandwidth_gbs)
        ln["effective_bandwidth_gbs"] = *l.effective_bandwidth_gbs;
    if (l.effective_bandwidth_half_width_gbs)
        ln["effective_bandwidth_half_width_gbs"] = *l.effective_bandwidth_half_width_gbs;
    if (l.size_bytes)
        ln["size_bytes"] = *l.size_bytes;
    if (l.curve)
        ln["curve"] = curve_tree(*l.curve);
    for (const auto& p : l.measurements)
        ln["measurements"].push_back(point_tree(p));
    return ln;
}

Tree overhead_tree(const ThreadOverhead& o) {
    Tree on;
    on["method"] = o.method;
    on["threads"] = o.threads;
    on["seconds"] = summary_tree(o.seconds);
    return on;
}

Tree mpi_tree(const MpiFigures& mpi) {
    Tree mn;
    mn["source"] = to_string(mpi.source);
    mn["ranks"] = mpi.ranks;
    if (!mpi.placement.empty())
        mn["placement"] = mpi.placement;
    if (!mpi.library.empty())
        mn["library"] = mpi.library;
    if (mpi.latency_s)
        mn["latency_s"] = summary_tree(*mpi.latency_s);
    if (mpi.bandwidth_gbs)
        mn["bandwidth_gbs"] = summary_tree(*mpi.bandwidth_gbs);
    if (mpi.alpha_s)
        mn["alpha_s"] = *mpi.alpha_s;
    if (mpi.beta_gbs)
        mn["beta_gbs"] = *mpi.beta_gbs;
    for (const auto& p : mpi.points) {
        Tree pn;
        pn["bytes"] = p.bytes;
        pn["seconds"] = summary_tree(p.seconds);
        mn["points"].push_back(pn);
    }
    return mn;
}

Tree validity_tree(const ValidityLimits& v) {
    Tree n;
    n["l1_short_per_mem"] = v.l1_short_per_mem;
    n["l1_long_per_traffic"] = v.l1_long_per_traffic;
    n["l1_long_cache_bound"] = v.l1_long_cache_bound;
    return n;
}

// The file top to bottom, one section at a time; an absent optional section writes no key.
Tree machine_tree(const Machine& m) {
    Tree root;
    write_file_header(m, root);
    if (m.topology)
        root["topology"] = topology_tree(*m.topology);
    write_clock(m, root);
    root["compute"] = compute_tree(m);
    for (const auto& l : m.levels)
        root["levels"].push_back(level_tree(l));
    for (const auto& p : m.sweep)
        root["sweep"].push_back(point_tree(p));
    for (const auto& o : m.thread_overhead)
        root["thread_overhead"].push_back(overhead_tree(o));
    if (m.mpi)
        root["mpi"] = mpi_tree(*m.mpi);
    if (!m.stream_capacity.empty())
        root["stream_capacity"] = stream_capacity_tree(m.stream_capacity);
    root["validity"] = validity_tree(m.validity);
    for (const auto& n : m.notes)
        root["notes"].push_back(n);
    return root;
}

// The YAML form: maps and lists in the tree's order, numbers with their C++ types; written inline (flow
// style) are the summaries (the maps with a median), the TLB entries (the maps with a page size) and the
// lists of numbers or names other than the notes.
YAML::Node yaml_of(const Tree& t, std::string_view key) {
    switch (t.type()) {
    case Tree::value_t::object: {
        YAML::Node n(YAML::NodeType::Map);
        for (const auto& [k, v] : t.items())
            n[k] = yaml_of(v, k);
        if (t.contains("median") || t.contains("page_bytes"))
            n.SetStyle(YAML::EmitterStyle::Flow);
        return n;
    }
    case Tree::value_t::array: {
        YAML::Node n(YAML::NodeType::Sequence);
        bool scalars = true;
        for (const auto& e : t) {
            n.push_back(yaml_of(e, key));
            scalars = scalars && e.is_primitive();
        }
        if (scalars && key != "notes")
            n.SetStyle(YAML::EmitterStyle::Flow);
        return n;
    }
    case Tree::value_t::string:
        return YAML::Node(t.get<std::string>());
    case Tree::value_t::boolean:
        return YAML::Node(t.get<bool>());
    case Tree::value_t::number_integer:
        return YAML::Node(t.get<std::int64_t>());
    case Tree::value_t::number_unsigned:
        return YAML::Node(t.get<std::uint64_t>());
    case Tree::value_t::number_float:
        return YAML::Node(t.get<double>());
    default:
        return YAML::Node();
    }
}

// The JSON form (embedded in results.json, printed by `roofcast machine --json`): the same keys, every number
// a JSON float, as the form always had (it was once the YAML text read back, which read every number as a
// double); numbers keep their full precision.
nlohmann::json json_of(const Tree& t) {
    switch (t.type()) {
    case Tree::value_t::object: {
        nlohmann::json j = nlohmann::json::object();
        for (const auto& [k, v] : t.items())
            j[k] = json_of(v);
        return j;
    }
    case Tree::value_t::array: {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& e : t)
            j.push_back(json_of(e));
        return j;
    }
    case Tree::value_t::number_integer:
    case Tree::value_t::number_unsigned:
    case Tree::value_t::number_float:
        return t.get<double>();
    case Tree::value_t::string:
        return t.get<std::string>();
    case Tree::value_t::boolean:
        return t.get<bool>();
    default:
        return nullptr;
    }
}

} // namespace

std::string machine_to_yaml(const Machine& m) {
    YAML::Emitter out;
    out.SetDoublePrecision(6);
    out << yaml_of(machine_tree(m), "");
    return std::string(out.c_str()) + "\n";
}

nlohmann::json machine_to_json(const Machine& m) {
    return json_of(machine_tree(m));
}

void save_machine(const std::string& path, const Machine& m) {
    write_file_atomic(path, machine_to_yaml(m));
}

} // namespace roofcast::core
