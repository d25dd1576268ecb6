// `roofcast machine` as a library call: detects the topology, measures the compute ceilings and the
// clock (measure/compute), sweeps bandwidth over working sets, detects the effective last-level cache,
// measures every level at working sets chosen from the topology, the stream capacity of memory and the
// last cache level (measure/stream_capacity), and the thread overhead; returns a
// complete measured core::Machine. Options are validated before anything is measured (InputError
// naming the option). Progress goes to an optional callback, never to a stream.
#pragma once

#include "core/machine.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

struct MachineOptions {
    bool quick = false;
    std::vector<int> threads;              // empty = {1, all cores}
    std::vector<std::string> kernels;      // empty = all (quick: load, copy, triad)
    std::vector<std::string> isas;         // compute ISAs; empty = all available
    std::optional<std::uint64_t> max_size; // largest working set, bytes
    bool mpi = true;                       // MPI ping-pong between two ranks (measure/mpi.hpp)
    bool stream_capacity = true;           // bandwidth against concurrent streams (measure/stream_capacity)
    std::function<void(double fraction, const std::string& what)> progress; // may be empty
};

// Revision of what `roofcast machine` measures: bumped whenever a new figure joins the machine file or a
// measurement changes, so that caches of machine files (roofcast run) are not reused across revisions
// (measure/host_identity.hpp).
// 2: MPI ping-pong and level curves. 3: adaptive settling, roofs as the median of the best epochs
// (Level::roof_choice). 4: stream capacity (MEM and the last cache level), data TLBs and huge pages.
// 5: roofs over the run's window (visits of every level's roof kernel, RoofChoice::visits). 6: arrays from
// 64 KiB on huge pages, private roofs held to their thread scaling (RoofChoice::thread_scaling). 7: memory's
// working set doubled until it is on memory's plateau (find_memory_plateau). 8: the CPU's identity
// (topology.vendor, family, model, stepping) and the file's own measurement_revision, which the machine cache
// compares with this host (measure/host_identity.hpp).
inline constexpr int k_measurement_revision = 8;

// Kernel used for a level's roof (Level::bandwidth_gbs): the first of core::roof_kernel_preference()
// (the catalogue's roof ranks) measured with the largest thread count; triad is the STREAM convention
// for sustainable bandwidth (Williams, Waterman & Patterson, CACM 2009, section 2 uses STREAM for the
// memory roof).

// Throws core::InputError (field = the option) for unknown kernels, thread counts < 1, or a
// max_size outside [64 KiB, half of the available memory].
void validate_machine_options(const MachineOptions& opt);

core::Machine measure_machine(const MachineOptions& opt);

// One bandwidth point measured exactly as `roofcast machine` measures a level (the same kernel code,
// per-thread buffers with first touch, pinning and harness settings; `quick` as --quick): the
// counterpart of `likwid-bench -t KERNEL -w S0:SIZE:THREADS`, for comparisons point by point.
// Throws core::InputError for an unknown kernel, threads < 1 or a working set outside [4 KiB, half
// of the available memory].
core::BandwidthPoint measure_bandwidth_point(const std::string& kernel, int threads,
                                             std::uint64_t working_set_bytes, bool quick);

} // namespace roofcast::measure
