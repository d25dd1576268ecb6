// One parser and one formatter for sizes and rates. Decimal (kB, MB, GB = 10^3k) and binary
// (KiB, MiB, GiB = 2^10k) prefixes are kept distinct: "32KiB" = 32768 bytes, "32kB" = 32000 bytes.
// Bandwidths in roofcast are decimal GB/s (10^9 B/s) and compute rates GFLOP/s (10^9 FLOP/s).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace roofcast::core {

inline constexpr double k_giga = 1e9;
// The page size buffers are rounded to (a huge-page-free 4 KiB page).
inline constexpr std::uint64_t k_page_bytes = 4096;

// Parses "4096", "32KiB", "1.5 MiB", "2GB", "64k" (k = KiB for sizes, as caches are binary).
// Throws InputError(file="", field=what) naming the expected form on bad input or a negative size.
std::uint64_t parse_size(std::string_view text, std::string_view what = "size");

// Formats bytes with binary prefixes, 3 significant digits: "48 KiB", "1.25 MiB", "512 B".
std::string format_size(double bytes);
// Formats a rate with decimal prefixes: format_rate(1.5e9, "B/s") -> "1.50 GB/s".
std::string format_rate(double per_second, std::string_view unit);
// Formats seconds with an SI prefix: "12.3 ns", "4.56 us", "1.20 s".
std::string format_seconds(double seconds);

} // namespace roofcast::core
