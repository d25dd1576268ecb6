#include "core/error.hpp"
#include "measure/stream.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <memory>

using namespace roofcast;
using namespace roofcast::measure;

TEST(StreamDescriptors, BytesPerElement) {
    // Requested bytes: reads + writes of 8-byte doubles.
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("load")), 8);
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("store")), 8);
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("copy")), 16);
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("triad")), 24);
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("update")), 16);
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("copy_nt")), 16);
    EXPECT_EQ(requested_bytes_per_element(stream_kernel("triad_nt")), 24);
}

TEST(StreamDescriptors, WriteAllocateBeyondL1) {
    // copy: 8 read + 8 allocate + 8 written = 24 moved per 16 requested.
    EXPECT_EQ(moved_bytes_per_element(stream_kernel("copy"), true), 24);
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("copy"), true), 1.5);
    // Non-temporal stores allocate nothing: 16 per 16.
    EXPECT_EQ(moved_bytes_per_element(stream_kernel("copy_nt"), true), 16);
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("copy_nt"), true), 1.0);
    // triad: 16 read + 8 allocate + 8 written = 32 per 24.
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("triad"), true), 32.0 / 24.0);
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("triad_nt"), true), 1.0);
    // store: 8 allocate + 8 written per 8.
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("store"), true), 2.0);
    // update writes the line it has just read: no extra traffic.
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("update"), true), 1.0);
    EXPECT_DOUBLE_EQ(moved_per_requested(stream_kernel("load"), true), 1.0);
    // Inside L1 the written lines are resident: nothing is allocated.
    for (const auto& d : stream_kernels())
        EXPECT_DOUBLE_EQ(moved_per_requested(d, false), 1.0) << d.name;
}

TEST(StreamDescriptors, UnknownKernelNamesTheValidOnes) {
    try {
        stream_kernel("daxpy", "--kernels");
        FAIL() << "expected an InputError";
    } catch (const core::InputError& e) {
        EXPECT_EQ(e.field(), "--kernels");
        const std::string what = e.what();
        EXPECT_NE(what.find("daxpy"), std::string::npos);
        EXPECT_NE(what.find("load, store, copy, triad, update, copy_nt, triad_nt"), std::string::npos);
    }
}

TEST(StreamDescriptors, ElementsPerThreadRoundToBlocks) {
    // triad, 2 threads, 1 MiB: 1048576 / (2 threads x 3 arrays x 8 B) = 21845.3 -> 341 blocks of 64 = 21824.
    EXPECT_EQ(stream_elements_per_thread(stream_kernel("triad"), 2, 1024 * 1024), 21824u);
    // Too small a working set still gets one block.
    EXPECT_EQ(stream_elements_per_thread(stream_kernel("copy"), 4, 100), stream_block_elements());
}

namespace {

struct FreeDeleter {
    void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double, FreeDeleter>;

Array make_array(std::size_t n, double value) {
    Array a(static_cast<double*>(std::aligned_alloc(64, n * sizeof(double))));
    for (std::size_t i = 0; i < n; ++i)
        a.get()[i] = value;
    return a;
}

} // namespace

TEST(StreamKernels, EveryRepetitionIsExecuted) {
    // If repetitions were fused or dropped, these results would differ.
    const std::uint64_t n = 2 * stream_block_elements();
    auto a = make_array(n, 1.0);
    auto b = make_array(n, 2.0);
    auto c = make_array(n, 3.0);
    // load: 3 passes over n ones sum to 3n.
    EXPECT_DOUBLE_EQ(run_stream_kernel(StreamKernel::load, a.get(), b.get(), c.get(), n, 3, 1.0), 3.0 * n);
    // update with s = 2, 3 passes: 1 * 2^3 = 8 everywhere.
    run_stream_kernel(StreamKernel::update, a.get(), b.get(), c.get(), n, 3, 2.0);
    for (std::uint64_t i = 0; i < n; ++i)
        ASSERT_DOUBLE_EQ(a.get()[i], 8.0) << i;
    // triad: a = b + s*c = 2 + 0.5 * 3 = 3.5.
    run_stream_kernel(StreamKernel::triad, a.get(), b.get(), c.get(), n, 2, 0.5);
    EXPECT_DOUBLE_EQ(a.get()[n - 1], 3.5);
    // triad_nt gives the same values through non-temporal stores.
    run_stream_kernel(StreamKernel::triad_nt, a.get(), c.get(), b.get(), n, 1, 0.5);
    EXPECT_DOUBLE_EQ(a.get()[0], 4.0); // 3 + 0.5 * 2
    run_stream_kernel(StreamKernel::copy_nt, a.get(), b.get(), c.get(), n, 1, 0.0);
    EXPECT_DOUBLE_EQ(a.get()[n / 2], 2.0);
    run_stream_kernel(StreamKernel::store, a.get(), b.get(), c.get(), n, 1, 7.0);
    EXPECT_DOUBLE_EQ(a.get()[3], 7.0);
    run_stream_kernel(StreamKernel::copy, a.get(), c.get(), b.get(), n, 1, 0.0);
    EXPECT_DOUBLE_EQ(a.get()[n - 1], 3.0);
}

TEST(StreamKernels, MeasureReportsTheRoundedWorkingSetAndAllSamples) {
    HarnessOptions opt;
    opt.epochs = 3;
    opt.min_epoch_seconds = 0.0005;
    const auto p = measure_stream(stream_kernel("copy"), 1, 64 * 1024, 48 * 1024, opt);
    EXPECT_EQ(p.kernel, "copy");
    EXPECT_EQ(p.threads, 1);
    // 64 KiB / (2 arrays x 8 B) = 4096 elements = 64 blocks: the working set is exact.
    EXPECT_EQ(p.working_set_bytes, 64u * 1024u);
    EXPECT_EQ(p.gbs.n, 3u);
    EXPECT_EQ(p.gbs.samples.size(), 3u);
    EXPECT_GT(p.gbs.min, 0.0);
    EXPECT_DOUBLE_EQ(p.moved_per_requested, 1.5); // 64 KiB per thread exceed the 48 KiB L1
}
