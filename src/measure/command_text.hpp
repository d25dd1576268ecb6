// The text of `threads --command`: the command line split into a program and its arguments, {n} and {s}
// substituted, and the time a run printed found with --time-regex. Pure functions of their text (no
// program is run), so that fuzz/fuzz_command.cpp drives them as the launcher does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

// Splits 'PROGRAM ARGS' at blanks, honouring single and double quotes. Throws core::InputError
// (field "command") on an empty command, an unclosed quote, or arguments without {n}.
std::vector<std::string> split_command(const std::string& text);

// {n} and {s} replaced in every argument.
std::vector<std::string> substitute(const std::vector<std::string>& args, std::uint64_t n, int s);

// Bounds of --time-regex: the pattern's length, the longest line of the output it is matched against, and
// how much of the output (its end) is searched.
inline constexpr std::size_t k_time_regex_max_chars = 1000;
inline constexpr std::size_t k_time_line_max_chars = 4096;
inline constexpr std::size_t k_time_output_max_bytes = std::size_t{64} << 20;

// InputError (field "time_regex") for a pattern that is too long or not a valid ECMAScript regex; nothing
// for an empty one (wall time).
void check_time_regex(const std::string& regex);

// The seconds a program printed: the first line of `output` holding a match of `regex` (its first group
// when it has one), parsed as a number; lines longer than k_time_line_max_chars are not searched (their
// count in `long_lines`). nullopt when nothing matches or the text is not a finite non-negative number.
std::optional<double> parse_printed_time(const std::string& output, const std::string& regex,
                                         std::size_t* long_lines = nullptr);

} // namespace roofcast::measure
