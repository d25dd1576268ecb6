// The phases of `roofcast machine` (measure_machine, measure/machine_run.hpp), in the order it runs them:
// the plan, then per thread count the working-set sweep, the last level's edge and memory's working set
// (first thread count only), the start of the roof visits, the per-level measurements, the stream capacity
// (last thread count only) and the steal time; then the compute ceilings, the thread overhead, the last
// level's edge again, the closing roof visits, the roof choice, the level curves and the MPI ping-pong.
// The state they share is one MachineRun; each phase reads and writes it and nothing else, so a phase that
// measures nothing (the roof choice, the level curves) runs in a unit test on a made-up run, and the roof
// visits take the injected clock of measure/roof_visits.hpp.
#pragma once

#include "core/machine.hpp"
#include "measure/harness.hpp"
#include "measure/machine_run.hpp"
#include "measure/plateaus.hpp"
#include "measure/roof_visits.hpp"
#include "measure/stream.hpp"
#include "measure/working_sets.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::machine_phases {

inline constexpr std::uint64_t k_mib = 1024 * 1024;
// A roof is the median of the best k_roof_best epochs, sampled until they agree within k_roof_tolerance
// (docs/design.md): 3 is the fewest for which a median rejects one outlier, and 2 % is a fifth of the
// 10 % run-to-run repeatability asked of the roofs (issue 22), so settling cannot use up that budget.
inline constexpr int k_roof_best = 3;
inline constexpr double k_roof_tolerance = 0.02;

// The first of core::roof_kernel_preference() among `kernels`; empty when none of them is.
std::string preferred_kernel(const std::vector<std::string>& kernels);

// L1 capacity of one thread, which decides where write-allocate traffic starts (32 KiB when the topology
// names no cache).
std::uint64_t l1_bytes_per_thread(const core::Topology& topo);

// The sweep's points of one kernel and thread count as (working set, GB/s), by working set. `stat` picks the
// figure of each point: the best epoch (default) for detection, the median for the levels' reported curves.
std::vector<std::pair<double, double>> curve_of(const std::vector<core::BandwidthPoint>& sweep,
                                                const std::string& kernel, int threads,
                                                double core::Summary::*stat = &core::Summary::max);

struct Plan {
    std::vector<int> threads;
    std::vector<std::string> sweep_kernels;
    std::vector<std::string> level_kernels;
    double sweep_factor = 1.2;
    std::uint64_t cap = 0;
    HarnessOptions sweep_harness;
    HarnessOptions level_harness;
    HarnessOptions overhead_harness;
    // Roofs over the run's window: the roof kernel (the first of core::roof_kernel_preference() measured
    // at the levels; empty: no visits), its harness per visit and the visits' schedule.
    std::string roof_kernel;
    HarnessOptions visit_harness;
    RoofVisitOptions visit_options;
};

// Everything the phases share: the options, the machine being filled in, the topology (made effective by the
// first sweep), the plan and what the sweep and the roof visits carry from one phase to the next.
struct MachineRun {
    explicit MachineRun(const MachineOptions& options) : opt(options) {}
    MachineRun(const MachineRun&) = delete;
    MachineRun& operator=(const MachineRun&) = delete;

    const MachineOptions& opt;
    core::Machine m;
    core::Topology topo;
    Plan plan;
    // Set by plan_sweep: the sweep's working sets, one thread's L1, the progress bar's shares and the
    // roof's thread count (the largest).
    std::vector<std::uint64_t> sizes;
    std::uint64_t l1_per_thread = 0;
    double per_thread_count = 1;
    double sweep_jobs = 0;
    double level_jobs = 0;
    int roof_threads = 1;
    std::uint64_t memory_bytes = 0; // memory's working set in all, from find_memory_plateau
    // Roofs over the run's window (measure/roof_visits.hpp): absent until begin_visits, or without a roof
    // kernel.
    std::optional<StreamBuffers> visit_buffers;
    std::optional<RoofVisits> visits;
    // The last level's edge from the first sweep, found again at the end of the run (recheck_edge).
    std::optional<Edge> first_edge;
    std::string edge_kernel;

    // Reports progress (clamped to [0, 1]) when the options ask for it.
    void progress(double fraction, const std::string& what) const;
    // A roof visit when the visits have begun and their schedule allows.
    void maybe_visit();
};

// One thread count's pass over the bandwidth phases: its index in the plan, the count, its start on the
// progress bar and the buffers (first-touched once) of its sweep and levels.
struct ThreadPass {
    std::size_t ti = 0;
    int t = 1;
    double base = 0;
    const StreamBuffers& buffers;
};

// The phases, in the order measure_machine runs them.
void plan_sweep(MachineRun& run);
void measure_thread_count(MachineRun& run, std::size_t ti);
void sweep_working_sets(MachineRun& run, const ThreadPass& pass);
void first_sweep_findings(MachineRun& run, const ThreadPass& pass);
void begin_visits(MachineRun& run);
void measure_levels(MachineRun& run, const ThreadPass& pass, const std::vector<LevelWorkingSet>& sets);
void measure_capacity(MachineRun& run, const ThreadPass& pass, const std::vector<LevelWorkingSet>& sets);
void measure_ceilings(MachineRun& run);
void measure_overhead(MachineRun& run);
void recheck_last_level(MachineRun& run);
void close_visits(MachineRun& run);
void choose_roofs(MachineRun& run);
void attach_level_curves(MachineRun& run);
void measure_mpi_pair(MachineRun& run);

} // namespace roofcast::measure::machine_phases
