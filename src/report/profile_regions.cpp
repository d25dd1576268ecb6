#include "report/profile_regions.hpp"

#include <fmt/format.h>

namespace roofcast::report {

namespace {

std::string share(const std::optional<double>& s) {
    return s ? fmt::format("{:.1f} %", *s * 100) : "-";
}

bool moves_only(const model::RegionVerdict& v) {
    return !(v.flops > 0);
}

// "can reach 12.3 GFLOP/s; it reaches 4.5 (37 %); L2 bandwidth limits it; ..."; for a region without
// flops the same in GB/s of the level its bytes are taken at.
std::string sentence(const model::RegionVerdict& v) {
    std::string s;
    if (moves_only(v)) {
        s = fmt::format("can move {:.4g} GB/s", v.bound_gbs);
        if (v.measured_gbs)
            s += fmt::format("; it moves {:.4g}{}", *v.measured_gbs,
                             v.fraction ? fmt::format(" ({:.0f} %)", *v.fraction * 100) : "");
    } else {
        s = fmt::format("can reach {:.4g} GFLOP/s", v.bound_gflops);
        if (v.measured_gflops)
            s += fmt::format("; it reaches {:.4g}{}", *v.measured_gflops,
                             v.fraction ? fmt::format(" ({:.0f} %)", *v.fraction * 100) : "");
    }
    for (const auto& g : v.guidance)
        s += "; " + g;
    return s;
}

} // namespace

std::string region_verdicts(const model::ProfilePlacement& p) {
    std::string out;
    if (!p.verdicts.empty())
        out +=
            fmt::format("{:<40} {:<8} {:>7} {:>7} {:>10} {:>12} {:>12} {:>8}  {}\n", "region", "kind", "time",
                        "flops", "FLOP/B", "GFLOP/s", "bound", "of bound", "bottleneck (mixed model)");
    for (const auto& v : p.verdicts) {
        // A region without flops shows its bandwidth in the performance columns, with the unit.
        const std::string measured =
            moves_only(v)       ? (v.measured_gbs ? fmt::format("{:.4g} GB/s", *v.measured_gbs) : "untimed")
            : v.measured_gflops ? fmt::format("{:.4g}", *v.measured_gflops)
                                : "untimed";
        const std::string bound =
            moves_only(v) ? fmt::format("{:.4g} GB/s", v.bound_gbs) : fmt::format("{:.4g}", v.bound_gflops);
        out +=
            fmt::format("{:<40} {:<8} {:>7} {:>7} {:>10.3g} {:>12} {:>12} {:>8}  {}-bound at {} (flops {}, "
                        "bytes {})\n",
                        v.name, v.kind, share(v.time_share), share(v.flops_share), v.intensity, measured,
                        bound, v.fraction ? fmt::format("{:.0f} %", *v.fraction * 100) : "-", v.bound,
                        v.bottleneck, v.flops_origin, v.bytes_origin);
    }
    bool any_guidance = false;
    for (const auto& v : p.verdicts)
        if (!v.guidance.empty()) {
            if (!any_guidance)
                out += "\n";
            any_guidance = true;
            out += fmt::format("{} {}\n", v.name, sentence(v));
        }
    if (p.below_share > 0)
        out += fmt::format("{} function(s) and loop(s) under 1 % of the time and of the flops not shown\n",
                           p.below_share);
    for (const auto& o : p.omitted)
        out += "not placed: " + o + "\n";
    if (p.verdicts.empty())
        out +=
            "no region has both flops and bytes (declare them with roofcast_region_work, or count/simulate "
            "them): the chart shows the roofs only\n";
    return out;
}

} // namespace roofcast::report
