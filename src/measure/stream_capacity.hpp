// Stream capacity: bandwidth against the number of concurrent streams at one level (MEM or the last
// cache level), for reads (a loop summing S arrays) and writes (a loop storing S arrays). Every thread
// of the team (one per core, the bandwidth kernels' pinning) runs its own S arrays, WS / (threads x S)
// bytes each, so the working set stays the level's at every S. Each point is timed with the one harness
// and keeps its samples; the capacity is the largest S whose median bandwidth keeps k_capacity_keep of
// the best point's. The timing logic takes the pass to time and the clock as arguments, so it is
// unit-tested on a fake timer; measure_stream_capacity binds them to the real kernels and clock.
#pragma once

#include "core/machine.hpp"
#include "measure/harness.hpp"
#include "measure/stream.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

// The stream counts a kernel exists for (one compiled loop each), fewest first.
inline constexpr std::array<int, 10> k_capacity_streams{1, 2, 4, 6, 8, 12, 16, 20, 24, 32};
// The share of the best bandwidth a stream count must keep to be within capacity.
inline constexpr double k_capacity_keep = 0.9;
// Elements per stream are a multiple of this (eight vectors of up to eight doubles).
inline constexpr std::uint64_t k_capacity_block = 64;

// Stream counts measured: every one of k_capacity_streams, or 1, 2, 4, 8, 16, 32 in a quick run.
std::vector<int> capacity_streams(bool quick);

// Largest stream count whose median keeps `keep` of the best median; nullopt without points (or
// without a positive median).
std::optional<int> capacity_of(const std::vector<core::StreamCapacityPoint>& points,
                               double keep = k_capacity_keep);

// Bytes from one array of a thread to the next for n elements: n x 8 rounded up to 4 KiB plus five
// cache lines, so the S arrays start at distinct 4 KiB offsets (no set conflicts among the streams
// themselves, no 4K aliasing between loads and stores).
std::uint64_t capacity_stride_bytes(std::uint64_t elements);

// Elements per stream and thread for a total working set: WS / (threads x S x 8) rounded down to
// k_capacity_block, at least one block, and at most what lets the S arrays fit `bytes_per_thread`.
// Throws core::Error when not even one block per stream fits.
std::uint64_t capacity_elements(std::uint64_t working_set_bytes, int threads, int streams,
                                std::uint64_t bytes_per_thread);

struct StreamCapacitySetup {
    std::string level;  // "MEM" or the last cache level's name
    std::string access; // "read" | "write"
    int threads = 1;
    std::uint64_t working_set_bytes = 0; // all streams and threads
    std::vector<int> streams;            // increasing, each one of k_capacity_streams
    std::uint64_t bytes_per_thread = 0;  // buffer space of one thread
    HarnessOptions harness;
};

// Harness settings of the capacity points: few short epochs (quick: 4 of 4 ms, else 7 of 8 ms), so the
// four measurements of a machine run cost about 1 s (quick) and 4 s. Settling is not used.
HarnessOptions capacity_harness(bool quick);

// Performs `reps` passes of the S-stream kernel over n elements per stream with every thread.
using CapacityPass = std::function<void(int streams, std::uint64_t n, std::uint64_t reps)>;

// Times every stream count of the setup with `pass` and `clock`: each count is warmed up and calibrated
// by the harness, then the epochs run in rounds (one epoch of every count per round); gbs counts the
// requested bytes (n x S x threads x 8 per pass, decimal GB/s). Throws core::Error for a stream count
// without a kernel.
core::StreamCapacity time_stream_capacity(const StreamCapacitySetup& setup, const CapacityPass& pass,
                                          const Clock& clock);

// Bytes one thread's arrays take for the largest layout among `streams` (no buffer limit).
std::uint64_t capacity_bytes_per_thread(std::uint64_t working_set_bytes, int threads,
                                        const std::vector<int>& streams);

// The measurement on the real kernels (widest ISA of this CPU) over the buffers' pinned threads; the
// setup's threads and bytes_per_thread are taken from the buffers. When they cannot hold the padded
// arrays of every stream count, it allocates buffers of its own for the same threads.
core::StreamCapacity measure_stream_capacity(StreamCapacitySetup setup, const StreamBuffers& buffers);

// One thread's work: `reps` passes of the S-stream read kernel (returns the sum of every element read,
// over all passes) or write kernel (stores `value` everywhere, returns 0) over S arrays of n elements
// (a multiple of k_capacity_block), capacity_stride_bytes(n) apart from `base` (64-byte aligned), with
// the widest ISA of this CPU. Exposed so tests can check that every pass really runs.
double run_capacity_kernel(bool write, int streams, double* base, std::uint64_t n, std::uint64_t reps,
                           double value = 1.0);

} // namespace roofcast::measure
