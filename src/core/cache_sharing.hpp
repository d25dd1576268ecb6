// Which cores share a cache level and how large it is, one rule for every user: the suite's array sizes
// (cache_levels), the machine rows' noise kinds (core/machine_noise.hpp) and the bench rows' reference probe.
#pragma once

#include "core/machine.hpp"

#include <string>
#include <vector>

namespace roofcast::core {

// How many cores share cache `level`: its entry in topology.caches when the file has one; else, from the
// levels with a size_bytes (a hand-written file), the last of three or more sized caches is shared by every
// core of the topology and the others are private; 1 when nothing says otherwise.
int cache_shared_by(const Machine& m, const std::string& level);

// Per-instance capacity and sharing of a cache level, from topology.caches (preferred, its usable size) or
// levels[].size_bytes (then L1/L2 are taken as private and the last cache as shared by every core).
struct CacheLevel {
    std::string name;
    double bytes = 0;
    int shared_by = 1;
    int instances = 1;
    // Capacity one thread may count on when `threads` threads run one per core.
    double per_thread(int threads) const;
    double total() const { return bytes * instances; }
};
// The machine's caches, closest to the core first (none when it gives no size).
std::vector<CacheLevel> cache_levels(const Machine& m);
// The level named `name` among `caches`; nullptr when there is none.
const CacheLevel* find_cache(const std::vector<CacheLevel>& caches, const std::string& name);

} // namespace roofcast::core
