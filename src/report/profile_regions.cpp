#include "report/profile_regions.hpp"

#include "experiment/diagnosis.hpp"
#include "experiment/verdict.hpp"

#include <fmt/format.h>
#include <map>
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

// Where a sampled time rests on few samples (its 95 % interval wider than k_wide_sampling either way):
// ", 42-1000 % over 2 samples: undetermined", the verdict the interval allows against the threshold at which
// the suite calls a kernel at its bound, by the suite's rule (experiment/verdict.hpp).
constexpr double k_wide_sampling = 0.1;
std::string sampled_text(const model::RegionVerdict& v) {
    if (!v.fraction || !v.fraction_lo || !v.time_samples)
        return {};
    const double f = *v.fraction;
    const bool wide = *v.fraction_lo < f * (1 - k_wide_sampling) || !v.fraction_hi ||
                      *v.fraction_hi > f * (1 + k_wide_sampling);
    if (!wide)
        return {};
    const std::string_view verdict =
        model::verdict_state(*v.fraction_lo, v.fraction_hi, model::k_diagnosis_fraction);
    const std::string_view state = verdict == "at-bound" ? "at its bound"
                                   : verdict == "below"  ? "below its bound"
                                                         : verdict;
    return fmt::format(", {:.0f}-{} over {:.0f} sample{}: {}", *v.fraction_lo * 100,
                       v.fraction_hi ? fmt::format("{:.0f} %", *v.fraction_hi * 100) : "unbounded",
                       *v.time_samples, *v.time_samples == 1 ? "" : "s", state);
}

// "can reach 12.3 GFLOP/s; it reaches 4.5 (37 %); L2 bandwidth limits it; ..."
std::string sentence(const model::RegionVerdict& v) {
    const Rates r = rates_of(v);
    std::string s = fmt::format("can {} {:.4g} {}", r.can, r.bound, r.unit);
    if (r.measured)
        s += fmt::format("; it {} {:.4g}{}", r.does, *r.measured,
                         v.fraction ? fmt::format(" ({:.0f} %{})", *v.fraction * 100, sampled_text(v)) : "");
    for (const auto& g : v.guidance)
        s += "; " + g;
    return s;
}

// A C++ function's name without its parameter list, "solve(...)" for "solve(Grid const&, double*)": the
// demangled names of valgrind and nm carry the parameters, which push a table's columns off the screen. The
// loop part (" -> loop at f.c:12") and what follows the list (" const", " [clone .isra.0]") stay.
std::string without_parameters(const std::string& name) {
    const auto loop = name.find(" -> ");
    std::string fn = name.substr(0, loop);
    const std::string rest = loop == std::string::npos ? std::string() : name.substr(loop);
    std::size_t end = fn.size();
    if (fn.ends_with("]")) { // " [clone .isra.0]"
        const auto open = fn.rfind(" [");
        if (open == std::string::npos)
            return name;
        end = open;
    }
    for (std::string_view q : {" const", " volatile", " &&", " &"})
        if (std::string_view(fn).substr(0, end).ends_with(q))
            end -= q.size();
    if (end < 2 || fn[end - 1] != ')' || fn[end - 2] == '(')
        return name;
    int depth = 0;
    for (std::size_t i = end; i-- > 0;) {
        const char ch = fn[i];
        depth += ch == ')' || ch == '>' ? 1 : ch == '(' || ch == '<' ? -1 : 0;
        if (depth == 0)
            return i == 0 ? name : fn.substr(0, i) + "(...)" + fn.substr(end) + rest;
    }
    return name;
}

} // namespace

std::string region_verdicts(const model::ProfilePlacement& p) {
    std::string out;
    if (!p.verdicts.empty())
        out +=
            fmt::format("{:<40} {:<8} {:>7} {:>7} {:>13} {:>12} {:>12} {:>8}  {}\n", "region", "kind", "time",
                        "flops", "FLOP/B", "GFLOP/s", "bound", "of bound", "bottleneck (mixed model)");
    std::vector<std::string> names;
    for (const auto& v : p.verdicts)
        names.push_back(v.name);
    names = shown_names(names);
    for (std::size_t i = 0; i < p.verdicts.size(); ++i) {
        const auto& v = p.verdicts[i];
        const std::string& name = names[i];
        // A region without flops shows its bandwidth in the performance columns, with the unit.
        const Rates r = rates_of(v);
        const std::string unit = r.moves ? fmt::format(" {}", r.unit) : "";
        const std::string measured = r.measured ? fmt::format("{:.4g}{}", *r.measured, unit) : "untimed";
        const std::string bound = fmt::format("{:.4g}{}", r.bound, unit);
        out += fmt::format("{:<40} {:<8} {:>7} {:>7} {:>13} {:>12} {:>12} {:>8}  {}-bound at {} (flops {}, "
                           "bytes {})\n",
                           name, v.kind, share(v.time_share), share(v.flops_share),
                           fmt::format("{:.3g} {}", v.intensity, v.bytes_level), measured, bound,
                           v.fraction ? fmt::format("{:.0f} %", *v.fraction * 100) : "-", v.bound,
                           v.bottleneck, v.flops_origin, v.bytes_origin);
    }
    bool any_guidance = false;
    for (std::size_t i = 0; i < p.verdicts.size(); ++i)
        if (const auto& v = p.verdicts[i]; !v.guidance.empty()) {
            if (!any_guidance)
                out += "\n";
            any_guidance = true;
            out += fmt::format("{} {}\n", names[i], sentence(v));
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

std::vector<std::string> shown_names(const std::vector<std::string>& names) {
    std::map<std::string, int> uses;
    for (const auto& n : names)
        ++uses[without_parameters(n)];
    std::vector<std::string> out;
    for (const auto& n : names) {
        const std::string s = without_parameters(n);
        out.push_back(uses[s] > 1 ? n : s);
    }
    return out;
}

} // namespace roofcast::report
