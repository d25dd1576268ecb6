#include "measure/machine_run.hpp"

#include "core/error.hpp"
#include "core/machine_noise.hpp"
#include "core/timestamp.hpp"
#include "core/units.hpp"
#include "measure/affinity.hpp"
#include "measure/compute.hpp"
#include "measure/machine_phases.hpp"
#include "measure/mpi.hpp"
#include "measure/overhead.hpp"
#include "measure/stream.hpp"
#include "measure/topology.hpp"
#include "measure/working_sets.hpp"
#include "roofcast/version.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>
#include <utility>

namespace roofcast::measure {

namespace {

using machine_phases::k_mib;
using machine_phases::k_roof_best;
using machine_phases::k_roof_tolerance;
using machine_phases::l1_bytes_per_thread;
using machine_phases::MachineRun;
using machine_phases::Plan;
using machine_phases::preferred_kernel;

constexpr std::uint64_t k_min_max_size = 64 * 1024;

std::vector<std::string> default_kernels(bool quick) {
    if (quick)
        return {"load", "copy", "triad"};
    std::vector<std::string> all;
    for (const auto& d : stream_kernels())
        all.emplace_back(d.name);
    return all;
}

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return "this machine";
    return buf;
}

// Harness of the per-level measurements (and of single bandwidth points).
HarnessOptions level_harness_for(bool quick) {
    HarnessOptions h;
    h.epochs = quick ? 5 : 9;
    h.min_epoch_seconds = quick ? 0.005 : 0.02;
    // Adaptive settling: up to three times the epochs, and at most as long again as the epochs
    // themselves would take in extra epochs (quick: 15 epochs, 0.1 s), so that a quiet level costs
    // nothing and a noisy one at most triples its time (docs/design.md).
    h.settle_best = k_roof_best;
    h.settle_tolerance = k_roof_tolerance;
    h.max_epochs = 3 * h.epochs;
    h.max_settle_seconds = 4.0 * h.min_epoch_seconds * h.epochs;
    return h;
}

Plan make_plan(const MachineOptions& opt, const core::Topology& topo) {
    Plan p;
    p.threads = opt.threads;
    if (p.threads.empty())
        p.threads = {1, topo.cores};
    std::sort(p.threads.begin(), p.threads.end());
    p.threads.erase(std::unique(p.threads.begin(), p.threads.end()), p.threads.end());
    const auto kernels = opt.kernels.empty() ? default_kernels(opt.quick) : opt.kernels;
    for (const auto& d : stream_kernels()) // report order, no duplicates
        if (std::find(kernels.begin(), kernels.end(), d.name) != kernels.end())
            p.level_kernels.emplace_back(d.name);
    p.sweep_kernels = p.level_kernels;
    p.sweep_factor = opt.quick ? 1.5 : 1.2;
    const std::uint64_t avail = available_memory_bytes().value_or(std::uint64_t{4} << 30);
    p.cap = opt.max_size.value_or(std::min<std::uint64_t>(avail / 4, (opt.quick ? 512 : 1536) * k_mib));
    p.sweep_harness.epochs = 3;
    p.sweep_harness.min_epoch_seconds = opt.quick ? 0.002 : 0.005;
    p.level_harness = level_harness_for(opt.quick);
    p.roof_kernel = preferred_kernel(p.level_kernels);
    // A visit: two epochs per level, as long as the level measurement's; at most every 0.25 s (quick) or
    // 1 s, and at most an eighth of the time (docs/design.md, "roofs over the run's window").
    p.visit_harness.epochs = 2;
    p.visit_harness.min_epoch_seconds = p.level_harness.min_epoch_seconds;
    p.visit_options.interval_seconds = opt.quick ? 0.25 : 1.0;
    p.visit_options.max_share = 0.125;
    p.overhead_harness.epochs = opt.quick ? 5 : 9;
    p.overhead_harness.min_epoch_seconds = opt.quick ? 0.001 : 0.004;
    return p;
}

// The machine file's provenance, the topology and the plan.
void start_run(MachineRun& run) {
    core::Machine& m = run.m;
    m.source = core::Provenance::measured;
    m.created = core::utc_now_iso8601();
    m.roofcast_version = k_version;
    m.measurement_revision = k_measurement_revision;
    run.topo = detect_topology();
    m.name = fmt::format("{} ({})", host_name(), run.topo.cpu_model);
    run.plan = make_plan(run.opt, run.topo);
}

} // namespace

std::string machine_phases::preferred_kernel(const std::vector<std::string>& kernels) {
    for (const auto& pref : core::roof_kernel_preference())
        if (std::find(kernels.begin(), kernels.end(), pref) != kernels.end())
            return std::string(pref);
    return {};
}

std::uint64_t machine_phases::l1_bytes_per_thread(const core::Topology& topo) {
    return topo.caches.empty() ? 32 * 1024 : topo.caches.front().size_bytes;
}

// Compute ceilings and clock (25 % of the progress bar), visited between ceilings.
void machine_phases::measure_ceilings(MachineRun& run) {
    run.progress(0.65, "compute ceilings");
    ComputeOptions co;
    co.isas = run.opt.isas;
    co.threads = run.plan.threads;
    co.quick = run.opt.quick;
    co.progress = [&run](const std::string& what) { run.progress(0.75, what); };
    co.between = [&run] { run.maybe_visit(); };
    const ComputeResult cr = measure_compute(co);
    core::Machine& m = run.m;
    m.ceilings = cr.ceilings;
    m.clock_ghz = cr.clock_ghz;
    m.tsc_ghz = cr.tsc_ghz;
    m.clock_drift = cr.clock_drift;
    m.peak_gflops = cr.peak_gflops;
    m.notes.insert(m.notes.end(), cr.notes.begin(), cr.notes.end());
}

// Thread overhead, 1 ... 4x cores (10 %).
void machine_phases::measure_overhead(MachineRun& run) {
    run.maybe_visit();
    run.progress(0.9, "thread overhead");
    run.m.thread_overhead = measure_thread_overhead(4 * run.topo.cores, run.plan.overhead_harness);
}

// MPI latency and bandwidth between two ranks (a few seconds, mostly mpirun's start-up).
void machine_phases::measure_mpi_pair(MachineRun& run) {
    if (!run.opt.mpi) {
        run.m.notes.push_back("MPI: not measured (switched off for this run)");
        return;
    }
    run.progress(0.95, "MPI ping-pong");
    MpiOptions mo;
    mo.quick = run.opt.quick;
    MpiMeasurement mpi = measure_mpi(mo);
    run.m.mpi = std::move(mpi.figures);
    run.m.notes.push_back(mpi.note);
}

void validate_machine_options(const MachineOptions& opt) {
    for (const auto& k : opt.kernels)
        stream_kernel(k, "kernels");
    for (int t : opt.threads)
        if (t < 1)
            throw core::InputError("", "threads", fmt::format("expected thread counts >= 1, got {}", t));
    if (opt.max_size) {
        const auto avail = available_memory_bytes();
        if (*opt.max_size < k_min_max_size)
            throw core::InputError("", "max_size",
                                   fmt::format("expected at least {}, got {} bytes",
                                               core::format_size(static_cast<double>(k_min_max_size)),
                                               *opt.max_size));
        if (avail && *opt.max_size > *avail / 2)
            throw core::InputError("", "max_size",
                                   fmt::format("expected at most half of the available memory ({}), got {}",
                                               core::format_size(static_cast<double>(*avail / 2)),
                                               core::format_size(static_cast<double>(*opt.max_size))));
    }
    for (const auto& isa : opt.isas)
        if (std::find(known_isas().begin(), known_isas().end(), isa) == known_isas().end())
            throw core::InputError(
                "", "isa",
                fmt::format("unknown ISA '{}', expected one of {}", isa, fmt::join(known_isas(), ", ")));
}

core::Machine measure_machine(const MachineOptions& opt) {
    using namespace machine_phases;
    validate_machine_options(opt);
    // The measurements pin threads; the process and OpenMP's thread pool leave this call with the affinity
    // they came with, so work run afterwards in the same process (the kernel suite of `roofcast run`) can
    // use every core again instead of sharing the CPU the last measurement pinned.
    const AffinityGuard affinity;
    MachineRun run(opt);
    start_run(run);
    plan_sweep(run);
    for (std::size_t ti = 0; ti < run.plan.threads.size(); ++ti)
        measure_thread_count(run, ti);
    measure_ceilings(run);
    measure_overhead(run);
    recheck_last_level(run);
    close_visits(run);
    choose_roofs(run);
    attach_level_curves(run);
    measure_mpi_pair(run);
    run.m.topology = run.topo;
    core::flag_machine_noise(run.m);
    run.progress(1.0, "done");
    affinity.restore_openmp_team(omp_get_max_threads());
    return std::move(run.m);
}

core::BandwidthPoint measure_bandwidth_point(const std::string& kernel, int threads,
                                             std::uint64_t working_set_bytes, bool quick) {
    const StreamDescriptor& d = stream_kernel(kernel, "KERNEL");
    if (threads < 1)
        throw core::InputError("", "threads", fmt::format("expected a thread count >= 1, got {}", threads));
    constexpr std::uint64_t k_min_point = 4096;
    const auto avail = available_memory_bytes();
    if (working_set_bytes < k_min_point || (avail && working_set_bytes > *avail / 2))
        throw core::InputError(
            "", "SIZE",
            fmt::format("expected a working set from {} to half of the available memory{}, got {}",
                        core::format_size(static_cast<double>(k_min_point)),
                        avail ? " (" + core::format_size(static_cast<double>(*avail / 2)) + ")" : "",
                        core::format_size(static_cast<double>(working_set_bytes))));
    const AffinityGuard affinity;
    const core::Topology topo = detect_topology();
    const std::uint64_t l1_per_thread = l1_bytes_per_thread(topo);
    const StreamBuffers buffers(threads, working_set_bytes);
    core::BandwidthPoint p =
        measure_stream(d, working_set_bytes, l1_per_thread, level_harness_for(quick), buffers);
    affinity.restore_openmp_team(omp_get_max_threads());
    core::flag_row_alone(p.gbs);
    return p;
}

} // namespace roofcast::measure
