// The range a number read from a file must lie in, and the one message that says so; likewise the names an
// enum field may take. Every reader checks
// its numeric fields with these (core::YamlField for machine and kernel files, the results, profile and
// threads readers for JSON), so the same range reads the same in every error: "expected a positive number
// at most 1e+06, got 1e308". The ranges themselves are listed in docs/formats.md.
#pragma once

#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <string_view>

namespace roofcast::core {

class Range {
public:
    // [lo, hi]
    static Range between(double lo, double hi) { return {Kind::between, lo, hi}; }
    // (0, hi]
    static Range positive_at_most(double hi) { return {Kind::positive, 0, hi}; }
    // [0, hi]
    static Range non_negative_at_most(double hi) { return {Kind::non_negative, 0, hi}; }
    // [lo, +inf): a figure derived from two others, bounded by their ranges only from below
    static Range at_least(double lo) { return {Kind::at_least, lo, std::numeric_limits<double>::infinity()}; }
    // whole numbers in [lo, hi]
    static Range whole(std::int64_t lo, std::int64_t hi) {
        return {Kind::whole, static_cast<double>(lo), static_cast<double>(hi)};
    }

    // True when `v` is finite and in the range (and whole, for a range of whole numbers).
    bool contains(double v) const {
        if (!std::isfinite(v) || !(v >= m_lo && v <= m_hi))
            return false;
        if (m_kind == Kind::positive)
            return v > 0;
        return m_kind != Kind::whole || v == std::floor(v);
    }

    // "expected <the range>, got <got>", `got` as the file spells the value.
    std::string expected(std::string_view got) const {
        switch (m_kind) {
        case Kind::between:
            return fmt::format("expected a number from {:g} to {:g}, got {}", m_lo, m_hi, got);
        case Kind::positive:
            return fmt::format("expected a positive number at most {:g}, got {}", m_hi, got);
        case Kind::non_negative:
            return fmt::format("expected a non-negative number at most {:g}, got {}", m_hi, got);
        case Kind::at_least:
            return fmt::format("expected a number >= {:g}, got {}", m_lo, got);
        case Kind::whole:
            return fmt::format("expected a whole number from {} to {}, got {}",
                               static_cast<std::int64_t>(m_lo), static_cast<std::int64_t>(m_hi), got);
        }
        return {};
    }

private:
    enum class Kind { between, positive, non_negative, at_least, whole };
    Range(Kind kind, double lo, double hi) : m_kind(kind), m_lo(lo), m_hi(hi) {}
    Kind m_kind;
    double m_lo;
    double m_hi;
};

// "expected one of a, b, c, got 'x'": the one wording of a field that takes one of a few names (an enum),
// for every reader; `allowed` is any range of names, listed in its order.
template <class Names> std::string expected_one_of(const Names& allowed, std::string_view got) {
    std::string list;
    for (const auto& name : allowed) {
        if (!list.empty())
            list += ", ";
        list += name;
    }
    return fmt::format("expected one of {}, got '{}'", list, got);
}

} // namespace roofcast::core
