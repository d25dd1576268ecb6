#include "report/scale_roofline.hpp"

#include "analysis/scale/dataset.hpp"
#include "report/profile_regions.hpp"

#include <fmt/format.h>

namespace roofcast::report {

namespace {

std::string dot(const model::RegionVerdict& v) {
    return fmt::format("{:>9.3g} {:>10.4g} {:>9}", v.intensity, v.bound_gflops,
                       v.bottleneck == "MEM" ? std::string("memory") : v.bottleneck);
}

} // namespace

std::string roofline_forecast_text(const model::scale::RooflineForecast& f,
                                   const std::vector<std::string>& names) {
    std::string out = fmt::format("\nroofline at {} (from the largest measured run, {}; mixed model):\n",
                                  model::scale::format_point(f.target, names),
                                  model::scale::format_point(f.largest_measured, names));
    if (!f.functions.empty()) {
        out += fmt::format("{:<40} {:<30}   {}\n", "",
                           "at " + model::scale::format_point(f.largest_measured, names),
                           "at " + model::scale::format_point(f.target, names) + " (predicted)");
        out += fmt::format("{:<40} {:>9} {:>10} {:>9}   {:>9} {:>10} {:>9} {:>12}  {}\n", "function",
                           "FLOP/B", "bound", "limit", "FLOP/B", "bound", "limit", "GFLOP/s", "on the way");
    }
    std::vector<std::string> shown;
    for (const auto& r : f.functions)
        shown.push_back(r.function);
    shown = shown_names(shown);
    std::size_t row = 0;
    for (const auto& r : f.functions) {
        std::string perf =
            r.predicted.measured_gflops ? fmt::format("{:.4g}", *r.predicted.measured_gflops) : "-";
        if (r.predicted.measured_gflops && r.time_lo && r.time_hi && *r.time_lo > 0 && *r.time_hi > 0)
            perf += fmt::format(" [{:.3g}, {:.3g}]", r.predicted.flops / *r.time_hi * 1e-9,
                                r.predicted.flops / *r.time_lo * 1e-9);
        out += fmt::format("{:<40} {}   {} {:>12}  {}\n", shown[row++], dot(r.measured), dot(r.predicted),
                           perf, r.change.empty() ? "same bottleneck" : r.change);
    }
    if (f.below_share > 0)
        out += fmt::format("{} function(s) and loop(s) under 1 % of the flops and of the time at both points "
                           "not shown\n",
                           f.below_share);
    for (const auto& o : f.omitted)
        out += "not placed: " + o + "\n";
    return out;
}

} // namespace roofcast::report
