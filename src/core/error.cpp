#include "core/error.hpp"

#include <algorithm>

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

} // namespace roofcast::core
