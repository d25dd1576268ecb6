// What the host did to a measurement: steal time from /proc/stat (the time the hypervisor ran another
// guest on a VM's vCPUs) and the thread-scaling sanity check of private cache levels. The parsers and
// checks are pure functions of their inputs (unit-tested on fixture text); only read_proc_stat() reads.
#pragma once

#include "core/machine.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure {

// The aggregate "cpu" line of /proc/stat, in clock ticks (proc(5)).
struct CpuTimes {
    std::uint64_t busy = 0;  // user + nice + system + irq + softirq
    std::uint64_t idle = 0;  // idle + iowait
    std::uint64_t steal = 0; // 8th field; absent on old kernels (0)
    std::uint64_t total() const { return busy + idle + steal; }
};

// Parses the first line starting with "cpu " of /proc/stat text; nullopt when none or malformed.
std::optional<CpuTimes> parse_proc_stat(std::string_view text);
// /proc/stat of this host now; nullopt when unreadable.
std::optional<CpuTimes> read_proc_stat();
// Fraction of all CPU time between two readings that was stolen; nullopt when no time passed.
std::optional<double> steal_fraction(const CpuTimes& before, const CpuTimes& after);

// A private cache level at k threads should deliver about k times one thread's bandwidth (each thread has
// its own cache). True when k_threads_gbs >= (1 - tolerance) * k * one_thread_gbs.
bool scales_with_threads(double one_thread_gbs, double k_threads_gbs, int k, double tolerance);

// A private level's roof at `threads` over (threads x its one-thread roof), issue 22 section 2: the median of
// the `best` fastest epochs of the level's measurement of `kernel` at `threads` together with `extra` (the
// visits' epochs of the same kernel), over threads x the same statistic of its one-thread measurement.
// nullopt below two threads or without both measurements.
std::optional<double> roof_thread_scaling(const core::Level& level, std::string_view kernel, int threads,
                                          const std::vector<double>& extra, std::size_t best);

} // namespace roofcast::measure
