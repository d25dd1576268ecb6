// Which cores share a cache level, one rule for every user: the suite's array sizes (model::cache_levels),
// the machine rows' noise kinds (core/machine_noise.hpp) and the bench rows' reference probe.
#pragma once

#include "core/machine.hpp"

#include <string>

namespace roofcast::core {

// How many cores share cache `level`: its entry in topology.caches when the file has one; else, from the
// levels with a size_bytes (a hand-written file), the last of three or more sized caches is shared by every
// core of the topology and the others are private; 1 when nothing says otherwise.
int cache_shared_by(const Machine& m, const std::string& level);

} // namespace roofcast::core
