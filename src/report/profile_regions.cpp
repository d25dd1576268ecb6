#include "report/profile_regions.hpp"

#include <fmt/format.h>

namespace roofcast::report {

std::string region_verdicts(const model::ProfilePlacement& p) {
    std::string out;
    if (!p.verdicts.empty())
        out += fmt::format("{:<40} {:>10} {:>12} {:>12} {:>8}  {}\n", "region", "FLOP/B", "GFLOP/s", "bound",
                           "of bound", "bottleneck (mixed model)");
    for (const auto& v : p.verdicts)
        out += fmt::format("{:<40} {:>10.3g} {:>12} {:>12.4g} {:>8}  {}-bound at {} (flops {}, bytes {})\n",
                           v.name, v.intensity,
                           v.measured_gflops ? fmt::format("{:.4g}", *v.measured_gflops) : "untimed",
                           v.bound_gflops, v.fraction ? fmt::format("{:.0f} %", *v.fraction * 100) : "-",
                           v.bound, v.bottleneck, v.flops_origin, v.bytes_origin);
    for (const auto& o : p.omitted)
        out += "not placed: " + o + "\n";
    if (p.verdicts.empty())
        out +=
            "no region has both flops and bytes (declare them with roofcast_region_work, or count/simulate "
            "them): the chart shows the roofs only\n";
    return out;
}

} // namespace roofcast::report
