#include "core/error.hpp"
#include "core/units.hpp"

#include <gtest/gtest.h>

using namespace roofcast::core;

TEST(Units, ParseSizesBinaryAndDecimalDistinct) {
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_EQ(parse_size("32KiB"), 32768u);
    EXPECT_EQ(parse_size("32kB"), 32000u);
    EXPECT_EQ(parse_size("1.5 MiB"), 1572864u);
    EXPECT_EQ(parse_size("2GB"), 2000000000u);
    EXPECT_EQ(parse_size("64k"), 65536u);
}

TEST(Units, ParseSizeErrorsNameFieldAndExpectation) {
    try {
        parse_size("-4KiB", "--min-size");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "--min-size");
        EXPECT_NE(std::string(e.what()).find("non-negative size"), std::string::npos);
    }
    EXPECT_THROW(parse_size("12 parsecs"), InputError);
    EXPECT_THROW(parse_size(""), InputError);
    EXPECT_THROW(parse_size("nanKiB"), InputError);
}

TEST(Units, Format) {
    EXPECT_EQ(format_size(512), "512 B");
    EXPECT_EQ(format_size(49152), "48.0 KiB");
    EXPECT_EQ(format_size(1310720), "1.25 MiB");
    EXPECT_EQ(format_rate(1.5e9, "B/s"), "1.50 GB/s");
    EXPECT_EQ(format_rate(111e9, "FLOP/s"), "111 GFLOP/s");
    EXPECT_EQ(format_seconds(12.3e-9), "12.3 ns");
    EXPECT_EQ(format_seconds(4.56e-6), "4.56 us");
}
