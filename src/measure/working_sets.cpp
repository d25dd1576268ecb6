#include "measure/working_sets.hpp"

#include "core/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace roofcast::measure {

namespace {

std::uint64_t round_to_page(double bytes) {
    return std::max<std::uint64_t>(core::k_page_bytes,
                                   static_cast<std::uint64_t>(std::llround(bytes / core::k_page_bytes)) *
                                       core::k_page_bytes);
}

} // namespace

std::vector<std::uint64_t> sweep_sizes(std::uint64_t lo, std::uint64_t hi, double factor) {
    if (lo == 0 || hi < lo || !(factor > 1.0))
        throw std::invalid_argument("sweep_sizes: need 0 < lo <= hi and factor > 1");
    std::vector<std::uint64_t> out;
    double x = static_cast<double>(lo);
    for (;;) {
        const std::uint64_t s = round_to_page(x);
        if (out.empty() || s > out.back())
            out.push_back(s);
        if (out.back() >= hi)
            break;
        x *= factor;
    }
    return out;
}

std::vector<LevelWorkingSet> level_working_sets(const core::Topology& topo, int threads,
                                                std::uint64_t max_bytes, std::uint64_t memory_bytes) {
    threads = std::max(1, threads);
    std::vector<LevelWorkingSet> out;
    double prev_share = 0;
    for (const auto& c : topo.caches) {
        // Threads are pinned close together, so up to shared_by_cores of them use one instance.
        const int users = std::clamp(threads, 1, std::max(1, c.shared_by_cores));
        const double share = static_cast<double>(c.usable_bytes()) / users;
        double per_thread = share / 2;
        std::string rule = fmt::format("half of {} per thread{}", core::format_size(share),
                                       c.effective_size_bytes ? " (from the measured effective size)" : "");
        if (per_thread < 2 * prev_share) {
            per_thread = 2 * prev_share;
            rule = "twice the previous level per thread";
        }
        prev_share = share;
        LevelWorkingSet w{c.name, 0, round_to_page(per_thread), rule};
        w.bytes = w.per_thread * static_cast<std::uint64_t>(threads);
        out.push_back(w);
    }
    // Memory: four times the usable last-level cache (all instances), and at least 64 MiB in total.
    double llc_total = 0;
    if (!topo.caches.empty())
        llc_total = static_cast<double>(topo.caches.back().usable_bytes()) *
                    std::max(1, topo.caches.back().instances);
    const double mem = std::max(4 * llc_total, 64.0 * 1024 * 1024);
    LevelWorkingSet m{"MEM", 0, round_to_page(mem / threads), "four times the usable last-level cache"};
    if (static_cast<double>(memory_bytes) > mem) {
        m.per_thread = round_to_page(static_cast<double>(memory_bytes) / threads);
        m.rule = fmt::format("{} in all, where the measured bandwidth stops falling with the working set",
                             core::format_size(static_cast<double>(memory_bytes)));
    }
    m.bytes = m.per_thread * static_cast<std::uint64_t>(threads);
    out.push_back(m);
    for (auto& w : out)
        if (w.bytes > max_bytes) {
            w.per_thread = round_to_page(static_cast<double>(max_bytes) / threads);
            w.bytes = w.per_thread * static_cast<std::uint64_t>(threads);
            w.rule += fmt::format(", capped to {}", core::format_size(static_cast<double>(w.bytes)));
        }
    return out;
}

std::vector<LevelRange> level_ranges(const core::Topology& topo, int threads) {
    threads = std::max(1, threads);
    std::vector<LevelRange> out;
    double lo = 0;
    for (const auto& c : topo.caches) {
        // Compact pinning: t threads fill ceil(t / shared_by_cores) instances, at most all of them.
        const int sharing = std::max(1, c.shared_by_cores);
        const int used = std::clamp((threads + sharing - 1) / sharing, 1, std::max(1, c.instances));
        const double hi = static_cast<double>(c.usable_bytes()) * used;
        out.push_back({c.name, lo, hi});
        lo = hi;
    }
    out.push_back({"MEM", lo, std::numeric_limits<double>::infinity()});
    return out;
}

std::vector<std::optional<core::BandwidthCurve>>
level_curves(const std::vector<std::pair<double, double>>& sweep, const std::vector<LevelRange>& ranges) {
    std::vector<std::optional<core::BandwidthCurve>> out;
    for (const auto& r : ranges) {
        core::BandwidthCurve c;
        for (const auto& p : sweep)
            if (p.first >= r.lo && p.first <= r.hi)
                c.points.push_back(p);
        std::sort(c.points.begin(), c.points.end());
        if (c.points.size() >= 2)
            out.emplace_back(std::move(c));
        else
            out.emplace_back(std::nullopt);
    }
    return out;
}

std::optional<std::uint64_t> available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream ss(line.substr(13));
            std::uint64_t kib = 0;
            if (ss >> kib)
                return kib * 1024;
        }
    return std::nullopt;
}

} // namespace roofcast::measure
