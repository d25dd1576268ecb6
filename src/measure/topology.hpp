// Topology of the machine roofcast runs on, read through hwloc: packages, cores, hardware threads,
// NUMA nodes and every data/unified cache level with its size, line size, associativity and how
// many cores share one instance, plus the CPU model and its identity (vendor, family, model, stepping:
// measure/cpu_signature.hpp), the vector ISAs usable here, the data TLBs
// (cpuid, measure/tlb.hpp) and the transparent-huge-page mode.
#pragma once

#include "core/machine.hpp"

namespace roofcast::measure {

// Reads the topology of the whole machine (restricted to the CPUs this process may run on).
// Throws core::Error when hwloc cannot load a topology.
core::Topology detect_topology();

} // namespace roofcast::measure
