#include "measure/affinity.hpp"

#include <hwloc.h>
#include <memory>

namespace roofcast::measure {
namespace {

std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set))
                cpus.push_back(c);
    }
    if (cpus.empty())
        cpus.push_back(0);
    return cpus;
}

} // namespace

std::vector<int> core_cpus() {
    hwloc_topology_t topo = nullptr;
    if (hwloc_topology_init(&topo) != 0)
        return allowed_cpus();
    const std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner(topo, hwloc_topology_destroy);
    if (hwloc_topology_load(topo) != 0)
        return allowed_cpus();
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    const std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> allowed_owner(allowed, hwloc_bitmap_free);
    if (hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
    std::vector<int> cpus;
    const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < n; ++i) {
        const hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
        int pu = -1;
        hwloc_bitmap_foreach_begin(pu, core->cpuset) {
            if (hwloc_bitmap_isset(allowed, static_cast<unsigned>(pu))) {
                cpus.push_back(pu);
                break;
            }
        }
        hwloc_bitmap_foreach_end();
    }
    return cpus.empty() ? allowed_cpus() : cpus;
}

bool pin_current_thread(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0;
}

AffinityGuard::AffinityGuard() {
    CPU_ZERO(&m_saved);
    m_valid = sched_getaffinity(0, sizeof(m_saved), &m_saved) == 0;
}

AffinityGuard::~AffinityGuard() {
    if (m_valid)
        sched_setaffinity(0, sizeof(m_saved), &m_saved);
}

} // namespace roofcast::measure
