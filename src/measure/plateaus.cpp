#include "measure/plateaus.hpp"

#include "core/stats.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::measure {

namespace {

bool within(double value, double reference, double tolerance) {
    return std::abs(value - reference) <= tolerance * reference;
}

double median_of(const std::vector<std::pair<double, double>>& pts, std::size_t first, std::size_t last) {
    std::vector<double> v;
    for (std::size_t i = first; i <= last; ++i)
        v.push_back(pts[i].second);
    return *core::median(std::move(v));
}

} // namespace

std::vector<Plateau> find_plateaus(std::vector<std::pair<double, double>> pts, const PlateauOptions& opt) {
    std::sort(pts.begin(), pts.end());
    if (opt.smooth && pts.size() >= 3) {
        std::vector<std::pair<double, double>> smoothed = pts;
        for (std::size_t i = 1; i + 1 < pts.size(); ++i)
            smoothed[i].second = *core::median({pts[i - 1].second, pts[i].second, pts[i + 1].second});
        pts = std::move(smoothed);
    }
    std::vector<Plateau> out;
    std::size_t i = 0;
    while (i < pts.size()) {
        // Grow a run from i while the next point stays within tolerance of the run's median and
        // the run's own points all stay within tolerance of the updated median.
        std::size_t j = i;
        while (j + 1 < pts.size()) {
            const double m = median_of(pts, i, j + 1);
            bool ok = true;
            for (std::size_t k = i; k <= j + 1 && ok; ++k)
                ok = within(pts[k].second, m, opt.tolerance);
            if (!ok)
                break;
            ++j;
        }
        if (j - i + 1 >= opt.min_points) {
            Plateau p{i, j, pts[i].first, pts[j].first, median_of(pts, i, j)};
            if (!out.empty() && within(p.gbs, out.back().gbs, opt.tolerance)) {
                Plateau& prev = out.back();
                prev.last = j;
                prev.last_bytes = p.last_bytes;
                prev.gbs = median_of(pts, prev.first, j);
            } else {
                out.push_back(p);
            }
            i = j + 1;
        } else {
            ++i; // a transition point: belongs to no plateau
        }
    }
    return out;
}

std::optional<double> last_drop_bytes(const std::vector<Plateau>& plateaus) {
    if (plateaus.size() < 2)
        return std::nullopt;
    const Plateau& before = plateaus[plateaus.size() - 2];
    const Plateau& after = plateaus.back();
    return std::sqrt(before.last_bytes * after.first_bytes);
}

std::optional<Edge> llc_edge(std::vector<std::pair<double, double>> pts, double previous_level_bytes) {
    std::sort(pts.begin(), pts.end());
    if (pts.size() < 5)
        return std::nullopt;
    for (std::size_t i = 1; i + 1 < pts.size(); ++i) // median of three: one disturbed point is ignored
        pts[i].second = *core::median({pts[i - 1].second, pts[i].second, pts[i + 1].second});
    std::vector<double> cache_side, memory_side;
    for (const auto& [x, bw] : pts)
        if (x >= 4 * previous_level_bytes && x <= 8 * previous_level_bytes)
            cache_side.push_back(bw);
    for (std::size_t i = pts.size() - 3; i < pts.size(); ++i)
        memory_side.push_back(pts[i].second);
    const auto cache_bw = core::median(cache_side);
    const double memory_bw = *core::median(memory_side);
    if (!cache_bw || *cache_bw < 1.25 * memory_bw)
        return std::nullopt;
    // The edge is where the curve leaves the cache plateau (tolerance of find_plateaus), not the
    // midpoint of a gradual decline: level working sets must lie well inside the usable cache.
    const double threshold = (1 - PlateauOptions{}.tolerance) * *cache_bw;
    std::optional<std::size_t> last_above;
    for (std::size_t i = 0; i + 1 < pts.size(); ++i)
        if (pts[i].first >= 4 * previous_level_bytes && pts[i].second >= threshold)
            last_above = i;
    if (!last_above)
        return std::nullopt;
    const double below = pts[*last_above].first, above = pts[*last_above + 1].first;
    return Edge{std::sqrt(below * above), below, above, threshold};
}

namespace {

// Moves the bracket up by `step` while its upper point is still in the cache, at most `steps` times.
void climb(Edge& e, double step, int steps, const std::function<double(double)>& measure) {
    for (int up = 0; up < steps && step > 1 && measure(e.above) >= e.threshold_gbs; ++up) {
        e.below = e.above;
        e.above *= step;
    }
}

// Geometric bisection of the bracket to `max_ratio`, at most `max_steps` measurements; the edge is the
// geometric middle of the final bracket.
Edge bisect(Edge e, const std::function<double(double)>& measure, double max_ratio, int max_steps) {
    for (int halving = 0; halving < max_steps && e.above > max_ratio * e.below; ++halving) {
        const double mid = std::sqrt(e.below * e.above);
        (measure(mid) >= e.threshold_gbs ? e.below : e.above) = mid;
    }
    e.bytes = std::sqrt(e.below * e.above);
    return e;
}

} // namespace

Edge refine_edge(Edge e, const std::function<double(double)>& measure, double max_ratio, int max_steps) {
    // The point above the edge again first: a neighbour's burst during the sweep can only have slowed it, so
    // when it now reaches the threshold the edge lies further out, one step of the sweep at a time.
    climb(e, e.above / e.below, k_edge_up_steps, measure);
    return bisect(e, measure, max_ratio, max_steps);
}

Edge recheck_edge(Edge e, const std::function<double(double)>& measure, double max_ratio, int max_steps) {
    int moved = 0;
    while (moved < k_edge_recheck_steps && measure(e.below) < e.threshold_gbs) {
        e.above = e.below;
        e.below /= k_edge_recheck_step;
        ++moved;
    }
    if (moved == 0)
        climb(e, k_edge_recheck_step, k_edge_recheck_steps, measure);
    return bisect(e, measure, max_ratio, max_steps);
}

std::pair<std::uint64_t, std::uint64_t> edge_range(const Edge& a, const Edge& b) {
    return {static_cast<std::uint64_t>(std::min(a.below, b.below)),
            static_cast<std::uint64_t>(std::max(a.above, b.above))};
}

bool apply_effective_llc(core::Topology& topo, const std::vector<std::pair<double, double>>& curve,
                         const std::function<double(double)>& measure, Edge* applied) {
    if (topo.caches.empty())
        return false;
    const double previous =
        topo.caches.size() > 1 ? static_cast<double>(topo.caches[topo.caches.size() - 2].size_bytes) : 0.0;
    auto edge = llc_edge(curve, previous);
    if (!edge)
        return false;
    if (measure)
        edge = refine_edge(*edge, measure, k_edge_ratio, k_edge_steps);
    const double drop = edge->bytes;
    core::CacheInfo& llc = topo.caches.back();
    const double reported = static_cast<double>(llc.size_bytes);
    // The report stands when the edge lies at it, within the sweep's x1.2 step (the edge is the geometric
    // middle of two points: at least reported / sqrt(1.2) = 0.91 x reported). An edge further below
    // replaces it even when it is not far below: level working sets are half a level, and half of a
    // reported 260 MiB L3 whose usable part ends at 140 MiB measures memory, not L3.
    if (drop >= k_reported_edge_fraction * reported && drop <= 2.0 * reported)
        return false;
    // Below twice the previous level the "drop" need not be the last-level cache's edge (noise, or
    // the previous level's own edge); keep the report.
    if (topo.caches.size() > 1 &&
        drop <= 2.0 * static_cast<double>(topo.caches[topo.caches.size() - 2].size_bytes))
        return false;
    llc.effective_size_bytes = static_cast<std::uint64_t>(drop);
    llc.effective_size_range_bytes =
        std::pair{static_cast<std::uint64_t>(edge->below), static_cast<std::uint64_t>(edge->above)};
    llc.note =
        fmt::format("one-thread sweep drops to memory bandwidth at {} (between the sweep points {} and "
                    "{}), reported size {}; level working sets use the measured size",
                    core::format_size(drop), core::format_size(edge->below), core::format_size(edge->above),
                    core::format_size(reported));
    if (applied)
        *applied = *edge;
    return true;
}

MemoryPlateau find_memory_plateau(std::uint64_t start, std::uint64_t cap, double drop,
                                  const std::function<double(std::uint64_t bytes)>& measure) {
    MemoryPlateau out;
    out.bytes = start;
    if (start == 0 || 2 * start > cap)
        return out;
    double at = measure(start);
    out.points.emplace_back(start, at);
    while (2 * out.bytes <= cap) {
        const double twice = measure(2 * out.bytes);
        out.points.emplace_back(2 * out.bytes, twice);
        out.bytes *= 2;
        if (!(twice < (1.0 - drop) * at))
            return out; // the double no longer falls: both are on memory's plateau, the larger is kept
        at = twice;
    }
    out.capped = true;
    return out;
}

} // namespace roofcast::measure
