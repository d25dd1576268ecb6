#include "measure/stream.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "measure/affinity.hpp"

#include <algorithm>
#include <cstdlib>
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>

namespace roofcast::measure {

// Per-ISA variants of the kernel bodies, generated from the one text in stream_kernels.inc.
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace isa_avx512 {
inline constexpr int k_lanes = 8;
#include "measure/stream_kernels.inc"
} // namespace isa_avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2")
namespace isa_avx2 {
inline constexpr int k_lanes = 4;
#include "measure/stream_kernels.inc"
} // namespace isa_avx2
#pragma GCC pop_options

namespace isa_sse {
inline constexpr int k_lanes = 2;
#include "measure/stream_kernels.inc"
} // namespace isa_sse

namespace {

// Elements per block: a multiple of every variant's block (8 vectors of up to 8 doubles).
constexpr std::uint64_t k_block_elements = 64;
// Padding between the arrays of one thread, so that a[i], b[i] and c[i] never share a 4 KiB
// page offset (4K aliasing stalls loads behind stores on Intel cores).
constexpr std::uint64_t k_array_pad_bytes = 320;

// Kernels, in report order. Write-allocate: a store to a line that is not resident first reads it
// (read-for-ownership), so copy moves 8 B read + 8 B allocate + 8 B written per 16 B requested;
// non-temporal stores write full lines without allocating them; update writes the line it read.
// (STREAM counts requested bytes only: McCalpin, "Memory Bandwidth and Machine Balance", 1995.)
const std::array<StreamDescriptor, 7> k_kernels{{
    {StreamKernel::load, "load", "s += a[i]", 1, 8, 0, 0, 1, false},
    {StreamKernel::store, "store", "a[i] = s", 1, 0, 8, 8, 0, false},
    {StreamKernel::copy, "copy", "a[i] = b[i]", 2, 8, 8, 8, 0, false},
    {StreamKernel::triad, "triad", "a[i] = b[i] + s*c[i]", 3, 16, 8, 8, 2, false},
    {StreamKernel::update, "update", "a[i] = s*a[i]", 1, 8, 8, 0, 1, false},
    {StreamKernel::copy_nt, "copy_nt", "a[i] = b[i] (non-temporal store)", 2, 8, 8, 0, 0, true},
    {StreamKernel::triad_nt, "triad_nt", "a[i] = b[i] + s*c[i] (non-temporal store)", 3, 16, 8, 0, 2, true},
}};

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

// One thread's arrays in one allocation (huge pages advised for large ones).
struct ThreadArrays {
    double* base = nullptr;
    double* a = nullptr;
    double* b = nullptr;
    double* c = nullptr;
};

ThreadArrays allocate_arrays(std::uint64_t n, int arrays) {
    const std::uint64_t stride = n * sizeof(double) + k_array_pad_bytes;
    const std::uint64_t huge = std::uint64_t{2} << 20;
    std::uint64_t bytes = stride * static_cast<std::uint64_t>(arrays);
    const std::uint64_t align = bytes >= huge ? huge : 64;
    bytes = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, bytes);
    if (!p)
        throw core::Error("cannot allocate " + std::to_string(bytes) + " bytes for a bandwidth kernel");
    if (align == huge)
        madvise(p, bytes, MADV_HUGEPAGE);
    ThreadArrays t;
    t.base = static_cast<double*>(p);
    auto at = [&](int k) {
        return reinterpret_cast<double*>(static_cast<char*>(p) + stride * static_cast<std::uint64_t>(k));
    };
    t.a = at(0);
    t.b = arrays > 1 ? at(1) : t.a;
    t.c = arrays > 2 ? at(2) : t.a;
    // First touch by the owning thread places the pages on its NUMA node.
    for (int k = 0; k < arrays; ++k)
        std::fill_n(at(k), n, 1.0 + k);
    return t;
}

} // namespace

const std::array<StreamDescriptor, 7>& stream_kernels() {
    return k_kernels;
}

const StreamDescriptor& stream_kernel(std::string_view name, std::string_view what) {
    for (const auto& d : k_kernels)
        if (d.name == name)
            return d;
    std::string list;
    for (const auto& d : k_kernels)
        list += (list.empty() ? "" : ", ") + std::string(d.name);
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
    switch (best_isa()) {
    case Isa::avx512:
        return "avx512";
    case Isa::avx2:
        return "avx2";
    case Isa::sse:
        break;
    }
    return "sse";
}

void pin_to_slot(int slot) {
    // Pinned at every region (a cheap system call): the thread pool's threads may have been moved by
    // other code in between, e.g. an AffinityGuard restoring the main thread's mask.
    static const std::vector<int> cpus = core_cpus();
    pin_current_thread(cpus[static_cast<std::size_t>(slot) % cpus.size()]);
}

core::BandwidthPoint measure_stream(const StreamDescriptor& d, int threads, std::uint64_t working_set_bytes,
                                    std::uint64_t l1_bytes_per_thread, const HarnessOptions& opt) {
    threads = std::max(1, threads);
    const std::uint64_t n = stream_elements_per_thread(d, threads, working_set_bytes);
    std::vector<ThreadArrays> arrays(static_cast<std::size_t>(threads));
    std::vector<double> sink(static_cast<std::size_t>(threads) * 8, 0.0);
    // The scalar comes through a volatile so that s = 1 cannot be folded away (a*1 -> a).
    volatile double scalar_source = 1.0;
    const double s = scalar_source;
    bool failed = false;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        pin_to_slot(t);
        try {
            arrays[static_cast<std::size_t>(t)] = allocate_arrays(n, d.arrays);
        } catch (const core::Error&) {
#pragma omp atomic write
            failed = true;
        }
    }
    auto release = [&] {
        for (auto& a : arrays)
            std::free(a.base);
    };
    if (failed) {
        release();
        throw core::Error("cannot allocate the arrays of kernel " + std::string(d.name) +
                          " for a working set of " + std::to_string(working_set_bytes) + " bytes");
    }
    // One parallel region per epoch: pin, start together, run all repetitions, join.
    auto body = [&](std::uint64_t reps) {
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num();
            pin_to_slot(t);
            const ThreadArrays& ta = arrays[static_cast<std::size_t>(t)];
#pragma omp barrier
            sink[static_cast<std::size_t>(t) * 8] += dispatch(d.kernel, ta.a, ta.b, ta.c, n, reps, s);
        }
    };
    Timing timing;
    try {
        timing = time_repeated(body, opt);
    } catch (...) {
        release();
        throw;
    }
    release();
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

} // namespace roofcast::measure
