// An enum's spellings (in files, on the command line, in output), written once: a table of (value, name)
// pairs that both its to_string and its parser read, so that a new value is one entry and cannot be
// printed under one name and parsed under another.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofcast::core {

template <class E, std::size_t N> using NameTable = std::array<std::pair<E, std::string_view>, N>;

// The name of `e` ("?" for a value the table lacks). The names are string literals, so data() ends in NUL.
template <class E, std::size_t N> constexpr std::string_view name_of(const NameTable<E, N>& table, E e) {
    for (const auto& [value, name] : table)
        if (value == e)
            return name;
    return "?";
}

// The value named `name`, or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> value_named(const NameTable<E, N>& table, std::string_view name) {
    for (const auto& [value, n] : table)
        if (n == name)
            return value;
    return std::nullopt;
}

// Every name, in the table's order (a command-line option's choices).
template <class E, std::size_t N> std::vector<std::string> names(const NameTable<E, N>& table) {
    std::vector<std::string> out;
    for (const auto& [value, name] : table)
        out.emplace_back(name);
    return out;
}

// The names for an error message: "a, b or c" (core::expected_one_of words it "one of a, b, c").
template <class E, std::size_t N> std::string names_list(const NameTable<E, N>& table) {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0)
            out += i + 1 == N ? " or " : ", ";
        out += table[i].second;
    }
    return out;
}

} // namespace roofcast::core
