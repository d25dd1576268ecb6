#include "measure/stream_capacity.hpp"

#include "core/error.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <omp.h>
#include <optional>
#include <utility>

namespace roofcast::measure {

// Per-ISA variants of the kernels, generated from the one text in stream_capacity_kernels.inc and
// chosen at run time from CPUID, as the bandwidth kernels are (docs/design.md, "Stream capacity").
#define ROOFCAST_VARIANTS_OF "measure/stream_capacity_kernels.inc"
#define ROOFCAST_VARIANTS_NS capacity
#include "measure/isa_variants.inc"

namespace {

constexpr std::uint64_t k_stream_pad_bytes = 320; // five lines: 5 is odd, so S < 64 offsets differ mod 4 KiB

std::optional<std::size_t> slot_of(int streams) {
    const auto it = std::find(k_capacity_streams.begin(), k_capacity_streams.end(), streams);
    if (it == k_capacity_streams.end())
        return std::nullopt;
    return static_cast<std::size_t>(it - k_capacity_streams.begin());
}

std::size_t checked_slot(int streams) {
    const auto slot = slot_of(streams);
    if (!slot)
        throw core::Error(fmt::format("stream capacity: no kernel for {} streams (have {})", streams,
                                      fmt::join(k_capacity_streams, ", ")));
    return *slot;
}

double dispatch(bool write, std::size_t slot, double* base, std::uint64_t stride, std::uint64_t n,
                std::uint64_t reps, double value) {
    static const std::string isa = stream_isa();
    if (isa == "avx512")
        return capacity_avx512::run_capacity(write, slot, base, stride, n, reps, value);
    if (isa == "avx2")
        return capacity_avx2::run_capacity(write, slot, base, stride, n, reps, value);
    return capacity_sse::run_capacity(write, slot, base, stride, n, reps, value);
}

} // namespace

std::vector<int> capacity_streams(bool quick) {
    if (quick)
        return {1, 2, 4, 8, 16, 32};
    return {k_capacity_streams.begin(), k_capacity_streams.end()};
}

std::optional<int> capacity_of(const std::vector<core::StreamCapacityPoint>& points, double keep) {
    double best = 0;
    for (const auto& p : points)
        best = std::max(best, p.gbs.median);
    if (!(best > 0))
        return std::nullopt;
    std::optional<int> cap;
    for (const auto& p : points)
        if (p.gbs.median >= keep * best)
            cap = std::max(cap.value_or(p.streams), p.streams);
    return cap;
}

std::uint64_t capacity_stride_bytes(std::uint64_t elements) {
    return (elements * sizeof(double) + core::k_page_bytes - 1) / core::k_page_bytes * core::k_page_bytes +
           k_stream_pad_bytes;
}

std::uint64_t capacity_elements(std::uint64_t working_set_bytes, int threads, int streams,
                                std::uint64_t bytes_per_thread) {
    const auto per_stream = static_cast<std::uint64_t>(std::max(1, threads)) *
                            static_cast<std::uint64_t>(std::max(1, streams)) * sizeof(double);
    std::uint64_t n =
        std::max<std::uint64_t>(1, working_set_bytes / per_stream / k_capacity_block) * k_capacity_block;
    // The largest n whose S strides fit the buffer: n x 8 rounded up to a page <= room - pad.
    const std::uint64_t room = bytes_per_thread / static_cast<std::uint64_t>(std::max(1, streams));
    const std::uint64_t fit_bytes =
        room > k_stream_pad_bytes ? (room - k_stream_pad_bytes) / core::k_page_bytes * core::k_page_bytes : 0;
    const std::uint64_t fit = fit_bytes / sizeof(double) / k_capacity_block * k_capacity_block;
    if (fit < k_capacity_block)
        throw core::Error(fmt::format("stream capacity: {} bytes per thread cannot hold {} streams",
                                      bytes_per_thread, streams));
    return std::min(n, fit);
}

HarnessOptions capacity_harness(bool quick) {
    HarnessOptions h;
    h.epochs = quick ? 4 : 7;
    h.min_epoch_seconds = quick ? 0.004 : 0.008;
    return h;
}

core::StreamCapacity time_stream_capacity(const StreamCapacitySetup& setup, const CapacityPass& pass,
                                          const Clock& clock) {
    core::StreamCapacity sc;
    sc.level = setup.level;
    sc.access = setup.access;
    sc.threads = std::max(1, setup.threads);
    sc.working_set_bytes = setup.working_set_bytes;
    struct Count {
        int streams = 1;
        std::uint64_t n = 0;
        std::uint64_t reps = 1;
        std::vector<double> seconds; // per pass, one per round
    };
    std::vector<Count> counts;
    // Warm-up and calibration of every stream count by the harness's own rule (its one epoch is not kept).
    HarnessOptions calibrate = setup.harness;
    calibrate.epochs = 1;
    calibrate.settle_best = 0;
    for (int s : setup.streams) {
        checked_slot(s);
        Count c{s, capacity_elements(setup.working_set_bytes, sc.threads, s, setup.bytes_per_thread), 1, {}};
        c.reps = time_repeated([&](std::uint64_t reps) { pass(s, c.n, reps); }, calibrate, clock).repetitions;
        counts.push_back(std::move(c));
    }
    // Rounds of one epoch per stream count, so that a drift of the host during the measurement reaches
    // every stream count alike instead of bending the curve (as the suite's interleaved rounds do).
    HarnessOptions round = setup.harness;
    round.warmup_calls = 0;
    round.epochs = 1;
    round.settle_best = 0;
    for (int r = 0; r < std::max(1, setup.harness.epochs); ++r)
        for (Count& c : counts) {
            round.fixed_repetitions = c.reps;
            const Timing t =
                time_repeated([&](std::uint64_t reps) { pass(c.streams, c.n, reps); }, round, clock);
            c.seconds.push_back(t.seconds_per_call.median);
        }
    for (const Count& c : counts) {
        const double requested = static_cast<double>(c.n) * c.streams * sc.threads * sizeof(double);
        const core::Summary times = *core::summarize(c.seconds);
        sc.points.push_back(
            {c.streams, core::scaled(core::rate_from_times(times, requested), 1.0 / core::k_giga)});
    }
    sc.capacity = capacity_of(sc.points);
    return sc;
}

std::uint64_t capacity_bytes_per_thread(std::uint64_t working_set_bytes, int threads,
                                        const std::vector<int>& streams) {
    std::uint64_t need = 0;
    for (int s : streams) {
        const std::uint64_t n =
            capacity_elements(working_set_bytes, threads, s, std::numeric_limits<std::uint64_t>::max() / 2);
        need = std::max(need, static_cast<std::uint64_t>(std::max(1, s)) * capacity_stride_bytes(n));
    }
    return need;
}

core::StreamCapacity measure_stream_capacity(StreamCapacitySetup setup, const StreamBuffers& shared) {
    const int threads = shared.threads();
    // Buffers of their own when the shared ones cannot hold the padded arrays (a run with a small
    // maximum working set).
    const std::uint64_t need = capacity_bytes_per_thread(setup.working_set_bytes, threads, setup.streams);
    std::optional<StreamBuffers> own;
    if (need > shared.bytes_per_thread())
        own.emplace(threads, need * static_cast<std::uint64_t>(threads));
    const StreamBuffers& buffers = own ? *own : shared;
    setup.threads = threads;
    setup.bytes_per_thread = buffers.bytes_per_thread();
    const bool write = setup.access == "write";
    std::vector<double> sink(static_cast<std::size_t>(threads) * 8, 0.0);
    // The stored value comes through a volatile so the compiler cannot treat it as a known constant.
    volatile double value_source = 1.0;
    const double value = value_source;
    // One parallel region per epoch: pin, start together, run all repetitions, join.
    auto pass = [&](int streams, std::uint64_t n, std::uint64_t reps) {
        const std::size_t slot = checked_slot(streams);
        const std::uint64_t stride = capacity_stride_bytes(n) / sizeof(double);
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num();
            pin_to_slot(t);
#pragma omp barrier
            sink[static_cast<std::size_t>(t) * 8] +=
                dispatch(write, slot, buffers.base(t), stride, n, reps, value);
        }
    };
    return time_stream_capacity(setup, pass, steady_clock());
}

double run_capacity_kernel(bool write, int streams, double* base, std::uint64_t n, std::uint64_t reps,
                           double value) {
    return dispatch(write, checked_slot(streams), base, capacity_stride_bytes(n) / sizeof(double), n, reps,
                    value);
}

} // namespace roofcast::measure
