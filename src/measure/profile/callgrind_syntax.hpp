// The tokens of callgrind's format that parse_callgrind() (callgrind.cpp) reads line by line: numbers,
// subposition lists with their compression, compressed names, and callgrind's names of functions. Each
// reader returns "" or what was expected, which the parser reports with the file and the line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure::profile::callgrind_syntax {

// A non-negative integer, decimal or "0x" hexadecimal (the manual's Number), the whole of `w`.
bool parse_u64(std::string_view w, std::uint64_t& v);

// True when `s` holds only spaces and tabs.
bool blank(std::string_view s);

// The function a `fn=`/`cfn=` name stands for: callgrind names recursion level n+1 of `f` "f'n+1"
// (--separate-recs, dump.c's print_mangled_fn), which is `f`; demangled when still mangled.
std::string function_name(std::string_view raw);

// The subpositions of one cost line, as the `positions:` line orders them.
struct Position {
    std::uint64_t instr = 0, bb = 0;
    std::int64_t line = 0;
};

enum class Sub { instr, bb, line };

// The `positions:` value: some of instr, bb and line, in that order; nullopt otherwise.
std::optional<std::vector<Sub>> parse_positions(std::string_view value);

// "instr line", for messages.
std::string position_names(const std::vector<Sub>& subs);

// Reads one subposition list from the front of `s` into `out`: for each of `subs` an absolute number, or
// "+N", "-N", "*" relative to the same subposition of `base`. Returns "" or what was expected.
std::string read_position(std::string_view& s, const std::vector<Sub>& subs, const Position& base,
                          Position& out);

// Up to `n` counts (non-negative integers; missing ones are zero) on the rest of a line, into `out`.
std::string read_counts(std::string_view s, std::size_t n, const char* what, std::vector<double>& out);

// One id space of name compression (manual §3.1.5): `key=(id) name` makes id stand for name,
// `key=(id)` reuses it, `key=name` is the name itself.
class NameIds {
public:
    explicit NameIds(std::size_t max_ids) : m_max(max_ids) {}
    // The name `value` (what follows `key=`) stands for, into `name`; returns "" or what was expected.
    std::string resolve(const char* key, std::string_view value, std::string& name);

private:
    std::size_t m_max;
    std::map<std::uint64_t, std::string> m_ids;
};

} // namespace roofcast::measure::profile::callgrind_syntax
