// Text the library stores or prints: bounded region names, names made safe for a terminal, the file's
// warnings (each text once, with a count) and the few messages it prints on stderr (each kind once).
#include "state.hpp"

#include <algorithm>
#include <cstdio>

namespace roofcast::marker::detail {
namespace {

std::atomic<std::uint64_t> g_notices[static_cast<int>(Notice::count)];

unsigned char byte_at(std::string_view s, std::size_t i) {
    return static_cast<unsigned char>(s[i]);
}

// Length of the well-formed UTF-8 sequence starting at s[i], 0 when there is none (RFC 3629, section 4:
// no overlong forms, no surrogates, nothing past U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const unsigned char c = byte_at(s, i);
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : lo;
        hi = c == 0xED ? 0x9F : hi;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : lo;
        hi = c == 0xF4 ? 0x8F : hi;
    } else {
        return 0;
    }
    if (i + len > s.size() || byte_at(s, i + 1) < lo || byte_at(s, i + 1) > hi) {
        return 0;
    }
    for (std::size_t k = 2; k < len; ++k) {
        if ((byte_at(s, i + k) & 0xC0) != 0x80) {
            return 0;
        }
    }
    return len;
}

void append_escape(std::string& out, unsigned char c) {
    static constexpr char k_hex[] = "0123456789abcdef";
    switch (c) {
    case '\n':
        out += "\\n";
        break;
    case '\t':
        out += "\\t";
        break;
    case '\r':
        out += "\\r";
        break;
    default:
        out += "\\x";
        out += k_hex[c >> 4];
        out += k_hex[c & 0xF];
    }
}

// Without quotes: `text` with every byte a terminal could act on escaped, at most `max_bytes` of it.
std::string escaped(std::string_view text, std::size_t max_bytes) {
    const std::size_t shown = std::min(text.size(), max_bytes);
    std::string out;
    out.reserve(shown + 8);
    for (std::size_t i = 0; i < shown;) {
        const unsigned char c = byte_at(text, i);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        const std::size_t len = utf8_length(text, i);
        const bool c1 = c == 0xC2 && len == 2 && byte_at(text, i + 1) <= 0x9F; // U+0080..U+009F
        if (len > 0 && !c1 && i + len <= shown) {
            out.append(text.substr(i, len));
            i += len;
        } else {
            append_escape(out, c);
            ++i;
        }
    }
    return out;
}

std::string length_note(std::string_view text, std::size_t max_bytes) {
    return text.size() > max_bytes ? "... (" + std::to_string(text.size()) + " bytes)" : std::string();
}

} // namespace

std::string_view stored_name_slow(std::string_view name) {
    if (name.empty()) {
        return k_empty_name;
    }
    if (name.size() <= k_max_name_bytes) {
        return name;
    }
    // Cut before a character, not inside one: UTF-8 continuation bytes are 10xxxxxx and a character has
    // at most three of them (RFC 3629, section 3).
    std::size_t n = k_max_name_bytes;
    for (int back = 0; back < 3 && (byte_at(name, n) & 0xC0) == 0x80; ++back) {
        --n;
    }
    return name.substr(0, n);
}

std::string display(std::string_view text, std::size_t max_bytes) {
    std::string out(1, '\'');
    out += escaped(text, max_bytes);
    out += text.size() > max_bytes ? "...'" : "'";
    if (text.size() > max_bytes) {
        out += " (" + std::to_string(text.size()) + " bytes)";
    }
    return out;
}

std::string escaped_text(std::string_view text, std::size_t max_bytes) {
    return escaped(text, max_bytes) + length_note(text, max_bytes);
}

void print_line(std::string_view text) {
    std::string line = "roofcast-marker: ";
    line.append(text);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
}

bool notice_first(Notice kind) {
    return g_notices[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed) == 0;
}

void notice(Notice kind, std::string_view line) {
    if (notice_first(kind)) {
        print_line(line);
    }
}

void notice_summary() {
    // Only where stderr is the sole record: the depth and path bounds are counted in the file's warnings.
    const std::uint64_t oom = g_notices[static_cast<int>(Notice::out_of_memory)].load();
    if (oom > 1) {
        print_line("out of memory " + std::to_string(oom) + " times in all; each of those calls was ignored");
    }
    const std::uint64_t failed = g_notices[static_cast<int>(Notice::write_failed)].load();
    if (failed > 1) {
        print_line(std::to_string(failed) + " writes of the marker file failed in all");
    }
}

void notice_reset() {
    for (auto& n : g_notices) {
        n.store(0);
    }
}

void Warnings::add(std::string text, std::uint64_t count) {
    for (auto& [item, n] : m_items) {
        if (item == text) {
            n += count;
            return;
        }
    }
    if (m_items.size() >= k_max_distinct) {
        m_dropped += count;
        return;
    }
    m_items.emplace_back(std::move(text), count);
}

void Warnings::merge_into(Warnings& other) const {
    for (const auto& [item, count] : m_items) {
        other.add(item, count);
    }
    other.m_dropped += m_dropped;
}

std::vector<std::string> Warnings::lines() const {
    std::vector<std::string> out;
    for (const auto& [item, count] : m_items) {
        out.push_back(count > 1 ? item + " (" + std::to_string(count) + " times)" : item);
    }
    if (m_dropped > 0) {
        out.push_back(std::to_string(m_dropped) + " further warnings not recorded");
    }
    return out;
}

} // namespace roofcast::marker::detail
