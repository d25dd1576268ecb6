// The streaming engine of the bandwidth kernels of the catalogue (core/stream_catalogue.hpp: load,
// store, copy, triad, update, copy_nt, triad_nt): buffers, pinning, timing, and the function that turns a
// timing into requested and actually moved bytes per second. Kernels run OpenMP-parallel with one thread
// pinned per core, first-touch placement (each thread allocates and initialises its own 64-byte aligned
// chunk) and one parallel region per timing epoch. They are written with explicit vectors of the widest ISA
// the CPU supports (runtime dispatch) and a compiler barrier between repetitions, so that no
// optimisation fuses repetitions and every repetition really moves its bytes.
#pragma once

#include "core/machine.hpp"
#include "core/stream_catalogue.hpp"
#include "measure/harness.hpp"
#include "measure/pages.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure {

// The descriptors live in the kernel catalogue (core/stream_catalogue.hpp); measure uses them by name.
using core::StreamDescriptor;
using core::StreamKernel;

// The one table of kernels, in the order they are reported.
const std::array<StreamDescriptor, core::k_stream_kernel_count>& stream_kernels();
// Looks a kernel up by name; throws core::InputError(field = `what`) listing the valid names.
const StreamDescriptor& stream_kernel(std::string_view name, std::string_view what = "kernels");

// Bytes per element asked for by the program (reads + writes), and actually moved between a cache
// level and the one below it: write-allocate adds a read of every written line that is not
// resident; a working set that fits in L1 moves no allocation traffic (beyond_l1 = false).
int requested_bytes_per_element(const StreamDescriptor& d);
int moved_bytes_per_element(const StreamDescriptor& d, bool beyond_l1);
double moved_per_requested(const StreamDescriptor& d, bool beyond_l1);

// Elements per thread for a total working set (all arrays, all threads), rounded down to whole
// vector blocks (at least one block).
std::uint64_t stream_elements_per_thread(const StreamDescriptor& d, int threads,
                                         std::uint64_t working_set_bytes);
std::uint64_t stream_block_elements();

// Widest vector ISA the kernels use on this CPU ("avx512", "avx2" or "sse").
std::string stream_isa();

// One buffer per thread, allocated and first-touched by that (pinned) thread, large enough for any
// kernel up to a total working set; the kernels of a sweep run on prefixes of it, so a sweep
// allocates and faults its memory in once instead of once per point.
class StreamBuffers {
public:
    StreamBuffers(int threads, std::uint64_t max_working_set_bytes); // throws core::Error when out of memory
    StreamBuffers(const StreamBuffers&) = delete;
    StreamBuffers& operator=(const StreamBuffers&) = delete;
    int threads() const { return m_threads; }
    double* base(int thread) const { return m_arrays[static_cast<std::size_t>(thread)].data(); }
    std::uint64_t bytes_per_thread() const { return m_bytes_per_thread; }
    std::uint64_t max_working_set_bytes() const;

private:
    int m_threads = 1;
    std::uint64_t m_bytes_per_thread = 0;
    // One per thread, allocated and first touched by it. Mutable: the kernels write into the arrays of
    // a buffer set that itself does not change.
    mutable std::vector<AlignedArray<double>> m_arrays;
};

// Measures one kernel with the buffers' pinned threads over a total working set (at most the
// buffers' maximum); gbs counts requested bytes (decimal GB/s), moved_per_requested the
// write-allocate factor at this size. `repetitions`, when given, receives the calls per epoch (to fix them in
// a later measurement of the same point: HarnessOptions::fixed_repetitions).
core::BandwidthPoint measure_stream(const StreamDescriptor& d, std::uint64_t working_set_bytes,
                                    std::uint64_t l1_bytes_per_thread, const HarnessOptions& opt,
                                    const StreamBuffers& buffers, std::uint64_t* repetitions = nullptr);
// The same with buffers allocated for this one measurement.
core::BandwidthPoint measure_stream(const StreamDescriptor& d, int threads, std::uint64_t working_set_bytes,
                                    std::uint64_t l1_bytes_per_thread, const HarnessOptions& opt);

// Runs `reps` passes of a kernel on one thread's arrays with the widest ISA (n a multiple of
// stream_block_elements(), arrays 64-byte aligned; b and c are ignored by kernels that do not read
// them). Returns the load kernel's sum (0 for the others). Exposed so that tests can check that
// every repetition is really executed.
double run_stream_kernel(StreamKernel k, double* a, const double* b, const double* c, std::uint64_t n,
                         std::uint64_t reps, double s);

// Pins the calling thread to the slot-th physical core of core_cpus() (wrapping).
void pin_to_slot(int slot);
// Pins thread t of an OpenMP team of `threads` to slot t (pin_to_slot), with dynamic teams off: the one
// placement of every measuring team (the bandwidth kernels and the suite's runners).
void pin_team(int threads);

} // namespace roofcast::measure
