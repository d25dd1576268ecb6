// Text helpers shared by the line-oriented readers of tool output (cachegrind, `perf report`, TAU):
// words separated by spaces or tabs, strict numbers, trimming, and one line iterator that bounds a line's
// length, so every reader splits, bounds and numbers its lines the same way.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure::profile::text {

// The next word of `s` (spaces and tabs separate words); removes it and the blanks before it from `s`.
// Empty when `s` holds no more words.
std::string_view next_word(std::string_view& s);

// Every word of `s`.
std::vector<std::string_view> words(std::string_view s);

// True when all of `w` is one number (std::from_chars), stored in `v`.
bool parse_number(std::string_view w, double& v);

// `s` without leading spaces and tabs and without trailing spaces, tabs and carriage returns.
std::string trim(std::string_view s);

// The lines of a text, one at a time, each without its '\n' and trailing '\r'. With max_bytes > 0 a
// longer line (counted before its '\r' is removed) is an InputError(file, "line N", ...).
class Lines {
public:
    Lines(const std::string& text, std::string file, std::size_t max_bytes = 0)
        : m_text(text), m_file(std::move(file)), m_max_bytes(max_bytes) {}
    bool next(std::string_view& line);
    std::size_t number() const { return m_number; } // 1-based number of the line last returned
    std::string field() const;                      // "line N" of the line last returned

private:
    const std::string& m_text;
    std::string m_file;
    std::size_t m_max_bytes;
    std::size_t m_start = 0;
    std::size_t m_number = 0;
};

} // namespace roofcast::measure::profile::text
