#include "core/cache_sharing.hpp"

#include <algorithm>
#include <vector>

namespace roofcast::core {

int cache_shared_by(const Machine& m, const std::string& level) {
    if (m.topology && !m.topology->caches.empty()) {
        for (const auto& c : m.topology->caches)
            if (c.name == level)
                return std::max(1, c.shared_by_cores);
        return 1;
    }
    std::vector<const Level*> sized;
    for (const auto& l : m.levels)
        if (l.name != "MEM" && l.size_bytes)
            sized.push_back(&l);
    const int cores = m.topology ? std::max(1, m.topology->cores) : 1;
    return sized.size() > 2 && sized.back()->name == level ? cores : 1;
}

} // namespace roofcast::core
