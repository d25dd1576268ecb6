#include "measure/stream.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "measure/affinity.hpp"

#include <algorithm>
#include <immintrin.h>
#include <omp.h>

namespace roofcast::measure {

// Per-ISA variants of the kernel bodies, generated from the one text in stream_kernels.inc.
#define ROOFCAST_VARIANTS_OF "measure/stream_kernels.inc"
#define ROOFCAST_VARIANTS_NS isa
#include "measure/isa_variants.inc"

namespace {

// Elements per block: a multiple of every variant's block (8 vectors of up to 8 doubles).
constexpr std::uint64_t k_block_elements = 64;
// Padding between the arrays of one thread, so that a[i], b[i] and c[i] never share a 4 KiB
// page offset (4K aliasing stalls loads behind stores on Intel cores).
constexpr std::uint64_t k_array_pad_bytes = 320;

enum class Isa { avx512, avx2, sse };

Isa best_isa() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return Isa::avx512;
    if (__builtin_cpu_supports("avx2"))
        return Isa::avx2;
    return Isa::sse;
}

double dispatch(StreamKernel k, double* a, const double* b, const double* c, std::uint64_t n,
                std::uint64_t reps, double s) {
    static const Isa isa = best_isa();
    switch (isa) {
    case Isa::avx512:
        return isa_avx512::run_kernel(k, a, b, c, n, reps, s);
    case Isa::avx2:
        return isa_avx2::run_kernel(k, a, b, c, n, reps, s);
    case Isa::sse:
        break;
    }
    return isa_sse::run_kernel(k, a, b, c, n, reps, s);
}

// The arrays of one kernel inside a thread's buffer, each `stride` bytes after the previous one.
struct ThreadArrays {
    double* a = nullptr;
    double* b = nullptr;
    double* c = nullptr;
};

std::uint64_t array_stride_bytes(std::uint64_t n) {
    return n * sizeof(double) + k_array_pad_bytes;
}

ThreadArrays arrays_in(double* base, std::uint64_t n, int arrays) {
    auto at = [&](int k) {
        return reinterpret_cast<double*>(reinterpret_cast<char*>(base) +
                                         array_stride_bytes(n) * static_cast<std::uint64_t>(k));
    };
    return {at(0), arrays > 1 ? at(1) : at(0), arrays > 2 ? at(2) : at(0)};
}

} // namespace

const std::array<StreamDescriptor, core::k_stream_kernel_count>& stream_kernels() {
    return core::k_stream_catalogue;
}

const StreamDescriptor& stream_kernel(std::string_view name, std::string_view what) {
    if (const StreamDescriptor* d = core::find_stream_kernel(name))
        return *d;
    const std::string list = core::stream_kernel_names(", ");
    throw core::InputError("", std::string(what),
                           "unknown kernel '" + std::string(name) + "', expected one of " + list);
}

int requested_bytes_per_element(const StreamDescriptor& d) {
    return d.bytes_read + d.bytes_written;
}

int moved_bytes_per_element(const StreamDescriptor& d, bool beyond_l1) {
    return requested_bytes_per_element(d) + (beyond_l1 ? d.write_allocate : 0);
}

double moved_per_requested(const StreamDescriptor& d, bool beyond_l1) {
    return static_cast<double>(moved_bytes_per_element(d, beyond_l1)) / requested_bytes_per_element(d);
}

double run_stream_kernel(StreamKernel k, double* a, const double* b, const double* c, std::uint64_t n,
                         std::uint64_t reps, double s) {
    return dispatch(k, a, b, c, n, reps, s);
}

std::uint64_t stream_block_elements() {
    return k_block_elements;
}

std::uint64_t stream_elements_per_thread(const StreamDescriptor& d, int threads,
                                         std::uint64_t working_set_bytes) {
    const std::uint64_t per_thread =
        working_set_bytes / (static_cast<std::uint64_t>(std::max(1, threads)) *
                             static_cast<std::uint64_t>(d.arrays) * sizeof(double));
    return std::max<std::uint64_t>(1, per_thread / k_block_elements) * k_block_elements;
}

std::string stream_isa() {
    // Names in the order of the Isa enumerators.
    static constexpr std::array<const char*, 3> k_names{"avx512", "avx2", "sse"};
    return k_names[static_cast<std::size_t>(best_isa())];
}

void pin_to_slot(int slot) {
    // Pinned at every region (a cheap system call): the thread pool's threads may have been moved by
    // other code in between, e.g. an AffinityGuard restoring the main thread's mask.
    static const std::vector<int> cpus = core_cpus();
    pin_current_thread(cpus[static_cast<std::size_t>(slot) % cpus.size()]);
}

void pin_team(int threads) {
    omp_set_dynamic(0);
#pragma omp parallel num_threads(std::max(1, threads))
    pin_to_slot(omp_get_thread_num());
}

StreamBuffers::StreamBuffers(int threads, std::uint64_t max_working_set_bytes)
    : m_threads(std::max(1, threads)) {
    const std::uint64_t per_thread =
        max_working_set_bytes / static_cast<std::uint64_t>(m_threads) + 4 * k_array_pad_bytes;
    const std::uint64_t align = per_thread >= k_huge_page ? k_huge_page : k_alignment;
    m_bytes_per_thread = (per_thread + align - 1) / align * align;
    m_arrays.resize(static_cast<std::size_t>(m_threads));
    bool failed = false;
#pragma omp parallel num_threads(m_threads)
    {
        const int t = omp_get_thread_num();
        pin_to_slot(t);
        try {
            AlignedArray<double> mine(m_bytes_per_thread / sizeof(double));
            // First touch by the owning (pinned) thread places the pages on its NUMA node.
            std::fill_n(mine.data(), mine.size(), 1.0);
            m_arrays[static_cast<std::size_t>(t)] = std::move(mine);
        } catch (const std::bad_alloc&) {
#pragma omp atomic write
            failed = true;
        }
    }
    if (failed)
        throw core::Error("cannot allocate " + std::to_string(m_bytes_per_thread) +
                          " bytes per thread for the bandwidth kernels");
}

std::uint64_t StreamBuffers::max_working_set_bytes() const {
    return (m_bytes_per_thread - 4 * k_array_pad_bytes) * static_cast<std::uint64_t>(m_threads);
}

core::BandwidthPoint measure_stream(const StreamDescriptor& d, std::uint64_t working_set_bytes,
                                    std::uint64_t l1_bytes_per_thread, const HarnessOptions& opt,
                                    const StreamBuffers& buffers, std::uint64_t* repetitions) {
    const int threads = buffers.threads();
    const std::uint64_t n = stream_elements_per_thread(d, threads, working_set_bytes);
    if (array_stride_bytes(n) * static_cast<std::uint64_t>(d.arrays) > buffers.bytes_per_thread())
        throw core::Error("measure_stream: working set of " + std::to_string(working_set_bytes) +
                          " bytes exceeds the buffers allocated for it");
    std::vector<double> sink(static_cast<std::size_t>(threads) * 8, 0.0);
    // The scalar comes through a volatile so that s = 1 cannot be folded away (a*1 -> a).
    volatile double scalar_source = 1.0;
    const double s = scalar_source;
    // One parallel region per epoch: pin, start together, run all repetitions, join.
    auto body = [&](std::uint64_t reps) {
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num();
            pin_to_slot(t);
            const ThreadArrays ta = arrays_in(buffers.base(t), n, d.arrays);
#pragma omp barrier
            sink[static_cast<std::size_t>(t) * 8] += dispatch(d.kernel, ta.a, ta.b, ta.c, n, reps, s);
        }
    };
    const Timing timing = time_repeated(body, opt);
    if (repetitions)
        *repetitions = timing.repetitions;
    const std::uint64_t elements = n * static_cast<std::uint64_t>(threads);
    core::BandwidthPoint p;
    p.kernel = std::string(d.name);
    p.threads = threads;
    p.working_set_bytes = elements * static_cast<std::uint64_t>(d.arrays) * sizeof(double);
    const double requested = static_cast<double>(elements) * requested_bytes_per_element(d);
    p.gbs = core::scaled(core::rate_from_times(timing.seconds_per_call, requested), 1.0 / core::k_giga);
    p.moved_per_requested = moved_per_requested(d, n * sizeof(double) * static_cast<std::uint64_t>(d.arrays) >
                                                       l1_bytes_per_thread);
    return p;
}

core::BandwidthPoint measure_stream(const StreamDescriptor& d, int threads, std::uint64_t working_set_bytes,
                                    std::uint64_t l1_bytes_per_thread, const HarnessOptions& opt) {
    const StreamBuffers buffers(threads, working_set_bytes);
    return measure_stream(d, working_set_bytes, l1_bytes_per_thread, opt, buffers);
}

} // namespace roofcast::measure
