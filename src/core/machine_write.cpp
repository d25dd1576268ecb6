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

} // namespace

std::string machine_to_yaml(const Machine& m) {
    YAML::Node root;
    root["format_version"] = m.format_version;
    root["name"] = m.name;
    if (!m.created.empty())
        root["created"] = m.created;
    if (!m.roofcast_version.empty())
        root["roofcast_version"] = m.roofcast_version;
    if (m.measurement_revision)
        root["measurement_revision"] = *m.measurement_revision;
    root["source"] = to_string(m.source);
    if (m.topology) {
        const Topology& t = *m.topology;
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
        for (const auto& c : t.caches) {
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
            tn["caches"].push_back(cn);
        }
        if (!t.tlb.empty())
            tn["tlb"] = tlb_to_yaml(t.tlb);
        if (!t.huge_pages.empty())
            tn["huge_pages"] = t.huge_pages;
        root["topology"] = tn;
    }
    if (m.clock_ghz)
        root["clock_ghz"] = summary_to_yaml(*m.clock_ghz);
    if (m.tsc_ghz)
        root["tsc_ghz"] = *m.tsc_ghz;
    root["clock_drift"] = m.clock_drift;
    YAML::Node compute;
    for (const auto& [p, v] : m.peak_gflops)
        compute["peak_gflops"][p] = v;
    for (const auto& [p, v] : m.effective_gflops)
        compute["effective_gflops"][p] = v;
    for (const auto& [name, value] : exponent_fields(m))
        if (value)
            compute[name] = *value;
    for (const auto& c : m.ceilings) {
        YAML::Node cn;
        cn["precision"] = c.precision;
        cn["isa"] = c.isa;
        cn["op"] = c.op;
        cn["threads"] = c.threads;
        cn["gflops"] = summary_to_yaml(c.gflops);
        if (c.ghz)
            cn["ghz"] = *c.ghz;
        cn["source"] = to_string(c.source);
        compute["ceilings"].push_back(cn);
    }
    root["compute"] = compute;
    for (const auto& l : m.levels) {
        YAML::Node ln;
        ln["name"] = l.name;
        if (l.bandwidth_gbs)
            ln["bandwidth_gbs"] = *l.bandwidth_gbs;
        if (!l.bandwidth_kernel.empty())
            ln["bandwidth_kernel"] = l.bandwidth_kernel;
        ln["source"] = to_string(l.source);
        if (l.bandwidth)
            ln["bandwidth"] = summary_to_yaml(*l.bandwidth);
        if (l.roof_choice) {
            ln["roof_choice"]["method"] = l.roof_choice->method;
            ln["roof_choice"]["epochs"] = l.roof_choice->epochs;
            ln["roof_choice"]["best"] = l.roof_choice->best;
            ln["roof_choice"]["tolerance"] = l.roof_choice->tolerance;
            ln["roof_choice"]["settled"] = l.roof_choice->settled;
            if (l.roof_choice->visits > 0) {
                ln["roof_choice"]["visits"] = l.roof_choice->visits;
                ln["roof_choice"]["window_seconds"] = l.roof_choice->window_seconds;
            }
            if (l.roof_choice->visit_gbs)
                ln["roof_choice"]["visit_gbs"] = summary_to_yaml(*l.roof_choice->visit_gbs);
            if (l.roof_choice->thread_scaling)
                ln["roof_choice"]["thread_scaling"] = *l.roof_choice->thread_scaling;
        }
        if (l.effective_bandwidth_gbs)
            ln["effective_bandwidth_gbs"] = *l.effective_bandwidth_gbs;
        if (l.effective_bandwidth_half_width_gbs)
            ln["effective_bandwidth_half_width_gbs"] = *l.effective_bandwidth_half_width_gbs;
        if (l.size_bytes)
            ln["size_bytes"] = *l.size_bytes;
        if (l.curve) {
            YAML::Node cn;
            cn["x"] = l.curve->x;
            for (const auto& [x, y] : l.curve->points) {
                YAML::Node p = flow_seq();
                p.push_back(x);
                p.push_back(y);
                cn["points"].push_back(p);
            }
            if (l.curve->affine) {
                cn["affine"]["a"] = l.curve->affine->first;
                cn["affine"]["b"] = l.curve->affine->second;
            }
            ln["curve"] = cn;
        }
        for (const auto& p : l.measurements)
            ln["measurements"].push_back(point_to_yaml(p));
        root["levels"].push_back(ln);
    }
    for (const auto& p : m.sweep)
        root["sweep"].push_back(point_to_yaml(p));
    for (const auto& o : m.thread_overhead) {
        YAML::Node on;
        on["method"] = o.method;
        on["threads"] = o.threads;
        on["seconds"] = summary_to_yaml(o.seconds);
        root["thread_overhead"].push_back(on);
    }
    if (m.mpi) {
        YAML::Node mn;
        mn["source"] = to_string(m.mpi->source);
        mn["ranks"] = m.mpi->ranks;
        if (!m.mpi->placement.empty())
            mn["placement"] = m.mpi->placement;
        if (!m.mpi->library.empty())
            mn["library"] = m.mpi->library;
        if (m.mpi->latency_s)
            mn["latency_s"] = summary_to_yaml(*m.mpi->latency_s);
        if (m.mpi->bandwidth_gbs)
            mn["bandwidth_gbs"] = summary_to_yaml(*m.mpi->bandwidth_gbs);
        if (m.mpi->alpha_s)
            mn["alpha_s"] = *m.mpi->alpha_s;
        if (m.mpi->beta_gbs)
            mn["beta_gbs"] = *m.mpi->beta_gbs;
        for (const auto& p : m.mpi->points) {
            YAML::Node pn;
            pn["bytes"] = p.bytes;
            pn["seconds"] = summary_to_yaml(p.seconds);
            mn["points"].push_back(pn);
        }
        root["mpi"] = mn;
    }
    if (!m.stream_capacity.empty())
        root["stream_capacity"] = stream_capacity_to_yaml(m.stream_capacity);
    root["validity"]["l1_short_per_mem"] = m.validity.l1_short_per_mem;
    root["validity"]["l1_long_per_traffic"] = m.validity.l1_long_per_traffic;
    root["validity"]["l1_long_cache_bound"] = m.validity.l1_long_cache_bound;
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
