// Working sets of the bandwidth measurements: the geometric sweep sizes, and the per-level working
// sets chosen from the real topology (levels named from the hardware; a level the machine does not
// have is never invented). Pure functions of their inputs, unit-tested on fake topologies.
#pragma once

#include "core/machine.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure {

// Geometric sizes from `lo` to at least `hi` (the last size is the first one >= hi), each `factor`
// times the previous one, rounded to multiples of 4 KiB, strictly increasing. Requires lo > 0,
// hi >= lo, factor > 1 (std::invalid_argument otherwise).
std::vector<std::uint64_t> sweep_sizes(std::uint64_t lo, std::uint64_t hi, double factor);

struct LevelWorkingSet {
    std::string level;            // "L1", "L2", "L3", "MEM"
    std::uint64_t bytes = 0;      // total working set, all threads and arrays
    std::uint64_t per_thread = 0; // bytes per thread
    std::string rule;             // how it was chosen, for the output
};

// One working set per cache level and one for memory, for `threads` threads:
// per thread, half of the thread's share of the level (share = usable size / threads using one
// instance) and at least twice the previous level's share; memory at least 4x the usable last-level
// cache in total. Sizes above max_bytes are capped (rule says so).
// `memory_bytes`, when larger, is memory's working set in all (the run's find_memory_plateau).
std::vector<LevelWorkingSet> level_working_sets(const core::Topology& topo, int threads,
                                                std::uint64_t max_bytes, std::uint64_t memory_bytes = 0);

// Range of total working sets (all threads and arrays, bytes) in which a level serves the data of a
// streaming kernel on `threads` compactly pinned threads: from the combined capacity of the level above
// (0 for L1) to the level's own combined capacity (usable size x the instances the threads use);
// memory from the last-level cache's capacity on, without an upper end.
struct LevelRange {
    std::string level;
    double lo = 0;
    double hi = 0; // +infinity for MEM
};
std::vector<LevelRange> level_ranges(const core::Topology& topo, int threads);

// Each level's bandwidth curve: the points of a sweep curve (bytes, GB/s) that fall in the level's
// range, x = working_set. A level with fewer than two points in its range gets no curve (nullopt).
std::vector<std::optional<core::BandwidthCurve>>
level_curves(const std::vector<std::pair<double, double>>& sweep, const std::vector<LevelRange>& ranges);

// Bytes of memory available to the process now (MemAvailable), or nullopt when unknown.
std::optional<std::uint64_t> available_memory_bytes();

} // namespace roofcast::measure
