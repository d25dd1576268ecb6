// A 64-byte aligned, uninitialised array for the kernel suite. Memory is not touched on allocation so
// that the first write (done by the same threads, with the same static schedule as the timed loop)
// places every page next to the core that will use it ("first touch").
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace roofcast::measure::suite {

inline constexpr std::size_t k_alignment = 64; // one cache line, and the widest vector register

template <class T> class AlignedArray {
public:
    AlignedArray() = default;
    explicit AlignedArray(std::size_t n) : m_size(n) {
        // aligned_alloc requires a size that is a multiple of the alignment.
        const std::size_t bytes = ((n * sizeof(T) + k_alignment - 1) / k_alignment) * k_alignment;
        void* p = std::aligned_alloc(k_alignment, bytes == 0 ? k_alignment : bytes);
        if (!p)
            throw std::bad_alloc();
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

} // namespace roofcast::measure::suite
