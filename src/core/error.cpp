#include "core/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace roofcast::core {

namespace {
std::string compose(const std::string& file, const std::string& field, const std::string& message) {
    std::string out;
    if (!file.empty())
        out += file + ": ";
    if (!field.empty())
        out += "field '" + field + "': ";
    return out + message;
}
} // namespace

InputError::InputError(std::string file, std::string field, std::string message)
    : Error(compose(file, field, message)), m_file(std::move(file)), m_field(std::move(field)),
      m_message(std::move(message)) {}

namespace {

// `text` with every control character that `keep` does not let through written as \xNN.
template <typename Keep> std::string escape_controls(std::string_view text, Keep keep) {
    std::string out;
    out.reserve(text.size() + 32);
    static constexpr char k_hex[] = "0123456789abcdef";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 || c == 0x7f) && !keep(c)) {
            out += "\\x";
            out += k_hex[c >> 4];
            out += k_hex[c & 15];
        } else {
            out += ch;
        }
    }
    return out;
}

} // namespace

std::string terminal_safe(std::string_view text, std::size_t max_chars) {
    const std::size_t n = std::min(text.size(), max_chars);
    std::string out = escape_controls(text.substr(0, n), [](unsigned char) { return false; });
    if (text.size() > n)
        out += " ... [" + std::to_string(text.size() - n) + " more characters]";
    return out;
}

std::string terminal_text(std::string_view text) {
    return escape_controls(text, [](unsigned char c) { return c == '\n' || c == '\t'; });
}

namespace {

// The kind of a warning: its text with each quoted name ('...') and each number set aside.
std::string warning_kind(std::string_view text) {
    std::string kind;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\'') {
            quoted = !quoted;
            kind += quoted ? "'*" : "'";
        } else if (!quoted) {
            const bool digit = c >= '0' && c <= '9';
            if (!digit)
                kind += c;
            else if (kind.empty() || kind.back() != '#')
                kind += '#';
        }
    }
    return kind;
}

std::string cut_warning(const std::string& text, std::size_t max_chars) {
    if (text.size() <= max_chars)
        return text;
    return text.substr(0, max_chars) + " ... [" + std::to_string(text.size() - max_chars) +
           " more characters]";
}

} // namespace

std::vector<std::string> summarise_warnings(const std::vector<std::string>& warnings, std::size_t per_kind,
                                            std::size_t max_chars) {
    std::vector<std::string> out;
    std::vector<std::pair<std::string, std::size_t>> kinds; // first-seen order, count
    std::map<std::string, std::size_t> index;
    for (const auto& w : warnings) {
        const std::string kind = warning_kind(w);
        auto [it, added] = index.try_emplace(kind, kinds.size());
        if (added)
            kinds.emplace_back(w, 0);
        if (++kinds[it->second].second <= per_kind)
            out.push_back(cut_warning(w, max_chars));
    }
    for (const auto& [first, count] : kinds)
        if (count > per_kind)
            out.push_back(
                fmt::format("{} more warnings like: {}", count - per_kind, cut_warning(first, 120)));
    return out;
}

} // namespace roofcast::core
