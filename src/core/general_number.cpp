#include "core/general_number.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace roofcast::core {

namespace {

// The decimal digits (without leading zeros) and exponent of the shortest text that reads back as v (finite):
// v = 0.d1d2d3... x 10^(exponent + 1), d1 != 0 unless v is zero.
struct Shortest {
    char digits[20];
    int count = 0;
    int exponent = 0;
    bool negative = false;
};

Shortest shortest_of(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    Shortest s;
    const char* p = buf;
    if (*p == '-') {
        s.negative = true;
        ++p;
    }
    for (; p < r.ptr && *p != 'e'; ++p)
        if (*p != '.')
            s.digits[s.count++] = *p;
    int e = 0;
    std::from_chars(p + 1 + (p[1] == '+'), r.ptr, e);
    s.exponent = e;
    return s;
}

char* put_exponent(char* out, int e) {
    *out++ = 'e';
    *out++ = e < 0 ? '-' : '+';
    const int a = e < 0 ? -e : e;
    if (a >= 100)
        *out++ = static_cast<char>('0' + a / 100);
    *out++ = static_cast<char>('0' + a / 10 % 10);
    *out++ = static_cast<char>('0' + a % 10);
    return out;
}

} // namespace

char* format_general(char* out, double v, int precision) {
    if (!(std::isnormal(v) || v == 0.0) || precision < 1 || precision > 15)
        return std::to_chars(out, out + k_general_chars, v, std::chars_format::general, precision).ptr;
    Shortest s = shortest_of(v);
    if (s.count > precision) {
        const char next = s.digits[precision];
        // The shortest text rounds as the value does (a rounding boundary between them would be a shorter
        // text, or one as short and nearer, that reads back as v), except at a tie it holds itself.
        if (next == '5' && s.count == precision + 1)
            return std::to_chars(out, out + k_general_chars, v, std::chars_format::general, precision).ptr;
        s.count = precision;
        if (next >= '5') {
            int k = precision - 1;
            while (k >= 0 && s.digits[k] == '9')
                s.digits[k--] = '0';
            if (k >= 0) {
                ++s.digits[k];
            } else {
                s.digits[0] = '1';
                ++s.exponent;
            }
        }
    }
    while (s.count > 1 && s.digits[s.count - 1] == '0')
        --s.count;
    if (s.negative)
        *out++ = '-';
    const int e = s.exponent;
    if (e < -4 || e >= precision) { // printf's %g: scientific, d.ddd e±XX
        *out++ = s.digits[0];
        if (s.count > 1) {
            *out++ = '.';
            std::memcpy(out, s.digits + 1, static_cast<std::size_t>(s.count - 1));
            out += s.count - 1;
        }
        return put_exponent(out, e);
    }
    if (e < 0) { // 0.000ddd
        *out++ = '0';
        *out++ = '.';
        for (int k = 0; k < -e - 1; ++k)
            *out++ = '0';
        std::memcpy(out, s.digits, static_cast<std::size_t>(s.count));
        return out + s.count;
    }
    for (int k = 0; k <= e; ++k) // the integer part, zeros past the digits
        *out++ = k < s.count ? s.digits[k] : '0';
    if (s.count > e + 1) {
        *out++ = '.';
        std::memcpy(out, s.digits + e + 1, static_cast<std::size_t>(s.count - e - 1));
        out += s.count - e - 1;
    }
    return out;
}

} // namespace roofcast::core
