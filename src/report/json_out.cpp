#include "report/json_out.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace roofcast::report {

namespace {

bool ascii(std::string_view s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) >= 0x80)
            return false;
    return true;
}

// Well-formed UTF-8 (RFC 3629, section 4: no overlong forms, no surrogates, nothing above U+10FFFF), what
// nlohmann's decoder accepts.
bool utf8(std::string_view s) {
    std::size_t i = 0;
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    while (i < s.size()) {
        const unsigned char c = byte(i);
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
        if (c < 0x80) {
            ++i;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (i + len > s.size() || byte(i + 1) < lo || byte(i + 1) > hi)
            return false;
        for (std::size_t k = 2; k < len; ++k)
            if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
                return false;
        i += len;
    }
    return true;
}

} // namespace

JsonOut JsonOut::inside_array(std::string& out, int depth, bool first) {
    JsonOut j(out);
    for (int d = 0; d < depth; ++d)
        j.m_levels.push_back(Level{true, false});
    j.m_levels.back() = Level{false, first};
    return j;
}

void JsonOut::indent(std::size_t depth) {
    m_out.append(2 * depth, ' ');
}

void JsonOut::element() {
    if (m_levels.empty() || m_levels.back().object)
        return; // the root, or an object member whose key is written
    m_out += m_levels.back().first ? "\n" : ",\n";
    m_levels.back().first = false;
    indent(m_levels.size());
}

void JsonOut::open(char c, bool object) {
    element();
    m_out += c;
    m_levels.push_back(Level{object, true});
}

void JsonOut::close(char c) {
    const bool empty = m_levels.back().first;
    m_levels.pop_back();
    if (!empty) {
        m_out += '\n';
        indent(m_levels.size());
    }
    m_out += c;
}

void JsonOut::begin_object() {
    open('{', true);
}
void JsonOut::end_object() {
    close('}');
}
void JsonOut::begin_array() {
    open('[', false);
}
void JsonOut::end_array() {
    close(']');
}

void JsonOut::key(std::string_view k) {
    Level& l = m_levels.back();
    m_out += l.first ? "\n" : ",\n";
    l.first = false;
    indent(m_levels.size());
    string(k);
    m_out += ": ";
}

void JsonOut::value(double v) {
    element();
    if (!std::isfinite(v)) {
        m_out += "null";
        return;
    }
    // nlohmann's own number formatter (what dump() calls for a double), so the digits are its digits.
    char buf[64];
    char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
    m_out.append(buf, static_cast<std::size_t>(end - buf));
}

void JsonOut::value(std::optional<double> v) {
    if (v)
        value(*v);
    else
        null();
}

void JsonOut::value(bool v) {
    element();
    m_out += v ? "true" : "false";
}

void JsonOut::null() {
    element();
    m_out += "null";
}

void JsonOut::value_unsigned(std::uint64_t v) {
    element();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    m_out.append(buf, r.ptr);
}

void JsonOut::value_integer(std::int64_t v) {
    element();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    m_out.append(buf, r.ptr);
}

void JsonOut::value(std::string_view v) {
    element();
    string(v);
}

void JsonOut::string(std::string_view v) {
    if (!ascii(v) && !utf8(v)) { // nlohmann's own refusal (check_json_string finds these first)
        m_out += nlohmann::json(std::string(v)).dump();
        return;
    }
    static constexpr char k_hex[] = "0123456789abcdef";
    m_out += '"';
    for (const char c : v) {
        switch (c) {
        case '"':
            m_out += "\\\"";
            break;
        case '\\':
            m_out += "\\\\";
            break;
        case '\b':
            m_out += "\\b";
            break;
        case '\f':
            m_out += "\\f";
            break;
        case '\n':
            m_out += "\\n";
            break;
        case '\r':
            m_out += "\\r";
            break;
        case '\t':
            m_out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                m_out += "\\u00";
                m_out += k_hex[(c >> 4) & 15];
                m_out += k_hex[c & 15];
            } else {
                m_out += c;
            }
        }
    }
    m_out += '"';
}

void JsonOut::values(const std::vector<double>& v) {
    begin_array();
    for (double x : v)
        value(x);
    end_array();
}

void JsonOut::values(const std::vector<std::string>& v) {
    begin_array();
    for (const auto& s : v)
        value(s);
    end_array();
}

void check_json_string(std::string_view s) {
    if (!ascii(s) && !utf8(s))
        static_cast<void>(nlohmann::json(std::string(s)).dump());
}

} // namespace roofcast::report
