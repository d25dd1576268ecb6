#include "core/general_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <string>

using roofcast::core::format_general;
using roofcast::core::k_general_chars;

namespace {

std::string fast(double v, int precision) {
    char buf[k_general_chars];
    return std::string(buf, format_general(buf, v, precision));
}

std::string exact(double v, int precision) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
    return std::string(buf, r.ptr);
}

} // namespace

// Every digit, exponent and layout as the exact conversion writes it: doubles from random bit patterns (every
// exponent, subnormals included), decimals with few digits (whose shortest text is short: ties, carries into
// a new digit, the switch between fixed and scientific at 1e-4 and 10^precision), and the extremes.
TEST(GeneralNumber, WritesWhatTheExactConversionWrites) {
    const int precisions[] = {1, 2, 3, 6, 8, 10, 15, 16, 17};
    std::uint64_t x = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 30000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v = 0.0;
        std::memcpy(&v, &x, sizeof v);
        if (!std::isfinite(v))
            continue;
        for (const int p : precisions)
            ASSERT_EQ(fast(v, p), exact(v, p)) << v << " at precision " << p;
    }
    for (int digits = 1; digits <= 3000; digits += digits < 1000 ? 1 : 7)
        for (int e = -12; e <= 12; ++e)
            for (const double v : {digits * std::pow(10.0, e), -(digits + 0.5) * std::pow(10.0, e),
                                   (digits - 0.05) * std::pow(10.0, e)})
                for (const int p : precisions)
                    ASSERT_EQ(fast(v, p), exact(v, p)) << v << " at precision " << p;
    for (const double v :
         {0.0, -0.0, 0.125, 2.5, 9.9999999995, 99999.5, 0.00010000000005, 1e-5, 123456789012.0, 5e-324,
          2.2250738585072014e-308, 1.7976931348623157e308, 1e22, 1e23})
        for (const int p : precisions)
            EXPECT_EQ(fast(v, p), exact(v, p)) << v << " at precision " << p;
    EXPECT_EQ(fast(std::nan(""), 10), exact(std::nan(""), 10));
    EXPECT_EQ(fast(-INFINITY, 8), "-inf");
}
