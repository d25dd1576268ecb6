#include "report/machine_table.hpp"

#include "core/stats.hpp"
#include "core/units.hpp"
#include "report/noise_text.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report {

namespace {

std::string spread_cell(const core::Summary& s) {
    if (!s.spread)
        return "-";
    // Beyond 999 % the exact figure says nothing more and would break the column.
    return *s.spread >= 9.995 ? std::string(">999%") : fmt::format("{:.1f}%", 100 * *s.spread);
}

// The interquartile spread of a row's epochs, the statistic its NOISY flag is judged by
// (core/machine_noise.hpp); the range spread for a figure without samples.
std::string iqr_text(const core::Summary& s) {
    const auto iqr = core::interquartile_spread_of(s);
    if (!iqr)
        return spread_cell(s);
    return *iqr >= 9.995 ? std::string(">999%") : fmt::format("{:.1f}%", 100 * *iqr);
}

std::string flag(const core::Summary& s) {
    return s.noisy ? "NOISY" : "";
}

void topology_section(std::string& out, const core::Topology& t) {
    out += fmt::format("Topology: {}\n", t.cpu_model);
    out += fmt::format("  {} package(s), {} cores, {} hardware threads, {} NUMA node(s); vector ISAs: {}\n",
                       t.packages, t.cores, t.hw_threads, t.numa_nodes, fmt::join(t.isa, " "));
    out += fmt::format("  {:<6}{:>12}{:>7}{:>7}{:>11}{:>11}{:>14}\n", "cache", "size", "line", "assoc",
                       "shared by", "instances", "effective");
    for (const auto& c : t.caches) {
        out += fmt::format(
            "  {:<6}{:>12}{:>7}{:>7}{:>11}{:>11}{:>14}\n", c.name,
            core::format_size(static_cast<double>(c.size_bytes)), c.line_bytes,
            c.associativity ? std::to_string(*c.associativity) : std::string("?"),
            fmt::format("{} core{}", c.shared_by_cores, c.shared_by_cores == 1 ? "" : "s"), c.instances,
            c.effective_size_bytes ? core::format_size(static_cast<double>(*c.effective_size_bytes))
                                   : std::string("as reported"));
        if (!c.note.empty())
            out += fmt::format("        {}: {}\n", c.name, c.note);
    }
    if (!t.tlb.empty()) {
        std::vector<std::string> parts;
        for (const auto& e : t.tlb)
            parts.push_back(fmt::format(
                "{} {} x {} ({})", e.level, e.entries, core::format_size(static_cast<double>(e.page_bytes)),
                e.associativity ? fmt::format("{}-way", *e.associativity) : std::string("fully or unknown")));
        out += fmt::format("  data TLB: {}\n", fmt::join(parts, ", "));
    }
    const auto reach = t.tlb_reach();
    if (reach || !t.huge_pages.empty())
        out += fmt::format("  TLB reach with 4 KiB pages: {}; transparent huge pages: {}\n",
                           reach ? core::format_size(static_cast<double>(*reach)) : std::string("unknown"),
                           t.huge_pages.empty() ? std::string("unknown") : t.huge_pages);
}

void compute_section(std::string& out, const core::Machine& m) {
    if (m.ceilings.empty())
        return;
    const int cores = m.topology ? m.topology->cores : 1;
    out += "\nCompute ceilings (GFLOP/s)\n";
    out += fmt::format("  {:<7}{:<7}{:<7}{:>4}{:>10}{:>21}{:>4}{:>8}{:>7}{:>9}\n", "prec", "isa", "op", "thr",
                       "median", "min..max", "n", "iqr", "GHz", "of peak");
    for (const auto& c : m.ceilings) {
        std::string ratio = "-";
        if (auto it = m.peak_gflops.find(c.precision); it != m.peak_gflops.end() && it->second > 0)
            ratio = fmt::format("{:.1f}%", 100 * c.gflops.median / (it->second * c.threads / cores));
        out += fmt::format("  {:<7}{:<7}{:<7}{:>4}{:>10.1f}{:>21}{:>4}{:>8}{:>7}{:>9} {}\n", c.precision,
                           c.isa, c.op, c.threads, c.gflops.median,
                           fmt::format("{:.1f}..{:.1f}", c.gflops.min, c.gflops.max), c.gflops.n,
                           iqr_text(c.gflops), c.ghz ? fmt::format("{:.2f}", *c.ghz) : std::string("-"),
                           ratio, flag(c.gflops));
    }
    for (const auto& [prec, peak] : m.peak_gflops)
        out += fmt::format("  theoretical peak ({}, {} cores at the measured clock): {:.1f} GFLOP/s\n", prec,
                           cores, peak);
}

void bandwidth_section(std::string& out, const core::Machine& m) {
    if (m.levels.empty())
        return;
    out += "\nBandwidth per level (decimal GB/s of requested bytes; moved = requested x write-allocate "
           "factor)\n";
    out += fmt::format("  {:<6}{:<10}{:>4}{:>12}{:>10}{:>19}{:>4}{:>8}{:>8}{:>10}\n", "level", "kernel",
                       "thr", "working set", "median", "min..max", "n", "iqr", "moved/r", "moved");
    for (const auto& l : m.levels) {
        for (const auto& p : l.measurements)
            out += fmt::format("  {:<6}{:<10}{:>4}{:>12}{:>10.1f}{:>19}{:>4}{:>8}{:>8.2f}{:>10.1f} {}\n",
                               l.name, p.kernel, p.threads,
                               core::format_size(static_cast<double>(p.working_set_bytes)), p.gbs.median,
                               fmt::format("{:.1f}..{:.1f}", p.gbs.min, p.gbs.max), p.gbs.n, iqr_text(p.gbs),
                               p.moved_per_requested, p.gbs.median * p.moved_per_requested, flag(p.gbs));
        if (l.bandwidth_gbs)
            out += fmt::format("  {:<6}roof: {:.1f} GB/s ({}, {}){}\n", l.name, *l.bandwidth_gbs,
                               l.bandwidth_kernel.empty() ? std::string("entered") : l.bandwidth_kernel,
                               core::to_string(l.source),
                               l.size_bytes
                                   ? ", usable size " + core::format_size(static_cast<double>(*l.size_bytes))
                                   : std::string());
    }
}

// One block per level and access: stream counts, median GB/s and spread, and the capacity.
void stream_capacity_section(std::string& out, const core::Machine& m) {
    if (m.stream_capacity.empty())
        return;
    out +=
        "\nStream capacity (decimal GB/s of requested bytes, all threads, by concurrent streams per thread;\n"
        "capacity: most streams keeping 90 % of the best median)\n";
    for (const auto& s : m.stream_capacity) {
        out += fmt::format("  {} {}, {} thread{}, working set {}: capacity {}\n", s.level, s.access,
                           s.threads, s.threads == 1 ? "" : "s",
                           core::format_size(static_cast<double>(s.working_set_bytes)),
                           s.capacity ? fmt::format("{} streams", *s.capacity) : std::string("-"));
        std::string streams = fmt::format("    {:<8}", "streams");
        std::string median = fmt::format("    {:<8}", "median");
        std::string spread = fmt::format("    {:<8}", "iqr");
        for (const auto& p : s.points) {
            streams += fmt::format("{:>8}", p.streams);
            median += fmt::format("{:>8.1f}", p.gbs.median);
            spread += fmt::format("{:>8}", iqr_text(p.gbs) + (p.gbs.noisy ? "*" : ""));
        }
        out += streams + "\n" + median + "\n" + spread + "\n";
    }
    out += "  (* NOISY: interquartile spread above its kind's floor, see the noise line)\n";
}

void overhead_section(std::string& out, const core::Machine& m) {
    if (m.thread_overhead.empty())
        return;
    out += "\nThread overhead (seconds per fork/join)\n";
    out += fmt::format("  {:<14}{:>4}{:>11}{:>23}{:>4}{:>8}\n", "method", "thr", "median", "min..max", "n",
                       "iqr");
    for (const auto& o : m.thread_overhead)
        out += fmt::format("  {:<14}{:>4}{:>11}{:>23}{:>4}{:>8} {}\n", o.method, o.threads,
                           core::format_seconds(o.seconds.median),
                           core::format_seconds(o.seconds.min) + ".." + core::format_seconds(o.seconds.max),
                           o.seconds.n, iqr_text(o.seconds), flag(o.seconds));
}

void mpi_section(std::string& out, const core::Machine& m) {
    if (!m.mpi)
        return;
    const core::MpiFigures& f = *m.mpi;
    out +=
        fmt::format("\nMPI point to point ({}{}{})\n", core::to_string(f.source),
                    f.placement.empty() ? "" : ", " + f.placement, f.library.empty() ? "" : ", " + f.library);
    if (!f.points.empty()) {
        out += fmt::format("  {:>10}{:>11}{:>23}{:>4}{:>8}{:>10}\n", "message", "one-way", "min..max", "n",
                           "iqr", "GB/s");
        for (const auto& p : f.points)
            out += fmt::format(
                "  {:>10}{:>11}{:>23}{:>4}{:>8}{:>10.2f} {}\n",
                core::format_size(static_cast<double>(p.bytes)), core::format_seconds(p.seconds.median),
                core::format_seconds(p.seconds.min) + ".." + core::format_seconds(p.seconds.max), p.seconds.n,
                iqr_text(p.seconds), static_cast<double>(p.bytes) / p.seconds.median / core::k_giga,
                flag(p.seconds));
    }
    if (f.latency_s)
        out += fmt::format("  latency {} (median; {}..{}){}", core::format_seconds(f.latency_s->median),
                           core::format_seconds(f.latency_s->min), core::format_seconds(f.latency_s->max),
                           f.bandwidth_gbs ? "" : "\n");
    if (f.bandwidth_gbs)
        out += fmt::format("{}bandwidth {:.2f} GB/s (median; {:.2f}..{:.2f})\n", f.latency_s ? ", " : "  ",
                           f.bandwidth_gbs->median, f.bandwidth_gbs->min, f.bandwidth_gbs->max);
    if (f.alpha_s && f.beta_gbs)
        out += fmt::format("  Hockney fit t(m) = alpha + m / beta: alpha {}, beta {:.2f} GB/s\n",
                           core::format_seconds(*f.alpha_s), *f.beta_gbs);
}

} // namespace

std::string format_machine_table(const core::Machine& m) {
    std::string out = fmt::format("Machine: {}  ({}, roofcast {}{})\n", m.name, core::to_string(m.source),
                                  m.roofcast_version, m.created.empty() ? "" : ", " + m.created);
    if (m.topology)
        topology_section(out, *m.topology);
    if (m.clock_ghz)
        out += fmt::format("Clock: {:.2f} GHz median ({:.2f}..{:.2f}, n {}, spread {}){}{}\n",
                           m.clock_ghz->median, m.clock_ghz->min, m.clock_ghz->max, m.clock_ghz->n,
                           spread_cell(*m.clock_ghz),
                           m.tsc_ghz ? fmt::format(", TSC {:.2f} GHz", *m.tsc_ghz) : std::string(),
                           m.clock_drift ? "  DRIFT: the clock moved by more than 5 % during the run" : "");
    compute_section(out, m);
    bandwidth_section(out, m);
    stream_capacity_section(out, m);
    overhead_section(out, m);
    mpi_section(out, m);
    if (const std::string noise = machine_noise_text(m); !noise.empty())
        out += "\nNoise (\"iqr\": the interquartile spread of a row's epochs)\n  " + noise + "\n";
    if (!m.notes.empty()) {
        out += "\nNotes\n";
        for (const auto& n : m.notes)
            out += "  - " + n + "\n";
    }
    return out;
}

std::string unsettled_roofs_text(const core::Machine& m) {
    std::string out;
    for (const auto& l : m.levels) {
        if (!l.roof_choice || l.roof_choice->settled || !l.bandwidth)
            continue;
        if (!out.empty())
            out += ", ";
        // The epochs the roof was chosen from: the level's own and its visits' (roofs over the run's window).
        double lo = l.bandwidth->min, hi = l.bandwidth->max;
        std::size_t n = l.bandwidth->n;
        if (const auto& v = l.roof_choice->visit_gbs) {
            lo = std::min(lo, v->min);
            hi = std::max(hi, v->max);
            n += v->n;
        }
        out += fmt::format("{} ({:.1f}-{:.1f} GB/s over {} epochs)", l.name, lo, hi, n);
    }
    return out;
}

std::string short_scaling_text(const core::Machine& m) {
    std::string out;
    for (const auto& l : m.levels) {
        if (!l.roof_choice || !l.roof_choice->thread_scaling ||
            *l.roof_choice->thread_scaling >= core::k_roof_thread_scaling_min)
            continue;
        int threads = 0;
        for (const auto& p : l.measurements)
            threads = std::max(threads, p.threads);
        out += fmt::format("{}{} ({:.0f} % of {} x one thread)", out.empty() ? "" : ", ", l.name,
                           100 * *l.roof_choice->thread_scaling, threads);
    }
    return out;
}

} // namespace roofcast::report
