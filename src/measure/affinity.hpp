// Thread placement for measurements: which logical CPU to pin each measuring thread to so that the
// threads land on distinct physical cores (hwloc topology, restricted to the CPUs this process may use),
// and a scoped pin of the calling thread that restores its previous affinity mask.
#pragma once

#include <sched.h>
#include <vector>

namespace roofcast::measure {

// One OS CPU index per physical core the process may run on, in hwloc's logical core order (the first
// allowed hardware thread of each core). Never empty: falls back to the allowed CPU list.
std::vector<int> core_cpus();

// Pins the calling thread to `cpu`; false when the OS refuses (e.g. the CPU is not in the cgroup).
bool pin_current_thread(int cpu);

// Restores the calling thread's affinity mask on destruction.
class AffinityGuard {
public:
    AffinityGuard();
    ~AffinityGuard();
    AffinityGuard(const AffinityGuard&) = delete;
    AffinityGuard& operator=(const AffinityGuard&) = delete;

private:
    cpu_set_t m_saved;
    bool m_valid = false;
};

} // namespace roofcast::measure
