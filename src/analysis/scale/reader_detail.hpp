// Internals shared by the readers of scaling data sets (analysis/scale/dataset.hpp): dataset.cpp (JSON
// formats, parse_point) and text_readers.cpp (CSV, Extra-P text). Not a public interface.
#pragma once

#include "analysis/scale/dataset.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::model::scale::reading {

// The characters std::isspace takes in the "C" locale, the only one roofcast runs in.
inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
inline std::string_view trim_view(std::string_view s) {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}
inline std::string trim(std::string_view s) {
    return std::string(trim_view(s));
}

// A number cell: surrounding blanks and a leading '+' ignored, "nan" in three spellings; nullopt otherwise.
std::optional<double> to_number(std::string_view text);
// One CSV line: cells split at commas outside double quotes ("" inside quotes is one quote), each trimmed.
std::vector<std::string> split_csv(std::string_view line);
Coord to_coord(const std::vector<double>& v, std::size_t nparams, const std::string& file,
               const std::string& field);
void check_parameter_count(std::size_t n, const std::string& file, const std::string& field);

// Collects values per (function, metric) while a reader runs; keeps first-seen order. Rows of one series
// mostly follow each other: the last series is recognised without building its key.
class Builder {
public:
    explicit Builder(Dataset& d) : m_d(d) {}
    Builder(const Builder&) = delete;
    Builder& operator=(const Builder&) = delete;
    Dataset& dataset() { return m_d; }
    // The series the values went to.
    Series& add(std::string_view function, std::string_view metric, const Coord& x,
                std::vector<double> values);
    void add(std::string_view function, std::string_view metric, const Coord& x, double value);
    // Adds the series that `parts` read from the text that follows this one's, part after part, as add()
    // would have added their rows: new series in their order (moved in whole), further points and values
    // after these. The last step of a reading: no row may be added after it.
    void join(const std::vector<Builder*>& parts);

private:
    std::vector<Point>& points_of(std::string_view function, std::string_view metric);
    std::size_t key_hash(std::string_view function, std::string_view metric);
    // The slot of the key (function, metric) that hashes to `hash`: the one holding its series, or the empty
    // one where it goes. The table has an empty slot.
    std::size_t slot_of(std::size_t hash, std::string_view function, std::string_view metric) const;
    // The index of the series (function, metric) whose key hashes to `hash`, or k_empty.
    std::size_t find(std::size_t hash, std::string_view function, std::string_view metric) const;
    void grow();
    // The series of each key (function, '\x1f', metric) by open addressing: a slot holds the key's hash
    // and its series' index, so that a million keys cost no string and no node each.
    struct Slot {
        std::size_t hash = 0;
        std::size_t series = k_empty;
    };
    static constexpr std::size_t k_empty = static_cast<std::size_t>(-1);
    Dataset& m_d;
    std::vector<Slot> m_slots;
    std::vector<std::size_t> m_hashes; // each series' key hash, in the data set's order
    std::string m_key;
    std::size_t m_last = 0;
    bool m_has_last = false;
    bool m_joined = false;
};

} // namespace roofcast::model::scale::reading
