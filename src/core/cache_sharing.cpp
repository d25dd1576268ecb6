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

double CacheLevel::per_thread(int threads) const {
    const int sharing = std::max(1, std::min(shared_by, threads));
    return bytes / sharing;
}

const CacheLevel* find_cache(const std::vector<CacheLevel>& caches, const std::string& name) {
    for (const auto& c : caches)
        if (c.name == name)
            return &c;
    return nullptr;
}

std::vector<CacheLevel> cache_levels(const Machine& m) {
    std::vector<CacheLevel> out;
    if (m.topology && !m.topology->caches.empty()) {
        for (const auto& c : m.topology->caches)
            out.push_back({c.name, static_cast<double>(c.usable_bytes()), std::max(1, c.shared_by_cores),
                           std::max(1, c.instances)});
        return out;
    }
    const int cores = m.topology ? m.topology->cores : 1;
    for (const auto& l : m.levels) {
        if (l.name == "MEM" || !l.size_bytes)
            continue;
        const int shared_by = cache_shared_by(m, l.name);
        out.push_back({l.name, static_cast<double>(*l.size_bytes), shared_by, shared_by > 1 ? 1 : cores});
    }
    return out;
}

} // namespace roofcast::core
