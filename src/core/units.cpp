#include "core/units.hpp"

#include "core/error.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace roofcast::core {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// Three significant digits, trailing zeros kept only where they carry precision.
std::string three_digits(double v) {
    if (v >= 100)
        return fmt::format("{:.0f}", v);
    if (v >= 10)
        return fmt::format("{:.1f}", v);
    return fmt::format("{:.2f}", v);
}

} // namespace

std::uint64_t parse_size(std::string_view text, std::string_view what) {
    const std::string field(what);
    const std::string_view t = trim(text);
    std::size_t i = 0;
    while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.' || t[i] == '-' ||
                            t[i] == '+' || t[i] == 'e' || t[i] == 'E')) {
        // 'e' only counts as an exponent when digits follow
        if ((t[i] == 'e' || t[i] == 'E') &&
            (i + 1 >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i + 1]))))
            break;
        ++i;
    }
    const std::string number(t.substr(0, i));
    const std::string unit(trim(t.substr(i)));
    const std::string expected =
        "expected a non-negative size like 4096, 32KiB, 1.5MiB or 2GB, got '" + std::string(text) + "'";
    if (number.empty())
        throw InputError("", field, expected);
    double value = 0;
    try {
        std::size_t used = 0;
        value = std::stod(number, &used);
        if (used != number.size())
            throw InputError("", field, expected);
    } catch (const std::logic_error&) {
        throw InputError("", field, expected);
    }
    static const std::array<std::pair<const char*, double>, 17> k_units{{{"", 1.0},
                                                                         {"B", 1.0},
                                                                         {"k", 1024.0},
                                                                         {"K", 1024.0},
                                                                         {"KiB", 1024.0},
                                                                         {"kB", 1e3},
                                                                         {"KB", 1e3},
                                                                         {"M", 1048576.0},
                                                                         {"MiB", 1048576.0},
                                                                         {"MB", 1e6},
                                                                         {"G", 1073741824.0},
                                                                         {"GiB", 1073741824.0},
                                                                         {"GB", 1e9},
                                                                         {"T", 1099511627776.0},
                                                                         {"TiB", 1099511627776.0},
                                                                         {"TB", 1e12},
                                                                         {"KIB", 1024.0}}};
    double factor = -1;
    for (const auto& [name, f] : k_units)
        if (unit == name)
            factor = f;
    if (factor < 0)
        throw InputError("", field, "unknown unit '" + unit + "' (use B, KiB, MiB, GiB, kB, MB, GB)");
    const double bytes = value * factor;
    if (!std::isfinite(bytes) || bytes < 0)
        throw InputError("", field, expected);
    return static_cast<std::uint64_t>(std::llround(bytes));
}

std::string format_size(double bytes) {
    static const std::array<const char*, 5> k_names{"B", "KiB", "MiB", "GiB", "TiB"};
    std::size_t k = 0;
    double v = bytes;
    while (std::fabs(v) >= 1024.0 && k + 1 < k_names.size()) {
        v /= 1024.0;
        ++k;
    }
    if (k == 0)
        return fmt::format("{:.0f} B", v);
    return three_digits(v) + " " + k_names[k];
}

std::string format_rate(double per_second, std::string_view unit) {
    static const std::array<const char*, 6> k_prefix{"", "k", "M", "G", "T", "P"};
    std::size_t k = 0;
    double v = per_second;
    while (std::fabs(v) >= 1000.0 && k + 1 < k_prefix.size()) {
        v /= 1000.0;
        ++k;
    }
    return three_digits(v) + " " + k_prefix[k] + std::string(unit);
}

std::string format_seconds(double seconds) {
    const double a = std::fabs(seconds);
    if (a >= 1.0 || a == 0.0)
        return three_digits(seconds) + " s";
    if (a >= 1e-3)
        return three_digits(seconds * 1e3) + " ms";
    if (a >= 1e-6)
        return three_digits(seconds * 1e6) + " us";
    return three_digits(seconds * 1e9) + " ns";
}

} // namespace roofcast::core
