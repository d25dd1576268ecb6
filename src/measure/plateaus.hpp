// Plateau detection on a bandwidth-versus-working-set curve (a pure function, no timing), and the
// check of the sweep against the reported cache sizes: when the sweep's last drop (into memory)
// happens well before the reported last-level cache is full, the cache usable by this run is
// smaller than reported (e.g. a virtual machine that sees the host's whole L3), and the effective
// size measured is what level working sets must be chosen from.
#pragma once

#include "core/machine.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace roofcast::measure {

struct Plateau {
    std::size_t first = 0; // index of the first point (points sorted by working set)
    std::size_t last = 0;  // index of the last point, inclusive
    double first_bytes = 0;
    double last_bytes = 0;
    double gbs = 0; // median bandwidth of the points on the plateau
};

struct PlateauOptions {
    double tolerance = 0.10; // a point belongs to a plateau when within this relative distance of its median
    std::size_t min_points = 3;
    bool smooth = true; // replace each inner point by the median of it and its two neighbours first
};

// Plateaus of a curve of (working-set bytes, GB/s) points, smallest working set first. A plateau is
// a maximal run of consecutive points within `tolerance` of the run's median, at least min_points
// long; shorter runs are transitions between plateaus. Neighbouring plateaus whose medians are within
// the tolerance are merged. Points need not be sorted on input. With `smooth`, a single outlier
// (one noisy measurement) cannot split a plateau.
std::vector<Plateau> find_plateaus(std::vector<std::pair<double, double>> points,
                                   const PlateauOptions& opt = {});

// Working set (bytes) at which the curve leaves its second-to-last plateau for the last one (the
// drop into memory): the geometric mean of the last point of the former and the first of the latter.
// nullopt when the curve has fewer than two plateaus.
std::optional<double> last_drop_bytes(const std::vector<Plateau>& plateaus);

// Edge of the last-level cache on a one-thread curve, robust to plateaus split by noise: the cache
// bandwidth is the median of the (smoothed) points between 4x and 8x the previous level's size, the
// memory bandwidth the median of the last three points; the edge is the geometric mean of the last
// point still within 10 % of the cache bandwidth and the point after it (so dips inside the cache
// region do not cut it short). nullopt when the cache side is not at least 1.25x the memory side.
struct Edge {
    double bytes = 0;            // the geometric mean of the two points around it
    double below = 0, above = 0; // those two points: the edge lies between them
    double threshold_gbs = 0;    // 90 % of the cache bandwidth: a point at or above it is still in the cache
};
std::optional<Edge> llc_edge(std::vector<std::pair<double, double>> curve, double previous_level_bytes);

// Narrows an edge by geometric bisection (issue 22 section 3: a sweep's x1.5 or x1.2 step turned a small move
// of the usable cache into a whole step of the reported size): `measure` gives the best bandwidth at a
// working set. First the point above the edge is measured again: while it reaches the threshold (the sweep
// saw it slowed by a neighbour) the bracket moves up one step, at most k_edge_up_steps times. Then the
// geometric middle of below and above replaces `below` when it is still at or above the threshold, else
// `above`; until above / below <= max_ratio or `max_steps` measurements. Returns the narrowed edge.
Edge refine_edge(Edge edge, const std::function<double(double bytes)>& measure, double max_ratio,
                 int max_steps);

// The reported last-level cache size is kept when the measured edge lies at or above this fraction of it.
inline constexpr double k_reported_edge_fraction = 0.85;

// Compares the last-level-cache edge of a one-thread sweep with the reported last-level cache; when the drop
// happens before k_reported_edge_fraction of the reported size (or after twice it), records the measured size
// as the cache's effective_size_bytes with the sweep points around it (effective_size_range_bytes) and a
// note, and returns true. An edge that is not clearly the last level's (none found, or below twice the
// previous level's size) changes nothing. With `measure` (best GB/s at a working set, one thread, the curve's
// kernel) the edge is first narrowed to a bracket of at most k_edge_ratio (refine_edge).
// `applied`, when given, receives the edge that was recorded (only when the function returns true).
bool apply_effective_llc(core::Topology& topo, const std::vector<std::pair<double, double>>& one_thread_curve,
                         const std::function<double(double bytes)>& measure = {}, Edge* applied = nullptr);

// The edge found again later in the run (issue 22 section 3: the usable last level moves with the neighbours'
// use of it, within a run and between runs). From the earlier edge's bracket: while the point below it has
// left the cache (below the threshold) the bracket moves down by k_edge_recheck_step, while the point above
// is still in the cache it moves up, at most k_edge_recheck_steps times each way; then bisection as
// refine_edge to `max_ratio` in at most `max_steps` measurements. Returns the edge of now.
Edge recheck_edge(Edge earlier, const std::function<double(double bytes)>& measure, double max_ratio,
                  int max_steps);

// The widened usable range of the last level over the run: the brackets of both edges.
std::pair<std::uint64_t, std::uint64_t> edge_range(const Edge& a, const Edge& b);

// Memory's working set where the bandwidth has stopped falling (issue 22: on a VM the last level can serve
// far more than it reports or than the sweep's edge says, and a victim cache still serves part of a set a
// few times its size): from `start` bytes (the topology's rule), the size is doubled while the best
// bandwidth at twice it is more than `drop` below the bandwidth at it, as long as twice it stays within
// `cap`. `measure` gives the best GB/s at a working set (bytes in all). The points are the measurements in
// order; `bytes` is the larger of the first two sizes that agree (the one farther from any cache), or the
// last one tried when capped.
struct MemoryPlateau {
    std::uint64_t bytes = 0;
    std::vector<std::pair<std::uint64_t, double>> points;
    bool capped = false; // stopped by `cap` while the bandwidth was still falling
};
MemoryPlateau find_memory_plateau(std::uint64_t start, std::uint64_t cap, double drop,
                                  const std::function<double(std::uint64_t bytes)>& measure);

// The fall in bandwidth from a working set to its double that still counts as a cache serving part of it.
inline constexpr double k_memory_plateau_drop = 0.05;

// The bracket refine_edge narrows the last level's edge to, and the measurements it may spend.
inline constexpr double k_edge_ratio = 1.05;
inline constexpr int k_edge_steps = 4;
inline constexpr int k_edge_up_steps = 3;
// The recheck's step: two steps of the default sweep (x1.2), four of them span a factor 4.3.
inline constexpr double k_edge_recheck_step = 1.44;
inline constexpr int k_edge_recheck_steps = 4;

} // namespace roofcast::measure
