#include "measure/topology.hpp"

#include "core/error.hpp"
#include "measure/compute.hpp"
#include "measure/cpu_signature.hpp"
#include "measure/tlb.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <hwloc.h>

namespace roofcast::measure {

namespace {

// RAII owner of an hwloc topology.
struct HwlocTopology {
    hwloc_topology_t topo = nullptr;
    HwlocTopology() {
        if (hwloc_topology_init(&topo) != 0)
            throw core::Error("hwloc: cannot initialise a topology");
        if (hwloc_topology_load(topo) != 0) {
            hwloc_topology_destroy(topo);
            throw core::Error("hwloc: cannot load the topology of this machine");
        }
    }
    ~HwlocTopology() { hwloc_topology_destroy(topo); }
    HwlocTopology(const HwlocTopology&) = delete;
    HwlocTopology& operator=(const HwlocTopology&) = delete;
    int count(hwloc_obj_type_t t) const { return std::max(0, hwloc_get_nbobjs_by_type(topo, t)); }
};

std::string cpu_model_name(hwloc_topology_t topo) {
    const hwloc_obj_t root = hwloc_get_root_obj(topo);
    if (const char* v = hwloc_obj_get_info_by_name(root, "CPUModel"))
        return v;
    if (const hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0))
        if (const char* v = hwloc_obj_get_info_by_name(pkg, "CPUModel"))
            return v;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            const auto colon = std::find(line.begin(), line.end(), ':');
            if (colon != line.end())
                return std::string(std::find_if(colon + 1, line.end(), [](char ch) { return ch != ' '; }),
                                   line.end());
        }
    return "unknown";
}

} // namespace

core::Topology detect_topology() {
    const HwlocTopology h;
    core::Topology t;
    t.cpu_model = cpu_model_name(h.topo);
    const CpuSignature sig = detect_cpu_signature();
    if (!sig.vendor.empty()) {
        t.vendor = sig.vendor;
        t.family = sig.family;
        t.model_number = sig.model;
        t.stepping = sig.stepping;
    }
    t.isa = available_isas();
    t.packages = std::max(1, h.count(HWLOC_OBJ_PACKAGE));
    t.cores = std::max(1, h.count(HWLOC_OBJ_CORE));
    t.hw_threads = std::max(1, h.count(HWLOC_OBJ_PU));
    t.numa_nodes = std::max(1, h.count(HWLOC_OBJ_NUMANODE));
    // Data and unified caches only (instruction caches do not serve the streams we measure).
    const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                       HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
    for (std::size_t i = 0; i < std::size(levels); ++i) {
        const int n = h.count(levels[i]);
        if (n == 0)
            continue;
        const hwloc_obj_t c = hwloc_get_obj_by_type(h.topo, levels[i], 0);
        if (c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
            continue;
        core::CacheInfo ci;
        ci.name = fmt::format("L{}", c->attr->cache.depth);
        ci.size_bytes = c->attr->cache.size;
        if (c->attr->cache.linesize > 0)
            ci.line_bytes = c->attr->cache.linesize;
        // hwloc: associativity 0 = unknown, -1 = fully associative.
        if (c->attr->cache.associativity > 0)
            ci.associativity = c->attr->cache.associativity;
        ci.instances = n;
        ci.shared_by_cores =
            std::max(1, hwloc_get_nbobjs_inside_cpuset_by_type(h.topo, c->cpuset, HWLOC_OBJ_CORE));
        t.caches.push_back(ci);
    }
    t.tlb = detect_tlb();
    t.huge_pages = detect_huge_pages();
    return t;
}

} // namespace roofcast::measure
