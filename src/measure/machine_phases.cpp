#include "measure/machine_phases.hpp"

#include "core/units.hpp"
#include "measure/host_noise.hpp"
#include "measure/stream_capacity.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace roofcast::measure::machine_phases {

namespace {

constexpr std::uint64_t k_sweep_start = 4096;
// A private level at k threads below (1 - 0.25) x k x one thread fails the scaling check: halfway between
// perfect scaling and the loss of one of two threads (a descheduled vCPU, two threads on one core).
constexpr double k_scaling_tolerance = 0.25;

// The roof statistic of one point (median of the best k_roof_best epochs).
double roof_value(const core::BandwidthPoint& p) {
    return core::best_k_median(p.gbs.samples, k_roof_best).value_or(p.gbs.median);
}

// The sweep curves used for plateau detection and cross-checks take each point's best epoch:
// other processes sharing the machine can only lower a bandwidth, never raise it, so the best
// epoch is the least disturbed one (the reported figures stay medians with their spread).
// Sweep value at `bytes` by log-linear interpolation; nullopt outside the sweep.
std::optional<double> interpolate(const std::vector<std::pair<double, double>>& pts, double bytes) {
    for (std::size_t i = 1; i < pts.size(); ++i)
        if (pts[i - 1].first <= bytes && bytes <= pts[i].first) {
            const double f = std::log(bytes / pts[i - 1].first) / std::log(pts[i].first / pts[i - 1].first);
            return pts[i - 1].second + f * (pts[i].second - pts[i - 1].second);
        }
    return std::nullopt;
}

} // namespace

std::vector<std::pair<double, double>> curve_of(const std::vector<core::BandwidthPoint>& sweep,
                                                const std::string& kernel, int threads,
                                                double core::Summary::*stat) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : sweep)
        if (p.kernel == kernel && p.threads == threads)
            pts.emplace_back(static_cast<double>(p.working_set_bytes), p.gbs.*stat);
    std::sort(pts.begin(), pts.end());
    return pts;
}

namespace {

// The last level's edge from the first sweep of kernel k, narrowed by extra points of the same kernel between
// the two sweep points around it (kept in the sweep); the levels' usable sizes from the topology it leaves.
void find_last_level_edge(MachineRun& run, const ThreadPass& pass, const std::string& k) {
    auto& m = run.m;
    const auto measure_at = [&](double bytes) {
        m.sweep.push_back(measure_stream(stream_kernel(k), static_cast<std::uint64_t>(bytes),
                                         run.l1_per_thread, run.plan.sweep_harness, pass.buffers));
        return m.sweep.back().gbs.max;
    };
    Edge applied;
    if (apply_effective_llc(run.topo, curve_of(m.sweep, k, pass.t), measure_at, &applied)) {
        m.notes.push_back(run.topo.caches.back().name + ": " + run.topo.caches.back().note);
        run.first_edge = applied;
        run.edge_kernel = k;
    }
    for (std::size_t li = 0; li < run.topo.caches.size(); ++li)
        m.levels[li].size_bytes = run.topo.caches[li].usable_bytes();
}

// Memory's working set where the bandwidth has stopped falling (find_memory_plateau), from the topology's
// rule up: the same kernel and thread count as the sweep, its points kept in it.
void find_memory_working_set(MachineRun& run, const ThreadPass& pass, const std::string& k) {
    auto& m = run.m;
    const int t = pass.t;
    const std::uint64_t start = level_working_sets(run.topo, t, run.plan.cap).back().bytes;
    const MemoryPlateau plateau = find_memory_plateau(
        start, std::max(run.sizes.back(), run.plan.cap), k_memory_plateau_drop, [&](std::uint64_t bytes) {
            run.progress(pass.base + 0.45 * run.per_thread_count,
                         fmt::format("memory plateau {} {}T {}", k, t, core::format_size(bytes)));
            m.sweep.push_back(measure_stream(stream_kernel(k), bytes, run.l1_per_thread,
                                             run.plan.sweep_harness, pass.buffers));
            return m.sweep.back().gbs.max;
        });
    run.memory_bytes = plateau.bytes;
    if (!plateau.points.empty()) {
        std::vector<std::string> pts;
        for (const auto& [b, g] : plateau.points)
            pts.push_back(fmt::format("{} {:.1f}", core::format_size(static_cast<double>(b)), g));
        m.notes.push_back(fmt::format(
            "MEM working set {} in all: {} {}T best GB/s {}; {}",
            core::format_size(static_cast<double>(plateau.bytes)), k, t, fmt::join(pts, ", "),
            plateau.capped ? "still falling at the cap: the MEM roof may hold cache hits"
                           : fmt::format("the larger of the first two sizes within {:.0f} % of each other",
                                         100 * k_memory_plateau_drop)));
    }
}

// One level's point of kernel k at its working set, cross-checked against the sweep and, for a private level,
// against k x one thread (re-measured once when it falls short).
core::BandwidthPoint measure_level_point(MachineRun& run, const ThreadPass& pass, std::size_t li,
                                         const LevelWorkingSet& set, const std::string& k) {
    auto& m = run.m;
    const int t = pass.t;
    const core::Level& level = m.levels[li];
    core::BandwidthPoint p =
        measure_stream(stream_kernel(k), set.bytes, run.l1_per_thread, run.plan.level_harness, pass.buffers);
    // Cross-check against the sweep: a level value far from the swept curve at the same
    // working set means the working set sits on a transition, or the machine changed.
    const auto swept = interpolate(curve_of(m.sweep, k, t), static_cast<double>(p.working_set_bytes));
    if (swept && std::abs(p.gbs.max - *swept) > 0.15 * *swept)
        m.notes.push_back(fmt::format("{} {} {} threads: best level epoch {:.1f} GB/s differs from the "
                                      "sweep's ({:.1f} GB/s) at {} by more than 15 %",
                                      level.name, k, t, p.gbs.max, *swept,
                                      core::format_size(static_cast<double>(p.working_set_bytes))));
    // Thread-scaling sanity of private levels (issue 22 section 2): re-measure once when k
    // threads come out far below k x one thread; name the level when it persists.
    const bool is_private = li < run.topo.caches.size() && run.topo.caches[li].shared_by_cores == 1;
    const auto one =
        std::find_if(level.measurements.begin(), level.measurements.end(),
                     [&](const core::BandwidthPoint& q) { return q.kernel == k && q.threads == 1; });
    if (is_private && t > 1 && one != level.measurements.end() &&
        !scales_with_threads(roof_value(*one), roof_value(p), t, k_scaling_tolerance)) {
        const double first = roof_value(p);
        p = measure_stream(stream_kernel(k), set.bytes, run.l1_per_thread, run.plan.level_harness,
                           pass.buffers);
        const bool ok = scales_with_threads(roof_value(*one), roof_value(p), t, k_scaling_tolerance);
        m.notes.push_back(fmt::format(
            "{} {} {} threads: {:.1f} GB/s is below {:.0f} % of {} x one thread ({:.1f} GB/s); "
            "re-measured: {:.1f} GB/s{}",
            level.name, k, t, first, 100 * (1 - k_scaling_tolerance), t, roof_value(*one), roof_value(p),
            ok ? "" : " (still short: a vCPU was descheduled or threads shared a core)"));
    }
    return p;
}

// Steal time over one thread count's sweep and levels (/proc/stat, proc(5)).
void note_steal(MachineRun& run, int t, const std::optional<CpuTimes>& stat_before) {
    const auto stat_after = read_proc_stat();
    const auto steal = stat_before && stat_after ? steal_fraction(*stat_before, *stat_after) : std::nullopt;
    run.m.notes.push_back(
        steal
            ? fmt::format("steal time during the {}-thread bandwidth measurements: {:.1f} %", t, 100 * *steal)
            : fmt::format("steal time during the {}-thread bandwidth measurements: not "
                          "available (/proc/stat unreadable)",
                          t));
}

} // namespace

void MachineRun::progress(double fraction, const std::string& what) const {
    if (opt.progress)
        opt.progress(std::clamp(fraction, 0.0, 1.0), what);
}

void MachineRun::maybe_visit() {
    if (visits)
        visits->maybe_visit();
}

// Working-set sweep, 4 KiB to 4x the reported last-level cache (45 %); the levels named from the topology.
void plan_sweep(MachineRun& run) {
    auto& m = run.m;
    const auto& topo = run.topo;
    const std::uint64_t llc = topo.caches.empty()
                                  ? 64 * k_mib
                                  : topo.caches.back().size_bytes *
                                        static_cast<std::uint64_t>(std::max(1, topo.caches.back().instances));
    const std::uint64_t sweep_hi = std::min<std::uint64_t>(4 * llc, run.plan.cap);
    if (sweep_hi < 4 * llc)
        m.notes.push_back(fmt::format("sweep capped at {} (4x the reported last-level cache is {})",
                                      core::format_size(static_cast<double>(sweep_hi)),
                                      core::format_size(static_cast<double>(4 * llc))));
    run.sizes = sweep_sizes(k_sweep_start, std::max(k_sweep_start, sweep_hi), run.plan.sweep_factor);
    run.l1_per_thread = l1_bytes_per_thread(topo);
    for (const auto& c : topo.caches) {
        core::Level l;
        l.name = c.name;
        m.levels.push_back(l);
    }
    m.levels.push_back(core::Level{});
    m.levels.back().name = "MEM";
    // Progress: the sweep gets 45 %, the level measurements 20 %, shared out per thread count.
    run.per_thread_count = 1.0 / static_cast<double>(run.plan.threads.size());
    run.sweep_jobs = static_cast<double>(run.plan.sweep_kernels.size() * run.sizes.size());
    run.level_jobs = static_cast<double>(run.plan.level_kernels.size() * m.levels.size());
    // Roofs over the run's window (measure/roof_visits.hpp): the roof kernel of every level at the roof's
    // thread count (the largest) is visited between the run's other measurements, on buffers of its own,
    // from the moment the levels' working sets are known (after the first sweep, which finds the effective
    // last level) to the end of the compute ceilings and thread overheads.
    run.roof_threads = run.plan.threads.back();
}

void measure_thread_count(MachineRun& run, std::size_t ti) {
    const int t = run.plan.threads[ti];
    const double base = 0.65 * run.per_thread_count * static_cast<double>(ti);
    const auto stat_before = read_proc_stat();
    // One set of buffers per thread count, first-touched once, for the sweep and the levels.
    const StreamBuffers buffers(t, std::max(run.sizes.back(), run.plan.cap));
    const ThreadPass pass{ti, t, base, buffers};
    sweep_working_sets(run, pass);
    if (ti == 0 && !run.plan.sweep_kernels.empty())
        first_sweep_findings(run, pass);
    begin_visits(run);
    // Per-level measurements at working sets chosen from the (effective) topology.
    const auto sets = level_working_sets(run.topo, t, run.plan.cap, run.memory_bytes);
    measure_levels(run, pass, sets);
    if (run.opt.stream_capacity && ti + 1 == run.plan.threads.size())
        measure_capacity(run, pass, sets);
    note_steal(run, t, stat_before);
}

void sweep_working_sets(MachineRun& run, const ThreadPass& pass) {
    double done = 0;
    for (const auto& k : run.plan.sweep_kernels)
        for (std::uint64_t s : run.sizes) {
            run.progress(
                pass.base + 0.45 * run.per_thread_count * done++ / run.sweep_jobs,
                fmt::format("sweep {} {}T {}", k, pass.t, core::format_size(static_cast<double>(s))));
            run.m.sweep.push_back(
                measure_stream(stream_kernel(k), s, run.l1_per_thread, run.plan.sweep_harness, pass.buffers));
            run.maybe_visit();
        }
}

// Effective last-level cache from the first (one-thread) sweep: load, else the first kernel swept; then
// memory's working set with the same kernel.
void first_sweep_findings(MachineRun& run, const ThreadPass& pass) {
    const auto& kernels = run.plan.sweep_kernels;
    const auto has_load = std::find(kernels.begin(), kernels.end(), "load");
    const std::string k = has_load != kernels.end() ? "load" : kernels.front();
    find_last_level_edge(run, pass, k);
    find_memory_working_set(run, pass, k);
}

void begin_visits(MachineRun& run) {
    if (run.plan.roof_kernel.empty() || run.visits)
        return;
    const auto level_sets = level_working_sets(run.topo, run.roof_threads, run.plan.cap, run.memory_bytes);
    std::uint64_t largest = 0;
    for (const auto& ls : level_sets)
        largest = std::max(largest, ls.bytes);
    run.visit_buffers.emplace(run.roof_threads, largest);
    // The first visit calibrates each level's repetitions; later ones reuse them (no calibration calls).
    run.visits.emplace(
        level_sets.size(),
        [&run, level_sets, reps = std::vector<std::uint64_t>(level_sets.size(), 0)](std::size_t li) mutable {
            HarnessOptions h = run.plan.visit_harness;
            h.fixed_repetitions = reps[li];
            return measure_stream(stream_kernel(run.plan.roof_kernel), level_sets[li].bytes,
                                  run.l1_per_thread, h, *run.visit_buffers, &reps[li])
                .gbs.samples;
        },
        run.plan.visit_options);
    run.visits->visit();
}

void measure_levels(MachineRun& run, const ThreadPass& pass, const std::vector<LevelWorkingSet>& sets) {
    double done = 0;
    for (std::size_t li = 0; li < sets.size(); ++li) {
        core::Level& level = run.m.levels[li];
        for (const auto& k : run.plan.level_kernels) {
            run.progress(pass.base + 0.65 * run.per_thread_count * (0.7 + 0.3 * done++ / run.level_jobs),
                         fmt::format("{} {} {}T", level.name, k, pass.t));
            run.maybe_visit();
            level.measurements.push_back(measure_level_point(run, pass, li, sets[li], k));
        }
        if (pass.ti == 0)
            run.m.notes.push_back(fmt::format("{} working set: {} per thread, {}", level.name,
                                              core::format_size(static_cast<double>(sets[li].per_thread)),
                                              sets[li].rule));
    }
}

// Stream capacity at the roof's thread count (the largest), on the same buffers: the last cache
// level's and memory's working sets, reads then writes.
void measure_capacity(MachineRun& run, const ThreadPass& pass, const std::vector<LevelWorkingSet>& sets) {
    auto& m = run.m;
    const int t = pass.t;
    const auto capacity_start = std::chrono::steady_clock::now();
    std::vector<std::size_t> capacity_levels{sets.size() - 1};
    if (sets.size() > 1)
        capacity_levels.insert(capacity_levels.begin(), sets.size() - 2);
    for (std::size_t li : capacity_levels)
        for (const char* access : {"read", "write"}) {
            run.progress(pass.base + 0.65 * run.per_thread_count,
                         fmt::format("{} {} streams {}T", sets[li].level, access, t));
            StreamCapacitySetup setup;
            setup.level = sets[li].level;
            setup.access = access;
            setup.working_set_bytes = sets[li].bytes;
            setup.streams = capacity_streams(run.opt.quick);
            setup.harness = capacity_harness(run.opt.quick);
            m.stream_capacity.push_back(measure_stream_capacity(setup, pass.buffers));
            run.maybe_visit();
        }
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - capacity_start;
    m.notes.push_back(
        fmt::format("stream capacity: {} measurements at {} thread{} with {} kernels in {:.1f} s",
                    m.stream_capacity.size(), t, t == 1 ? "" : "s", stream_isa(), spent.count()));
}

} // namespace roofcast::measure::machine_phases
