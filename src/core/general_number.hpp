// A number as printf("%.<precision>g") writes it, the form of the figures in roofcast's CSV and formulas.
#pragma once

#include <cstddef>

namespace roofcast::core {

// The most characters format_general writes.
inline constexpr std::size_t k_general_chars = 32;

// Writes v as printf("%.<precision>g") does (and std::to_chars(general, precision), C++17
// [charconv.to.chars]) at `out`, which has room for k_general_chars; returns the end. The digits come from
// the shortest text that reads back as v (Ryu, which std::to_chars uses), rounded to `precision`: the same
// digits as the exact value's at a fraction of the cost, for a million rows. Up to 15 digits two texts of
// that many digits lie further apart than a double's rounding interval, so the shortest text, padded or
// rounded, is the exact value's rounding; a tie in the shortest text, subnormal numbers (fewer digits of
// their own) and precisions over 15 take the exact conversion.
char* format_general(char* out, double v, int precision);

} // namespace roofcast::core
