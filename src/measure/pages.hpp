// The one allocation rule of every measured kernel: the machine's bandwidth kernels (StreamBuffers,
// measure/stream.cpp) and the suite's kernels (measure/suite/runners.hpp) both take their arrays from
// here, so the roofs and the kernels compared with them see the same pages.
// A 64-byte aligned, uninitialised array. Memory is not touched on allocation so that the first write
// (done by the threads that will use it, with the timed loop's schedule) places every page next to its
// core ("first touch"). Arrays of k_huge_page_from and more are aligned to 2 MiB and advised as transparent
// huge pages: bandwidths are measured without 4 KiB TLB misses where the kernel allows huge pages, and an
// array's set indices in a physically indexed L2 or L3 follow from its virtual address. On 4 KiB pages they
// depend on the physical pages a process happened to get (page colouring), so an L2-sized block ran at a
// different speed in every process (docs/design.md, "Huge pages from 64 KiB").
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace roofcast::measure {

inline constexpr std::size_t k_alignment = 64; // one cache line, and the widest vector register
inline constexpr std::size_t k_huge_page = std::size_t{2} << 20; // x86-64 transparent huge page
// Above 64 KiB an array spans many page colours of any L2 (a 1 MiB 16-way L2 has 16 of 4 KiB); below it
// an array stays on small pages rather than take 2 MiB.
inline constexpr std::size_t k_huge_page_from = std::size_t{64} << 10;

template <class T> class AlignedArray {
public:
    AlignedArray() = default;
    explicit AlignedArray(std::size_t n) : m_size(n) {
        // aligned_alloc requires a size that is a multiple of the alignment.
        const std::size_t want = n * sizeof(T);
        const std::size_t align = want >= k_huge_page_from ? k_huge_page : k_alignment;
        const std::size_t bytes = ((want + align - 1) / align) * align;
        void* p = std::aligned_alloc(align, bytes == 0 ? align : bytes);
        if (!p)
            throw std::bad_alloc();
        if (align == k_huge_page)
            madvise(p, bytes, MADV_HUGEPAGE); // advice only: without THP the pages stay 4 KiB
        m_data.reset(static_cast<T*>(p));
    }
    T* data() { return m_data.get(); }
    const T* data() const { return m_data.get(); }
    std::size_t size() const { return m_size; }
    T& operator[](std::size_t i) { return m_data.get()[i]; }
    const T& operator[](std::size_t i) const { return m_data.get()[i]; }

private:
    struct Free {
        void operator()(T* p) const { std::free(p); }
    };
    std::unique_ptr<T, Free> m_data;
    std::size_t m_size = 0;
};

} // namespace roofcast::measure
