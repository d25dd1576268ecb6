// Text formatting shared by the report writers (charts, HTML), so that a figure reads the same in a
// tooltip, a table and a derivation: rates with three significant digits and SI prefixes (core::units),
// intensities with three significant digits, spreads in percent with the NOISY flag.
#pragma once

#include "core/stats.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace roofcast::report {

std::string gflops_text(double gflops);            // "171 GFLOP/s", "850 MFLOP/s"
std::string gbs_text(double gbs);                  // "17.8 GB/s"
std::string intensity_text(double flop_per_byte);  // "0.0625"
std::string error_text(std::optional<double> pct); // "+6.0 %", "–" when absent
// "median of 5, spread 2.0 %" (+ ", NOISY")
std::string spread_text(const core::Summary& s);
// "2.0 %" or "–" when undefined
std::string spread_percent(const core::Summary& s);
// A fraction in percent with one decimal: 0.236 -> "23.6 %"
std::string percent_text(double fraction);
// A finite figure as a JSON number, anything else (absent, inf, NaN) as null
nlohmann::json json_or_null(std::optional<double> v);

} // namespace roofcast::report
