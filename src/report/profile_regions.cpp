#include "report/profile_regions.hpp"

#include <fmt/format.h>
#include <optional>
#include <string_view>

namespace roofcast::report {

namespace {

std::string share(const std::optional<double>& s) {
    return s ? fmt::format("{:.1f} %", *s * 100) : "-";
}

// A region's bound and measured rate in its unit: GFLOP/s, or GB/s of the level its bytes are taken at for a
// region without flops.
struct Rates {
    double bound = 0;
    std::optional<double> measured;
    std::string_view unit, can, does; // "GFLOP/s", "reach", "reaches"; "GB/s", "move", "moves"
    bool moves = false;
};

Rates rates_of(const model::RegionVerdict& v) {
    if (!(v.flops > 0))
        return {v.bound_gbs, v.measured_gbs, "GB/s", "move", "moves", true};
    return {v.bound_gflops, v.measured_gflops, "GFLOP/s", "reach", "reaches", false};
}

// "can reach 12.3 GFLOP/s; it reaches 4.5 (37 %); L2 bandwidth limits it; ..."
std::string sentence(const model::RegionVerdict& v) {
    const Rates r = rates_of(v);
    std::string s = fmt::format("can {} {:.4g} {}", r.can, r.bound, r.unit);
    if (r.measured)
        s += fmt::format("; it {} {:.4g}{}", r.does, *r.measured,
                         v.fraction ? fmt::format(" ({:.0f} %)", *v.fraction * 100) : "");
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
        const Rates r = rates_of(v);
        const std::string unit = r.moves ? fmt::format(" {}", r.unit) : "";
        const std::string measured = r.measured ? fmt::format("{:.4g}{}", *r.measured, unit) : "untimed";
        const std::string bound = fmt::format("{:.4g}{}", r.bound, unit);
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
