#include "report/format.hpp"

#include "core/units.hpp"

#include <cmath>
#include <fmt/format.h>

namespace roofcast::report {

std::string gflops_text(double gflops) {
    return core::format_rate(gflops * core::k_giga, "FLOP/s");
}

std::string gbs_text(double gbs) {
    return core::format_rate(gbs * core::k_giga, "B/s");
}

std::string intensity_text(double flop_per_byte) {
    return fmt::format("{:.3g}", flop_per_byte);
}

std::string error_text(std::optional<double> pct) {
    return pct ? fmt::format("{:+.1f} %", *pct) : "–";
}

std::string spread_text(const core::Summary& s) {
    std::string t = fmt::format("median of {}", s.n);
    if (s.spread)
        t += fmt::format(", spread {:.1f} %", *s.spread * 100);
    if (s.noisy)
        t += ", NOISY";
    return t;
}

std::string spread_percent(const core::Summary& s) {
    return s.spread ? fmt::format("{:.1f} %", *s.spread * 100) : "–";
}

} // namespace roofcast::report

namespace roofcast::report {

std::string percent_text(double fraction) {
    return fmt::format("{:.1f} %", fraction * 100);
}

nlohmann::json json_or_null(std::optional<double> v) {
    return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace roofcast::report
