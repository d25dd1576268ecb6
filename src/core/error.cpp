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

std::string terminal_safe(std::string_view text, std::size_t max_chars) {
    std::string out;
    const std::size_t n = std::min(text.size(), max_chars);
    out.reserve(n + 32);
    static constexpr char k_hex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += k_hex[c >> 4];
            out += k_hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    if (text.size() > n)
        out += " ... [" + std::to_string(text.size() - n) + " more characters]";
    return out;
}

} // namespace roofcast::core
