#include "measure/pages.hpp"

#include <gtest/gtest.h>

#include <cstdint>

using namespace roofcast::measure;

namespace {
std::uintptr_t address(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p);
}
} // namespace

TEST(Pages, SmallArraysAreLineAligned) {
    AlignedArray<double> a(10);
    EXPECT_EQ(address(a.data()) % k_alignment, 0u);
    EXPECT_EQ(a.size(), 10u);
}

TEST(Pages, ArraysFromTheThresholdStartOnAHugePage) {
    // At the threshold and above, the array starts on a 2 MiB boundary, so its placement in a physically
    // indexed cache does not depend on which 4 KiB pages the process got.
    AlignedArray<char> at(k_huge_page_from);
    EXPECT_EQ(address(at.data()) % k_huge_page, 0u);
    AlignedArray<double> big(3 * k_huge_page / sizeof(double) + 1);
    EXPECT_EQ(address(big.data()) % k_huge_page, 0u);
    AlignedArray<char> below(k_huge_page_from - 1);
    EXPECT_EQ(address(below.data()) % k_alignment, 0u);
}
