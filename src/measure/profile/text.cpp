#include "measure/profile/text.hpp"

#include "core/error.hpp"

#include <charconv>
#include <fmt/format.h>

namespace roofcast::measure::profile::text {

std::string_view next_word(std::string_view& s) {
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t')
        ++j;
    const auto w = s.substr(i, j - i);
    s.remove_prefix(j);
    return w;
}

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    for (auto w = next_word(s); !w.empty(); w = next_word(s))
        out.push_back(w);
    return out;
}

bool parse_number(std::string_view w, double& v) {
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    return ec == std::errc() && end == w.data() + w.size();
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return std::string(s);
}

bool Lines::next(std::string_view& line) {
    if (m_start >= m_text.size())
        return false;
    std::size_t end = m_text.find('\n', m_start);
    if (end == std::string::npos)
        end = m_text.size();
    line = std::string_view(m_text.data() + m_start, end - m_start);
    m_start = end + 1;
    ++m_number;
    if (m_max_bytes > 0 && line.size() > m_max_bytes)
        throw core::InputError(m_file, field(), fmt::format("expected lines under {} bytes", m_max_bytes));
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    return true;
}

std::string Lines::field() const {
    return fmt::format("line {}", m_number);
}

} // namespace roofcast::measure::profile::text
