#include "measure/profile/callgrind_syntax.hpp"

#include "core/error.hpp"
#include "core/names.hpp"
#include "measure/profile/cachegrind.hpp" // demangle
#include "measure/profile/text.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <limits>

namespace roofcast::measure::profile::callgrind_syntax {

bool parse_u64(std::string_view w, std::uint64_t& v) {
    int base = 10;
    if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        w.remove_prefix(2);
        base = 16;
    }
    if (w.empty() || w[0] == '+' || w[0] == '-')
        return false;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
    return ec == std::errc() && end == w.data() + w.size();
}

bool blank(std::string_view s) {
    return s.find_first_not_of(" \t") == std::string_view::npos;
}

std::string function_name(std::string_view raw) {
    const auto q = raw.rfind('\'');
    if (q != std::string_view::npos && q > 0 && q + 1 < raw.size() &&
        std::all_of(raw.begin() + static_cast<std::ptrdiff_t>(q) + 1, raw.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
        raw = raw.substr(0, q);
    return demangle(std::string(raw));
}

namespace {

constexpr core::NameTable<Sub, 3> k_sub_names{{{Sub::instr, "instr"}, {Sub::bb, "bb"}, {Sub::line, "line"}}};

// `base` moved by "+v" / "-v" (sign) or replaced by v (no sign), within [0, max]; nullopt outside.
std::optional<std::uint64_t> moved(std::uint64_t base, char sign, std::uint64_t v, std::uint64_t max) {
    if (sign == '+')
        return base <= max && v <= max - base ? std::optional(base + v) : std::nullopt;
    if (sign == '-')
        return v <= base ? std::optional(base - v) : std::nullopt;
    return v <= max ? std::optional(v) : std::nullopt;
}

} // namespace

std::optional<std::vector<Sub>> parse_positions(std::string_view value) {
    std::vector<Sub> out;
    for (const auto w : text::words(value)) {
        const auto s = core::value_named(k_sub_names, w);
        if (!s || (!out.empty() && out.back() >= *s))
            return std::nullopt;
        out.push_back(*s);
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

std::string position_names(const std::vector<Sub>& subs) {
    std::string out;
    for (const Sub s : subs) {
        if (!out.empty())
            out += ' ';
        out += core::name_of(k_sub_names, s);
    }
    return out;
}

std::string read_position(std::string_view& s, const std::vector<Sub>& subs, const Position& base,
                          Position& out) {
    out = base;
    for (const Sub sub : subs) {
        const auto w = text::next_word(s);
        const char* what = sub == Sub::instr ? "the instruction address"
                           : sub == Sub::bb  ? "the block address"
                                             : "the line number";
        if (w == "*")
            continue;
        const char sign = !w.empty() && (w[0] == '+' || w[0] == '-') ? w[0] : 0;
        std::uint64_t v = 0;
        if (!parse_u64(sign ? w.substr(1) : w, v))
            return fmt::format("expected the subpositions '{}' (each N, 0xN, +N, -N or *), then the counts; "
                               "{} is '{}'",
                               position_names(subs), what, core::terminal_safe(w, 40));
        if (sub == Sub::line) {
            constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
            const auto line = moved(static_cast<std::uint64_t>(base.line), sign, v, max); // never negative
            if (!line)
                return fmt::format("expected a line number from 0 to {}, not '{}' from {}", max,
                                   core::terminal_safe(w, 40), base.line);
            out.line = static_cast<std::int64_t>(*line);
            continue;
        }
        const auto a = moved(sub == Sub::instr ? base.instr : base.bb, sign, v,
                             std::numeric_limits<std::uint64_t>::max());
        if (!a)
            return fmt::format("expected a relative address within 0 to 2^64-1, not '{}' from {:#x}",
                               core::terminal_safe(w, 40), sub == Sub::instr ? base.instr : base.bb);
        (sub == Sub::instr ? out.instr : out.bb) = *a;
    }
    return {};
}

std::string read_counts(std::string_view s, std::size_t n, const char* what, std::vector<double>& out) {
    out.assign(n, 0.0);
    std::size_t i = 0;
    for (auto w = text::next_word(s); !w.empty(); w = text::next_word(s), ++i) {
        std::uint64_t v = 0;
        if (i >= n)
            return fmt::format("expected at most {} counts on {} (one per event)", n, what);
        if (!parse_u64(w, v))
            return fmt::format("expected non-negative integer counts on {}, not '{}'", what,
                               core::terminal_safe(w, 40));
        out[i] = static_cast<double>(v);
    }
    return {};
}

std::string NameIds::resolve(const char* key, std::string_view value, std::string& name) {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    // A name starting "(" and a digit is compressed (manual §3.2.3): real names never start so.
    if (value.size() < 2 || value[0] != '(' || value[1] < '0' || value[1] > '9') {
        name = text::trim(value);
        return {};
    }
    const auto close = value.find(')');
    std::uint64_t id = 0;
    if (close == std::string_view::npos || !parse_u64(value.substr(1, close - 1), id))
        return fmt::format("expected '{}=(id) name' or '{}=(id)' with a decimal id", key, key);
    std::string rest = text::trim(value.substr(close + 1));
    if (rest.empty()) {
        const auto it = m_ids.find(id);
        if (it == m_ids.end())
            return fmt::format("expected '{}=({})' to be defined ('({}) name') before its use", key, id, id);
        name = it->second;
        return {};
    }
    if (!m_ids.count(id) && m_ids.size() >= m_max)
        return fmt::format("expected at most {} compressed names of one kind ({}=)", m_max, key);
    name = rest;
    m_ids[id] = std::move(rest);
    return {};
}

} // namespace roofcast::measure::profile::callgrind_syntax
