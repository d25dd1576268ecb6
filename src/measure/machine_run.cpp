#include "measure/machine_run.hpp"

#include "core/error.hpp"
#include "core/machine_noise.hpp"
#include "core/timestamp.hpp"
#include "core/units.hpp"
#include "measure/affinity.hpp"
#include "measure/compute.hpp"
#include "measure/host_noise.hpp"
#include "measure/mpi.hpp"
#include "measure/overhead.hpp"
#include "measure/plateaus.hpp"
#include "measure/roof_visits.hpp"
#include "measure/stream.hpp"
#include "measure/stream_capacity.hpp"
#include "measure/topology.hpp"
#include "measure/working_sets.hpp"
#include "roofcast/version.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <omp.h>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace roofcast::measure {

namespace {

constexpr std::uint64_t k_sweep_start = 4096;
constexpr std::uint64_t k_min_max_size = 64 * 1024;
constexpr std::uint64_t k_mib = 1024 * 1024;
// A roof is the median of the best k_roof_best epochs, sampled until they agree within k_roof_tolerance
// (docs/design.md): 3 is the fewest for which a median rejects one outlier, and 2 % is a fifth of the
// 10 % run-to-run repeatability asked of the roofs (issue 22), so settling cannot use up that budget.
constexpr int k_roof_best = 3;
constexpr double k_roof_tolerance = 0.02;
// A private level at k threads below (1 - 0.25) x k x one thread fails the scaling check: halfway between
// perfect scaling and the loss of one of two threads (a descheduled vCPU, two threads on one core).
constexpr double k_scaling_tolerance = 0.25;
// The final roof of a private level is held to core::k_roof_thread_scaling_min of threads x one thread; when
// it falls short, up to this many extra visits look for a moment when the threads had a core each.
constexpr int k_scaling_extra_visits = 3;

// The first of core::roof_kernel_preference() among `kernels`; empty when none of them is.
std::string preferred_kernel(const std::vector<std::string>& kernels) {
    for (const auto& pref : core::roof_kernel_preference())
        if (std::find(kernels.begin(), kernels.end(), pref) != kernels.end())
            return std::string(pref);
    return {};
}

// The roof statistic of one point (median of the best k_roof_best epochs).
double roof_value(const core::BandwidthPoint& p) {
    return core::best_k_median(p.gbs.samples, k_roof_best).value_or(p.gbs.median);
}

struct Plan {
    std::vector<int> threads;
    std::vector<std::string> sweep_kernels;
    std::vector<std::string> level_kernels;
    double sweep_factor = 1.2;
    std::uint64_t cap = 0;
    HarnessOptions sweep_harness;
    HarnessOptions level_harness;
    HarnessOptions overhead_harness;
    // Roofs over the run's window: the roof kernel (the first of core::roof_kernel_preference() measured
    // at the levels; empty: no visits), its harness per visit and the visits' schedule.
    std::string roof_kernel;
    HarnessOptions visit_harness;
    RoofVisitOptions visit_options;
};

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

// `stat` picks the figure of each point: the best epoch (default) for detection, the median for the
// levels' reported curves.
std::vector<std::pair<double, double>> curve_of(const std::vector<core::BandwidthPoint>& sweep,
                                                const std::string& kernel, int threads,
                                                double core::Summary::*stat = &core::Summary::max) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : sweep)
        if (p.kernel == kernel && p.threads == threads)
            pts.emplace_back(static_cast<double>(p.working_set_bytes), p.gbs.*stat);
    std::sort(pts.begin(), pts.end());
    return pts;
}

// L1 capacity of one thread, which decides where write-allocate traffic starts (32 KiB when the topology
// names no cache).
std::uint64_t l1_bytes_per_thread(const core::Topology& topo) {
    return topo.caches.empty() ? 32 * 1024 : topo.caches.front().size_bytes;
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

} // namespace

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
    validate_machine_options(opt);
    // The measurements pin threads; the process and OpenMP's thread pool leave this call with the affinity
    // they came with, so work run afterwards in the same process (the kernel suite of `roofcast run`) can
    // use every core again instead of sharing the CPU the last measurement pinned.
    const AffinityGuard affinity;
    auto progress = [&](double f, const std::string& what) {
        if (opt.progress)
            opt.progress(std::clamp(f, 0.0, 1.0), what);
    };
    core::Machine m;
    m.source = core::Provenance::measured;
    m.created = core::utc_now_iso8601();
    m.roofcast_version = k_version;
    m.measurement_revision = k_measurement_revision;
    core::Topology topo = detect_topology();
    m.name = fmt::format("{} ({})", host_name(), topo.cpu_model);
    const Plan plan = make_plan(opt, topo);

    // Working-set sweep, 4 KiB to 4x the reported last-level cache (45 %).
    const std::uint64_t llc = topo.caches.empty()
                                  ? 64 * k_mib
                                  : topo.caches.back().size_bytes *
                                        static_cast<std::uint64_t>(std::max(1, topo.caches.back().instances));
    const std::uint64_t sweep_hi = std::min<std::uint64_t>(4 * llc, plan.cap);
    if (sweep_hi < 4 * llc)
        m.notes.push_back(fmt::format("sweep capped at {} (4x the reported last-level cache is {})",
                                      core::format_size(static_cast<double>(sweep_hi)),
                                      core::format_size(static_cast<double>(4 * llc))));
    const auto sizes = sweep_sizes(k_sweep_start, std::max(k_sweep_start, sweep_hi), plan.sweep_factor);
    const std::uint64_t l1_per_thread = l1_bytes_per_thread(topo);
    for (const auto& c : topo.caches) {
        core::Level l;
        l.name = c.name;
        m.levels.push_back(l);
    }
    m.levels.push_back(core::Level{});
    m.levels.back().name = "MEM";
    // Progress: the sweep gets 45 %, the level measurements 20 %, shared out per thread count.
    const double per_thread_count = 1.0 / static_cast<double>(plan.threads.size());
    const double sweep_jobs = static_cast<double>(plan.sweep_kernels.size() * sizes.size());
    const double level_jobs = static_cast<double>(plan.level_kernels.size() * m.levels.size());
    // Roofs over the run's window (measure/roof_visits.hpp): the roof kernel of every level at the roof's
    // thread count (the largest) is visited between the run's other measurements, on buffers of its own,
    // from the moment the levels' working sets are known (after the first sweep, which finds the effective
    // last level) to the end of the compute ceilings and thread overheads.
    const int roof_threads = plan.threads.back();
    std::uint64_t memory_bytes = 0; // memory's working set in all, from find_memory_plateau
    std::optional<StreamBuffers> visit_buffers;
    std::optional<RoofVisits> visits;
    auto begin_visits = [&] {
        if (plan.roof_kernel.empty() || visits)
            return;
        const auto level_sets = level_working_sets(topo, roof_threads, plan.cap, memory_bytes);
        std::uint64_t largest = 0;
        for (const auto& ls : level_sets)
            largest = std::max(largest, ls.bytes);
        visit_buffers.emplace(roof_threads, largest);
        // The first visit calibrates each level's repetitions; later ones reuse them (no calibration calls).
        visits.emplace(
            level_sets.size(),
            [&, level_sets, reps = std::vector<std::uint64_t>(level_sets.size(), 0)](std::size_t li) mutable {
                HarnessOptions h = plan.visit_harness;
                h.fixed_repetitions = reps[li];
                return measure_stream(stream_kernel(plan.roof_kernel), level_sets[li].bytes, l1_per_thread, h,
                                      *visit_buffers, &reps[li])
                    .gbs.samples;
            },
            plan.visit_options);
        visits->visit();
    };
    auto maybe_visit = [&] {
        if (visits)
            visits->maybe_visit();
    };
    // The last level's edge from the first sweep, found again at the end of the run (recheck_edge).
    std::optional<Edge> first_edge;
    std::string edge_kernel;
    for (std::size_t ti = 0; ti < plan.threads.size(); ++ti) {
        const int t = plan.threads[ti];
        const double base = 0.65 * per_thread_count * static_cast<double>(ti);
        const auto stat_before = read_proc_stat();
        // One set of buffers per thread count, first-touched once, for the sweep and the levels.
        const StreamBuffers buffers(t, std::max(sizes.back(), plan.cap));
        double done = 0;
        for (const auto& k : plan.sweep_kernels)
            for (std::uint64_t s : sizes) {
                progress(base + 0.45 * per_thread_count * done++ / sweep_jobs,
                         fmt::format("sweep {} {}T {}", k, t, core::format_size(static_cast<double>(s))));
                m.sweep.push_back(
                    measure_stream(stream_kernel(k), s, l1_per_thread, plan.sweep_harness, buffers));
                maybe_visit();
            }
        // Effective last-level cache from the first (one-thread) sweep: load, else the first kernel swept.
        if (ti == 0 && !plan.sweep_kernels.empty()) {
            const auto has_load = std::find(plan.sweep_kernels.begin(), plan.sweep_kernels.end(), "load");
            const std::string k = has_load != plan.sweep_kernels.end() ? "load" : plan.sweep_kernels.front();
            // The edge narrowed by extra points of the same kernel between the two sweep points around it
            // (kept in the sweep).
            const auto measure_at = [&](double bytes) {
                m.sweep.push_back(measure_stream(stream_kernel(k), static_cast<std::uint64_t>(bytes),
                                                 l1_per_thread, plan.sweep_harness, buffers));
                return m.sweep.back().gbs.max;
            };
            Edge applied;
            if (apply_effective_llc(topo, curve_of(m.sweep, k, t), measure_at, &applied)) {
                m.notes.push_back(topo.caches.back().name + ": " + topo.caches.back().note);
                first_edge = applied;
                edge_kernel = k;
            }
            for (std::size_t li = 0; li < topo.caches.size(); ++li)
                m.levels[li].size_bytes = topo.caches[li].usable_bytes();
            // Memory's working set where the bandwidth has stopped falling (find_memory_plateau), from the
            // topology's rule up: the same kernel and thread count as the sweep, its points kept in it.
            const std::uint64_t start = level_working_sets(topo, t, plan.cap).back().bytes;
            const MemoryPlateau plateau = find_memory_plateau(
                start, std::max(sizes.back(), plan.cap), k_memory_plateau_drop, [&](std::uint64_t bytes) {
                    progress(base + 0.45 * per_thread_count,
                             fmt::format("memory plateau {} {}T {}", k, t, core::format_size(bytes)));
                    m.sweep.push_back(
                        measure_stream(stream_kernel(k), bytes, l1_per_thread, plan.sweep_harness, buffers));
                    return m.sweep.back().gbs.max;
                });
            memory_bytes = plateau.bytes;
            if (!plateau.points.empty()) {
                std::vector<std::string> pts;
                for (const auto& [b, g] : plateau.points)
                    pts.push_back(fmt::format("{} {:.1f}", core::format_size(static_cast<double>(b)), g));
                m.notes.push_back(fmt::format(
                    "MEM working set {} in all: {} {}T best GB/s {}; {}",
                    core::format_size(static_cast<double>(plateau.bytes)), k, t, fmt::join(pts, ", "),
                    plateau.capped
                        ? "still falling at the cap: the MEM roof may hold cache hits"
                        : fmt::format("the larger of the first two sizes within {:.0f} % of each other",
                                      100 * k_memory_plateau_drop)));
            }
        }
        begin_visits();
        // Per-level measurements at working sets chosen from the (effective) topology.
        const auto sets = level_working_sets(topo, t, plan.cap, memory_bytes);
        done = 0;
        for (std::size_t li = 0; li < sets.size(); ++li) {
            core::Level& level = m.levels[li];
            for (const auto& k : plan.level_kernels) {
                progress(base + 0.65 * per_thread_count * (0.7 + 0.3 * done++ / level_jobs),
                         fmt::format("{} {} {}T", level.name, k, t));
                maybe_visit();
                core::BandwidthPoint p = measure_stream(stream_kernel(k), sets[li].bytes, l1_per_thread,
                                                        plan.level_harness, buffers);
                // Cross-check against the sweep: a level value far from the swept curve at the same
                // working set means the working set sits on a transition, or the machine changed.
                const auto swept =
                    interpolate(curve_of(m.sweep, k, t), static_cast<double>(p.working_set_bytes));
                if (swept && std::abs(p.gbs.max - *swept) > 0.15 * *swept)
                    m.notes.push_back(
                        fmt::format("{} {} {} threads: best level epoch {:.1f} GB/s differs from the "
                                    "sweep's ({:.1f} GB/s) at {} by more than 15 %",
                                    level.name, k, t, p.gbs.max, *swept,
                                    core::format_size(static_cast<double>(p.working_set_bytes))));
                // Thread-scaling sanity of private levels (issue 22 section 2): re-measure once when k
                // threads come out far below k x one thread; name the level when it persists.
                const bool is_private = li < topo.caches.size() && topo.caches[li].shared_by_cores == 1;
                const auto one = std::find_if(
                    level.measurements.begin(), level.measurements.end(),
                    [&](const core::BandwidthPoint& q) { return q.kernel == k && q.threads == 1; });
                if (is_private && t > 1 && one != level.measurements.end() &&
                    !scales_with_threads(roof_value(*one), roof_value(p), t, k_scaling_tolerance)) {
                    const double first = roof_value(p);
                    p = measure_stream(stream_kernel(k), sets[li].bytes, l1_per_thread, plan.level_harness,
                                       buffers);
                    const bool ok =
                        scales_with_threads(roof_value(*one), roof_value(p), t, k_scaling_tolerance);
                    m.notes.push_back(fmt::format(
                        "{} {} {} threads: {:.1f} GB/s is below {:.0f} % of {} x one thread ({:.1f} GB/s); "
                        "re-measured: {:.1f} GB/s{}",
                        level.name, k, t, first, 100 * (1 - k_scaling_tolerance), t, roof_value(*one),
                        roof_value(p),
                        ok ? "" : " (still short: a vCPU was descheduled or threads shared a core)"));
                }
                level.measurements.push_back(std::move(p));
            }
            if (ti == 0)
                m.notes.push_back(fmt::format("{} working set: {} per thread, {}", level.name,
                                              core::format_size(static_cast<double>(sets[li].per_thread)),
                                              sets[li].rule));
        }
        // Stream capacity at the roof's thread count (the largest), on the same buffers: the last cache
        // level's and memory's working sets, reads then writes.
        if (opt.stream_capacity && ti + 1 == plan.threads.size()) {
            const auto capacity_start = std::chrono::steady_clock::now();
            std::vector<std::size_t> capacity_levels{sets.size() - 1};
            if (sets.size() > 1)
                capacity_levels.insert(capacity_levels.begin(), sets.size() - 2);
            for (std::size_t li : capacity_levels)
                for (const char* access : {"read", "write"}) {
                    progress(base + 0.65 * per_thread_count,
                             fmt::format("{} {} streams {}T", sets[li].level, access, t));
                    StreamCapacitySetup setup;
                    setup.level = sets[li].level;
                    setup.access = access;
                    setup.working_set_bytes = sets[li].bytes;
                    setup.streams = capacity_streams(opt.quick);
                    setup.harness = capacity_harness(opt.quick);
                    m.stream_capacity.push_back(measure_stream_capacity(setup, buffers));
                    maybe_visit();
                }
            const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - capacity_start;
            m.notes.push_back(
                fmt::format("stream capacity: {} measurements at {} thread{} with {} kernels in {:.1f} s",
                            m.stream_capacity.size(), t, t == 1 ? "" : "s", stream_isa(), spent.count()));
        }
        // Steal time over this thread count's sweep and levels (/proc/stat, proc(5)).
        const auto stat_after = read_proc_stat();
        const auto steal =
            stat_before && stat_after ? steal_fraction(*stat_before, *stat_after) : std::nullopt;
        m.notes.push_back(
            steal ? fmt::format("steal time during the {}-thread bandwidth measurements: {:.1f} %", t,
                                100 * *steal)
                  : fmt::format("steal time during the {}-thread bandwidth measurements: not "
                                "available (/proc/stat unreadable)",
                                t));
    }
    // Compute ceilings and clock (25 % of the progress bar), visited between ceilings.
    progress(0.65, "compute ceilings");
    ComputeOptions co;
    co.isas = opt.isas;
    co.threads = plan.threads;
    co.quick = opt.quick;
    co.progress = [&](const std::string& what) { progress(0.75, what); };
    co.between = maybe_visit;
    const ComputeResult cr = measure_compute(co);
    m.ceilings = cr.ceilings;
    m.clock_ghz = cr.clock_ghz;
    m.tsc_ghz = cr.tsc_ghz;
    m.clock_drift = cr.clock_drift;
    m.peak_gflops = cr.peak_gflops;
    m.notes.insert(m.notes.end(), cr.notes.begin(), cr.notes.end());

    // Thread overhead, 1 ... 4x cores (10 %).
    maybe_visit();
    progress(0.9, "thread overhead");
    m.thread_overhead = measure_thread_overhead(4 * topo.cores, plan.overhead_harness);
    // A private level's roof at the roof's thread count over (threads x its one-thread roof), from the
    // level's own epochs and every visit's (issue 22 §2); nullopt for shared levels, one thread, or a level
    // without both measurements.
    // The visits' epochs of level li for kernel k: none unless k is the visited roof kernel.
    const std::vector<double> no_visits;
    const auto visit_epochs = [&](std::size_t li, std::string_view k) -> const std::vector<double>& {
        return visits && k == plan.roof_kernel && li < visits->levels() ? visits->samples(li) : no_visits;
    };
    const auto private_scaling = [&](std::size_t li, std::string_view k) -> std::optional<double> {
        if (li >= topo.caches.size() || topo.caches[li].shared_by_cores != 1)
            return std::nullopt;
        return roof_thread_scaling(m.levels[li], k, roof_threads, visit_epochs(li, k), k_roof_best);
    };
    // The usable last level again at the end of the run, one thread as the first sweep: its range over the
    // run's window is the union of both brackets (issue 22 section 3).
    if (first_edge && !topo.caches.empty()) {
        progress(0.95, "last-level edge again");
        const double top = std::min(static_cast<double>(plan.cap),
                                    first_edge->above * std::pow(k_edge_recheck_step, k_edge_recheck_steps));
        const StreamBuffers one(1, static_cast<std::uint64_t>(top));
        std::vector<std::string> points;
        const Edge again = recheck_edge(
            *first_edge,
            [&](double bytes) {
                const double g = measure_stream(stream_kernel(edge_kernel),
                                                static_cast<std::uint64_t>(std::min(bytes, top)),
                                                l1_per_thread, plan.sweep_harness, one)
                                     .gbs.max;
                points.push_back(fmt::format("{} {:.1f} GB/s", core::format_size(bytes), g));
                return g;
            },
            k_edge_ratio, k_edge_steps);
        core::CacheInfo& llc = topo.caches.back();
        llc.effective_size_range_bytes = edge_range(*first_edge, again);
        m.notes.push_back(fmt::format("{} usable size over the run's window: {} after the first sweep "
                                      "(between {} and {}), {} at the end "
                                      "(between {} and {}; at one thread {}, in the cache from {:.1f} GB/s); "
                                      "effective_size_range_bytes "
                                      "holds both",
                                      llc.name, core::format_size(first_edge->bytes),
                                      core::format_size(first_edge->below),
                                      core::format_size(first_edge->above), core::format_size(again.bytes),
                                      core::format_size(again.below), core::format_size(again.above),
                                      fmt::join(points, ", "), again.threshold_gbs));
    }
    if (visits) {
        visits->visit(); // the window's last
        // Extra visits while a private roof stays short of its thread scaling.
        int extra = 0;
        const auto any_short = [&] {
            for (std::size_t li = 0; li < m.levels.size(); ++li)
                if (const auto s = private_scaling(li, plan.roof_kernel);
                    s && *s < core::k_roof_thread_scaling_min)
                    return true;
            return false;
        };
        while (extra < k_scaling_extra_visits && any_short()) {
            visits->visit();
            ++extra;
        }
        if (extra > 0)
            m.notes.push_back(fmt::format(
                "{} extra visit{} after the window: a private roof was below {:.0f} % "
                "of {} x one thread",
                extra, extra == 1 ? "" : "s", 100 * core::k_roof_thread_scaling_min, roof_threads));
        m.notes.push_back(fmt::format(
            "roofs over the run's window: {} visits to every level's {} at {} thread{} over {:.1f} s "
            "({:.2f} s in visits)",
            visits->visits(), plan.roof_kernel, roof_threads, roof_threads == 1 ? "" : "s",
            visits->window_seconds(), visits->spent_seconds()));
    }
    // The roof the models use: the first kernel of core::roof_kernel_preference() measured, largest thread
    // count.
    for (std::size_t li = 0; li < m.levels.size(); ++li) {
        auto& level = m.levels[li];
        for (const auto& k : core::roof_kernel_preference()) {
            const auto it = std::find_if(
                level.measurements.begin(), level.measurements.end(),
                [&](const core::BandwidthPoint& p) { return p.kernel == k && p.threads == roof_threads; });
            if (it == level.measurements.end())
                continue;
            core::RoofChoice rc;
            rc.method = "best_k_median";
            rc.best = k_roof_best;
            rc.tolerance = k_roof_tolerance;
            // The level's own epochs and, for the visited kernel, every visit's: the best epochs over the
            // run's window.
            std::vector<double> rates = it->gbs.samples;
            if (const auto& extra = visit_epochs(li, k); !extra.empty()) {
                rc.visits = visits->visits();
                rc.window_seconds = visits->window_seconds();
                rc.visit_gbs = core::summarize(extra);
                rates.insert(rates.end(), extra.begin(), extra.end());
            }
            level.bandwidth_gbs = core::best_k_median(rates, k_roof_best).value_or(it->gbs.median);
            level.bandwidth = it->gbs;
            rc.epochs = rates.size();
            // Settled when the best k epochs agree (times are the reciprocals of the rates); without visits
            // exactly when the harness stopped adding epochs before its cap.
            std::vector<double> times;
            for (double g : rates)
                times.push_back(1.0 / g);
            rc.settled = best_agree(times, k_roof_best, k_roof_tolerance);
            rc.thread_scaling = private_scaling(li, k);
            if (rc.thread_scaling && *rc.thread_scaling < core::k_roof_thread_scaling_min)
                m.notes.push_back(fmt::format(
                    "{} roof ({} {}T): {:.1f} GB/s is {:.0f} % of {} x one thread's {:.1f} GB/s over the "
                    "run's "
                    "window: the threads did not get a core each (a neighbour, or two vCPUs on one core)",
                    level.name, k, roof_threads, level.bandwidth_gbs.value_or(0), 100 * *rc.thread_scaling,
                    roof_threads, level.bandwidth_gbs.value_or(0) / (*rc.thread_scaling * roof_threads)));
            level.roof_choice = rc;
            const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
            if (!rc.settled)
                m.notes.push_back(fmt::format(
                    "{} roof ({} {}T): the best {} of {} epochs did not agree within {:.0f} % before the cap "
                    "(epochs {:.1f} - {:.1f} GB/s): the host was busy; the roof is the median of the best {}",
                    level.name, k, roof_threads, k_roof_best, rates.size(), 100 * k_roof_tolerance, *lo, *hi,
                    k_roof_best));
            level.bandwidth_kernel = k;
            level.source = core::Provenance::measured;
            break;
        }
    }
    // Each level's bandwidth-versus-working-set curve: the sweep of the roof's kernel (else the first
    // kernel swept) at the roof's thread count, medians in requested bytes like the roof, over the
    // working sets the level serves.
    if (!plan.sweep_kernels.empty()) {
        std::string k = preferred_kernel(plan.sweep_kernels);
        if (k.empty())
            k = plan.sweep_kernels.front();
        const auto curves = level_curves(curve_of(m.sweep, k, roof_threads, &core::Summary::median),
                                         level_ranges(topo, roof_threads));
        for (std::size_t i = 0; i < m.levels.size() && i < curves.size(); ++i)
            m.levels[i].curve = curves[i];
        m.notes.push_back(fmt::format("level curves: the {} sweep at {} thread{}, medians", k, roof_threads,
                                      roof_threads == 1 ? "" : "s"));
    }

    // MPI latency and bandwidth between two ranks (a few seconds, mostly mpirun's start-up).
    if (opt.mpi) {
        progress(0.95, "MPI ping-pong");
        MpiOptions mo;
        mo.quick = opt.quick;
        MpiMeasurement mpi = measure_mpi(mo);
        m.mpi = std::move(mpi.figures);
        m.notes.push_back(mpi.note);
    } else {
        m.notes.push_back("MPI: not measured (switched off for this run)");
    }
    m.topology = topo;
    core::flag_machine_noise(m);
    progress(1.0, "done");
    affinity.restore_openmp_team(omp_get_max_threads());
    return m;
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
