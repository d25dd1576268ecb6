// The closing phases of `roofcast machine` (measure/machine_phases.hpp): the last level's edge again, the
// window's last roof visits, the roof of every level and the levels' curves.
#include "measure/machine_phases.hpp"

#include "core/units.hpp"
#include "measure/host_noise.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string_view>

namespace roofcast::measure::machine_phases {

namespace {

// The final roof of a private level is held to core::k_roof_thread_scaling_min of threads x one thread; when
// it falls short, up to this many extra visits look for a moment when the threads had a core each.
constexpr int k_scaling_extra_visits = 3;

// The visits' epochs of level li for kernel k: none unless k is the visited roof kernel.
const std::vector<double>& visit_epochs(const MachineRun& run, std::size_t li, std::string_view k) {
    static const std::vector<double> no_visits;
    return run.visits && k == run.plan.roof_kernel && li < run.visits->levels() ? run.visits->samples(li)
                                                                                : no_visits;
}

// A private level's roof at the roof's thread count over (threads x its one-thread roof), from the
// level's own epochs and every visit's (issue 22 §2); nullopt for shared levels, one thread, or a level
// without both measurements.
std::optional<double> private_scaling(const MachineRun& run, std::size_t li, std::string_view k) {
    if (li >= run.topo.caches.size() || run.topo.caches[li].shared_by_cores != 1)
        return std::nullopt;
    return roof_thread_scaling(run.m.levels[li], k, run.roof_threads, visit_epochs(run, li, k), k_roof_best);
}

// The roof choice of one level from its point `it` of kernel k (the level's own epochs and, for the visited
// kernel, every visit's: the best epochs over the run's window); notes a short thread scaling and a roof
// whose best epochs did not agree.
void choose_roof(MachineRun& run, std::size_t li, const core::BandwidthPoint& point, std::string_view k) {
    auto& m = run.m;
    auto& level = m.levels[li];
    const int roof_threads = run.roof_threads;
    core::RoofChoice rc;
    rc.method = "best_k_median";
    rc.best = k_roof_best;
    rc.tolerance = k_roof_tolerance;
    std::vector<double> rates = point.gbs.samples;
    if (const auto& extra = visit_epochs(run, li, k); !extra.empty()) {
        rc.visits = run.visits->visits();
        rc.window_seconds = run.visits->window_seconds();
        rc.visit_gbs = core::summarize(extra);
        rates.insert(rates.end(), extra.begin(), extra.end());
    }
    level.bandwidth_gbs = core::best_k_median(rates, k_roof_best).value_or(point.gbs.median);
    level.bandwidth = point.gbs;
    rc.epochs = rates.size();
    // Settled when the best k epochs agree (times are the reciprocals of the rates); without visits
    // exactly when the harness stopped adding epochs before its cap.
    std::vector<double> times;
    for (double g : rates)
        times.push_back(1.0 / g);
    rc.settled = best_agree(times, k_roof_best, k_roof_tolerance);
    rc.thread_scaling = private_scaling(run, li, k);
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
    level.bandwidth_kernel = std::string(k);
    level.source = core::Provenance::measured;
}

} // namespace

// The usable last level again at the end of the run, one thread as the first sweep: its range over the
// run's window is the union of both brackets (issue 22 section 3).
void recheck_last_level(MachineRun& run) {
    if (!run.first_edge || run.topo.caches.empty())
        return;
    const Edge& first_edge = *run.first_edge;
    run.progress(0.95, "last-level edge again");
    const double top = std::min(static_cast<double>(run.plan.cap),
                                first_edge.above * std::pow(k_edge_recheck_step, k_edge_recheck_steps));
    const StreamBuffers one(1, static_cast<std::uint64_t>(top));
    std::vector<std::string> points;
    const Edge again = recheck_edge(
        first_edge,
        [&](double bytes) {
            const double g = measure_stream(stream_kernel(run.edge_kernel),
                                            static_cast<std::uint64_t>(std::min(bytes, top)),
                                            run.l1_per_thread, run.plan.sweep_harness, one)
                                 .gbs.max;
            points.push_back(fmt::format("{} {:.1f} GB/s", core::format_size(bytes), g));
            return g;
        },
        k_edge_ratio, k_edge_steps);
    core::CacheInfo& llc = run.topo.caches.back();
    llc.effective_size_range_bytes = edge_range(first_edge, again);
    run.m.notes.push_back(fmt::format(
        "{} usable size over the run's window: {} after the first sweep "
        "(between {} and {}), {} at the end "
        "(between {} and {}; at one thread {}, in the cache from {:.1f} GB/s); "
        "effective_size_range_bytes "
        "holds both",
        llc.name, core::format_size(first_edge.bytes), core::format_size(first_edge.below),
        core::format_size(first_edge.above), core::format_size(again.bytes), core::format_size(again.below),
        core::format_size(again.above), fmt::join(points, ", "), again.threshold_gbs));
}

// The window's last visit, then extra visits while a private roof stays short of its thread scaling.
void close_visits(MachineRun& run) {
    if (!run.visits)
        return;
    auto& visits = *run.visits;
    const int roof_threads = run.roof_threads;
    visits.visit(); // the window's last
    int extra = 0;
    const auto any_short = [&] {
        for (std::size_t li = 0; li < run.m.levels.size(); ++li)
            if (const auto s = private_scaling(run, li, run.plan.roof_kernel);
                s && *s < core::k_roof_thread_scaling_min)
                return true;
        return false;
    };
    while (extra < k_scaling_extra_visits && any_short()) {
        visits.visit();
        ++extra;
    }
    if (extra > 0)
        run.m.notes.push_back(
            fmt::format("{} extra visit{} after the window: a private roof was below {:.0f} % "
                        "of {} x one thread",
                        extra, extra == 1 ? "" : "s", 100 * core::k_roof_thread_scaling_min, roof_threads));
    run.m.notes.push_back(
        fmt::format("roofs over the run's window: {} visits to every level's {} at {} thread{} over {:.1f} s "
                    "({:.2f} s in visits)",
                    visits.visits(), run.plan.roof_kernel, roof_threads, roof_threads == 1 ? "" : "s",
                    visits.window_seconds(), visits.spent_seconds()));
}

// The roof the models use: the first kernel of core::roof_kernel_preference() measured, largest thread
// count.
void choose_roofs(MachineRun& run) {
    for (std::size_t li = 0; li < run.m.levels.size(); ++li) {
        const auto& measurements = run.m.levels[li].measurements;
        for (const auto& k : core::roof_kernel_preference()) {
            const auto it =
                std::find_if(measurements.begin(), measurements.end(), [&](const core::BandwidthPoint& p) {
                    return p.kernel == k && p.threads == run.roof_threads;
                });
            if (it == measurements.end())
                continue;
            choose_roof(run, li, *it, k);
            break;
        }
    }
}

// Each level's bandwidth-versus-working-set curve: the sweep of the roof's kernel (else the first
// kernel swept) at the roof's thread count, medians in requested bytes like the roof, over the
// working sets the level serves.
void attach_level_curves(MachineRun& run) {
    if (run.plan.sweep_kernels.empty())
        return;
    auto& m = run.m;
    const int roof_threads = run.roof_threads;
    std::string k = preferred_kernel(run.plan.sweep_kernels);
    if (k.empty())
        k = run.plan.sweep_kernels.front();
    const auto curves = level_curves(curve_of(m.sweep, k, roof_threads, &core::Summary::median),
                                     level_ranges(run.topo, roof_threads));
    for (std::size_t i = 0; i < m.levels.size() && i < curves.size(); ++i)
        m.levels[i].curve = curves[i];
    m.notes.push_back(fmt::format("level curves: the {} sweep at {} thread{}, medians", k, roof_threads,
                                  roof_threads == 1 ? "" : "s"));
}

} // namespace roofcast::measure::machine_phases
