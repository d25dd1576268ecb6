// A bound on the nesting depth of JSON and YAML text, checked before any parser or reader recurses: a
// results file nested 30,000 deep must be a one-line error, not a stack overflow in a recursive reader.
// The scan counts '[' and '{' outside quoted strings and comments (JSON, and YAML's flow style) and
// YAML's block indentation; it is linear in the text and allocates nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace roofcast::core {

// Deeper than any roofcast file needs (results: 6 levels; machine files: 7).
inline constexpr std::size_t k_max_nesting = 64;
// YAML block nesting shows as indentation: more leading spaces than this is refused.
inline constexpr std::size_t k_max_indent = 512;

// Throws InputError(file, "", "nested deeper than ...") when the text exceeds the bounds.
void check_nesting(std::string_view text, const std::string& file, std::size_t max_depth = k_max_nesting);

} // namespace roofcast::core
