// The traffic a kernel implies per memory level: from its explicit bytes, its array counts, or its loop
// nest through the layer conditions (derive_traffic, model/kernel.hpp).
#include "model/kernel.hpp"
#include "model/kernel_detail.hpp"

#include "core/error.hpp"
#include "core/range.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <set>

namespace roofcast::model {

using detail::file_of;
using detail::k_l1_reuse_keys;
using detail::level_list;

namespace {

int resolve(const core::Machine& m, int threads) {
    if (threads > 0)
        return threads;
    return m.topology ? m.topology->cores : 1;
}

Traffic explicit_traffic(const KernelSpec& k, const core::Machine& m) {
    Traffic t;
    for (const auto& [level, v] : k.explicit_bytes) {
        (void)v;
        if (!m.level(level))
            throw core::InputError(file_of(k), "bytes_per_iteration." + level,
                                   "the machine '" + m.name + "' has no level '" + level +
                                       "' (levels: " + level_list(m) + ")");
    }
    // A level the kernel does not list passes on what the next listed level farther from the core
    // delivers (data from below flows through it); nothing listed farther out means no traffic there.
    std::optional<double> from_below;
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it) {
        auto given = k.explicit_bytes.find(it->name);
        if (given != k.explicit_bytes.end()) {
            t.bytes[it->name] = given->second;
            from_below = given->second;
        } else if (from_below) {
            t.bytes[it->name] = *from_below;
            t.notes.push_back(
                fmt::format("{}: not given, assumed {} B/iteration passing through from the level "
                            "below",
                            it->name, *from_below));
        } else {
            t.bytes[it->name] = 0;
            t.notes.push_back(it->name + ": not given and nothing listed below it, assumed 0 B/iteration");
        }
    }
    return t;
}

// Array counts: a level serves its own accesses plus everything that passes through it from below, so
// bytes(level) = element_bytes * (n_MEM + sum of n of the cache levels between MEM and this level);
// the level closest to the core also serves the L1 reuses.
Traffic count_traffic(const KernelSpec& k, const core::Machine& m) {
    Traffic t;
    const auto& counts = k.arrays->counts;
    for (const auto& [key, v] : counts) {
        (void)v;
        const bool is_reuse = k_l1_reuse_keys.count(key) > 0;
        const bool is_level = m.level(key) != nullptr && key != m.levels.front().name;
        if (!is_reuse && !is_level)
            throw core::InputError(file_of(k), "arrays." + key,
                                   "the machine '" + m.name + "' has no level '" + key +
                                       "' that can serve accesses (expected MEM, " +
                                       "a cache level other than " + m.levels.front().name +
                                       ", L1_short or L1_long; levels: " + level_list(m) + ")");
    }
    auto count = [&](const std::string& key) {
        auto it = counts.find(key);
        return it == counts.end() ? 0.0 : it->second;
    };
    double through = 0;
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it) {
        through += count(it->name);
        if (&*it == &m.levels.front())
            through += count("L1_short") + count("L1_long");
        t.bytes[it->name] = k.element_bytes * through;
    }
    t.accesses = counts;
    return t;
}

// ---- Layer conditions -------------------------------------------------------------------------------
// Stengel, Treibig, Hager & Wellein, "Quantifying performance bottlenecks of stencil computations using
// the Execution-Cache-Memory model", ICS 2015, Sect. 3.2, in the general form of Kerncraft (Hammer,
// Eitzinger, Hager & Wellein, "Kerncraft: A Tool for Analytic Performance Modeling of Loop Kernels",
// Tools for HPC 2016 / 2017, layer-condition predictor):
//   - linearise every access of an array to an element offset (row-major strides) and sort them;
//   - the reuse distance of an access is the offset gap to the next access of the same array that
//     touches the same data earlier; the leading access of each array has distance infinity;
//   - a cache keeps every reuse of distance <= t when
//         sum_{d <= t} d  +  t * #{d > t}  <=  safety * capacity           (all in bytes)
//     (the hits' distances must stay resident, and every stream that misses occupies t bytes);
//   - with the largest such t, each access of distance > t is a stream from the next level: a read
//     stream costs one element per iteration, a written array one element stored back, and, without
//     non-temporal stores, one more element loaded for write-allocate.
struct Distance {
    double bytes = std::numeric_limits<double>::infinity();
    int layer = 0; // loop depth of the reuse, 1 = innermost loop ("1-D" condition), inf: 0
};

struct ArrayStreams {
    double element_bytes = 8;
    std::vector<Distance> all;   // reads and writes (cache requirement)
    std::vector<Distance> loads; // reads, plus writes unless NT stores (write-allocate)
    std::vector<Distance> stores;
    std::vector<Distance> reads;
};

std::vector<Distance> distances(const std::vector<std::pair<long, std::vector<long>>>& sorted_desc,
                                const std::vector<std::string>& idx, const LoopNest& n,
                                double element_bytes) {
    std::vector<Distance> out;
    for (std::size_t i = 0; i < sorted_desc.size(); ++i) {
        Distance d;
        if (i > 0) {
            d.bytes = static_cast<double>(sorted_desc[i - 1].first - sorted_desc[i].first) * element_bytes;
            // The reuse belongs to the outermost loop whose index offset differs between the accesses.
            for (std::size_t dim = 0; dim < idx.size(); ++dim) {
                if (sorted_desc[i - 1].second[dim] != sorted_desc[i].second[dim]) {
                    const auto pos =
                        std::find(n.indices.begin(), n.indices.end(), idx[dim]) - n.indices.begin();
                    d.layer = static_cast<int>(n.indices.size()) - static_cast<int>(pos);
                    break;
                }
            }
        }
        out.push_back(d);
    }
    return out;
}

std::vector<ArrayStreams> streams_of(const KernelSpec& k) {
    const LoopNest& n = *k.loop;
    std::vector<ArrayStreams> out;
    for (const ArrayDecl& decl : n.arrays) {
        std::vector<long> strides(decl.dims.size(), 1);
        for (std::size_t d = decl.dims.size(); d-- > 1;)
            strides[d - 1] = strides[d] * decl.dims[d];
        using Offset = std::pair<long, std::vector<long>>;
        std::set<Offset, std::greater<>> reads, writes, all;
        std::vector<std::string> idx;
        for (const ArrayAccess& a : n.accesses) {
            if (a.array != decl.name)
                continue;
            idx = a.indices.empty()
                      ? std::vector<std::string>(n.indices.end() - static_cast<long>(a.offsets.size()),
                                                 n.indices.end())
                      : a.indices;
            long lin = 0;
            for (std::size_t d = 0; d < a.offsets.size(); ++d)
                lin += a.offsets[d] * strides[d];
            const Offset o{lin, a.offsets};
            (a.write ? writes : reads).insert(o);
            all.insert(o);
        }
        if (all.empty())
            continue;
        ArrayStreams s;
        s.element_bytes = type_bytes(decl.type, file_of(k), "loop.arrays." + decl.name + ".type");
        auto dist = [&](const std::set<Offset, std::greater<>>& set) {
            return distances(std::vector<Offset>(set.begin(), set.end()), idx, n, s.element_bytes);
        };
        std::set<Offset, std::greater<>> loads = reads;
        if (!k.nt_stores)
            loads.insert(writes.begin(), writes.end());
        s.all = dist(all);
        s.loads = dist(loads);
        s.stores = dist(writes);
        s.reads = dist(reads);
        out.push_back(s);
    }
    return out;
}

double requirement(const std::vector<ArrayStreams>& arrays, double t) {
    double req = 0;
    for (const auto& a : arrays)
        for (const auto& d : a.all)
            req += d.bytes <= t ? d.bytes : t;
    return req;
}

struct Condition {
    double t = 0;                        // largest reuse distance kept (bytes)
    double required = 0;                 // cache bytes that keeping it needs
    int layer = 0;                       // "k-D layer condition holds"; 0: none
    std::optional<double> next_required; // bytes the next condition would need
};

Condition condition_for(const std::vector<ArrayStreams>& arrays, double capacity) {
    std::set<double> candidates{0.0};
    for (const auto& a : arrays)
        for (const auto& d : a.all)
            if (std::isfinite(d.bytes))
                candidates.insert(d.bytes);
    Condition c;
    for (double t : candidates) {
        const double req = requirement(arrays, t);
        if (req <= capacity) {
            c.t = t;
            c.required = req;
        } else {
            c.next_required = req;
            break;
        }
    }
    for (const auto& a : arrays)
        for (const auto& d : a.all)
            if (d.bytes <= c.t)
                c.layer = std::max(c.layer, d.layer);
    return c;
}

struct Misses {
    double bytes = 0;
    double store_bytes = 0;
    double elements = 0;
};

Misses misses(const std::vector<ArrayStreams>& arrays, double t) {
    Misses m;
    for (const auto& a : arrays) {
        for (const auto* list : {&a.loads, &a.stores}) {
            for (const auto& d : *list) {
                if (d.bytes > t) {
                    m.bytes += a.element_bytes;
                    m.elements += 1;
                    if (list == &a.stores)
                        m.store_bytes += a.element_bytes;
                }
            }
        }
    }
    return m;
}

struct Capacity {
    double bytes = 0;
    std::string text;
};

Capacity capacity_of(const core::Machine& m, std::size_t level_index, int threads, double safety,
                     const std::string& machine_label) {
    const core::Level& lv = m.levels[level_index];
    double size = 0;
    int sharers = 1;
    const core::CacheInfo* info = nullptr;
    if (m.topology)
        for (const auto& c : m.topology->caches)
            if (c.name == lv.name)
                info = &c;
    if (info) {
        size = static_cast<double>(info->usable_bytes());
        // Threads are placed compactly (OMP_PROC_BIND=close): up to shared_by_cores threads share one
        // instance, and each gets an equal share of it.
        sharers = std::clamp(threads, 1, std::max(1, info->shared_by_cores));
    } else if (lv.size_bytes) {
        size = static_cast<double>(*lv.size_bytes);
    } else {
        throw core::InputError(machine_label, fmt::format("levels[{}].size_bytes", level_index),
                               "missing: the loop-nest kernel's layer conditions need the size of cache '" +
                                   lv.name + "' (or topology.caches)");
    }
    Capacity c;
    c.bytes = safety * size / sharers;
    c.text = fmt::format("{:g} % of {}{}", safety * 100, core::format_size(size),
                         sharers > 1 ? fmt::format(" / {} threads", sharers) : "");
    return c;
}

std::string condition_name(int layer) {
    return layer == 0 ? "no layer condition" : fmt::format("the {}-D layer condition", layer);
}

Traffic loop_traffic(const KernelSpec& k, const core::Machine& m, int threads,
                     const std::string& machine_label) {
    Traffic t;
    const auto arrays = streams_of(k);
    double l1_bytes = 0;
    double l1_store_bytes = 0;
    double l1_elements = 0;
    for (const auto& a : arrays) {
        const double n = static_cast<double>(a.reads.size() + a.stores.size());
        l1_bytes += n * a.element_bytes;
        l1_store_bytes += static_cast<double>(a.stores.size()) * a.element_bytes;
        l1_elements += n;
    }
    t.bytes[m.levels.front().name] = l1_bytes;
    t.write_bytes[m.levels.front().name] = l1_store_bytes;
    std::vector<double> miss_elements{l1_elements};
    for (std::size_t i = 1; i < m.levels.size(); ++i) {
        const Capacity cap = capacity_of(m, i - 1, threads, k.loop->safety_factor, machine_label);
        const Condition c = condition_for(arrays, cap.bytes);
        const Misses ms = misses(arrays, c.t);
        t.bytes[m.levels[i].name] = ms.bytes;
        t.write_bytes[m.levels[i].name] = ms.store_bytes;
        miss_elements.push_back(ms.elements);
        std::string note = fmt::format(
            "{}: {} holds in {} ({} needs {} <= {})", m.levels[i].name, condition_name(c.layer),
            m.levels[i - 1].name, c.layer == 0 ? "nothing" : "it", core::format_size(c.required), cap.text);
        if (c.next_required)
            note += fmt::format("; the next one would need {}", core::format_size(*c.next_required));
        note += fmt::format(" -> {:g} B/iteration", ms.bytes);
        t.notes.push_back(note);
        if (i == 1) {
            // L1 reuses in the array-count vocabulary: hits of the innermost loop are short-distance,
            // hits carried by an outer loop long-distance.
            double shorts = 0, longs = 0;
            for (const auto& a : arrays)
                for (const auto& d : a.reads)
                    if (d.bytes <= c.t)
                        (d.layer <= 1 ? shorts : longs) += 1;
            t.accesses["L1_short"] = shorts;
            t.accesses["L1_long"] = longs;
        }
    }
    // Element accesses served by each level beyond L1: what misses above it minus what misses below it.
    for (std::size_t i = 1; i < m.levels.size(); ++i) {
        const double below = i + 1 < m.levels.size() ? miss_elements[i + 1] : 0.0;
        t.accesses[m.levels[i].name] = miss_elements[i] - below;
    }
    if (k.nt_stores)
        t.notes.push_back("non-temporal stores: no write-allocate traffic");
    return t;
}

} // namespace

Traffic derive_traffic(const KernelSpec& k, const core::Machine& m, int threads) {
    return derive_traffic(k, m, threads, m.name);
}

Traffic derive_traffic(const KernelSpec& k, const core::Machine& m, int threads,
                       const std::string& machine_label) {
    check_kernel(k);
    if (m.levels.empty())
        throw core::InputError(machine_label, "levels", "expected at least one level (MEM)");
    const int n_threads = resolve(m, threads);
    Traffic t;
    if (!k.explicit_bytes.empty())
        t = explicit_traffic(k, m);
    else if (k.arrays)
        t = count_traffic(k, m);
    else
        t = loop_traffic(k, m, n_threads, machine_label);
    const bool any =
        std::any_of(t.bytes.begin(), t.bytes.end(), [](const auto& kv) { return kv.second > 0; });
    if (!any)
        throw core::InputError(file_of(k),
                               !k.explicit_bytes.empty() ? "bytes_per_iteration"
                               : k.arrays                ? "arrays"
                                                         : "loop",
                               "the kernel's traffic is zero at every level; nothing to model");
    return t;
}

} // namespace roofcast::model
