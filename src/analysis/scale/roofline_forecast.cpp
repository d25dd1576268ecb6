#include "analysis/scale/roofline_forecast.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace roofcast::model::scale {

namespace {

bool placement_metric(const std::string& metric) {
    return metric == "flops" || metric == "time" || metric == "bytes" || metric == "LL_MISS_BYTES" ||
           metric.rfind("bytes_", 0) == 0;
}

// A profile of one function whose metrics are the fitted models evaluated at x (one rank, one repetition).
core::Profile profile_at(const ScaleResult& r, const std::string& function,
                         const std::vector<std::size_t>& series, const Coord& x, const std::string& kind) {
    core::Profile p;
    core::ProfileFunction f{function, kind, {}};
    const std::size_t params = r.data.parameters.size();
    for (const std::size_t s : series) {
        core::ProfileMetric m;
        m.origin = core::MetricOrigin::declared;
        m.aggregate = "sum";
        m.per_rank = {{std::max(0.0, predict(r.fits[s], x, params).value)}};
        f.metrics[r.data.series[s].metric] = m;
    }
    p.functions = {f};
    return p;
}

std::optional<RegionVerdict> verdict_at(const ScaleResult& r, const core::Machine& m,
                                        const std::string& function, const std::vector<std::size_t>& series,
                                        const Coord& x) {
    const ProfilePlacement placed = place_profile(profile_at(r, function, series, x, "region"), m, 0.0);
    // Functions that only move data are placed by `report` in bandwidth; the forecast's roofline takes
    // those with flops (a fitted profile has no shares to keep the many small library functions out).
    if (placed.verdicts.empty() || !(placed.verdicts.front().flops > 0))
        return std::nullopt;
    return placed.verdicts.front();
}

// x rounded to three significant digits, for a sentence.
Coord rounded(Coord x) {
    for (double& v : x)
        if (v != 0) {
            const double scale = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 2);
            v = std::round(v / scale) * scale;
        }
    return x;
}

std::string describe_change(const RegionVerdict& before, const RegionVerdict& after,
                            const RegionVerdict& target, const Coord& at,
                            const std::vector<std::string>& names) {
    const auto what = [](const RegionVerdict& v) {
        return v.bottleneck == "compute" ? std::string("compute-bound")
               : v.bottleneck == "MEM"   ? std::string("memory-bound")
                                         : v.bottleneck + "-bound";
    };
    // Time per flop at the bound: 1 / GFLOP/s.
    const double slower =
        before.bound_gflops > 0 && target.bound_gflops > 0 ? before.bound_gflops / target.bound_gflops : 0.0;
    return fmt::format(
        "from about {} {} (was {}){}", format_point(rounded(at), names), what(after), what(before),
        slower > 0 ? fmt::format("; at the target {:.3g}x the time per flop at its bound", slower) : "");
}

} // namespace

RooflineForecast roofline_forecast(const ScaleResult& r, const core::Machine& m, const Coord& target,
                                   double min_share) {
    RooflineForecast out;
    out.target = target;
    for (const auto& s : r.data.series)
        for (const auto& p : s.points)
            if (p.x[0] > out.largest_measured[0])
                out.largest_measured = p.x;
    std::map<std::string, std::vector<std::size_t>> by_function;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < r.data.series.size(); ++i)
        if (placement_metric(r.data.series[i].metric)) {
            auto [it, inserted] = by_function.try_emplace(r.data.series[i].function);
            if (inserted)
                order.push_back(r.data.series[i].function);
            it->second.push_back(i);
        }
    const std::size_t params = r.data.parameters.size();
    // Each function's fitted flops and time at the largest measured point and at the target (evaluated once),
    // and their totals over the profile's functions (loops lie inside them and are not added again).
    const std::array<Coord, 2> points{out.largest_measured, target};
    struct Work {
        std::array<double, 2> flops{}, time{};
    };
    std::vector<Work> work(order.size());
    Work total;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto& series = by_function[order[i]];
        for (const std::size_t s : series)
            for (std::size_t k = 0; k < 2; ++k) {
                const double v = std::max(0.0, predict(r.fits[s], points[k], params).value);
                if (r.data.series[s].metric == "flops")
                    work[i].flops[k] = v;
                else if (r.data.series[s].metric == "time")
                    work[i].time[k] = v;
            }
        if (r.data.series[series.front()].kind != "loop")
            for (std::size_t k = 0; k < 2; ++k) {
                total.flops[k] += work[i].flops[k];
                total.time[k] += work[i].time[k];
            }
    }
    const bool any_total = total.flops[0] > 0 || total.flops[1] > 0 || total.time[0] > 0 || total.time[1] > 0;
    const auto holds_share = [&](const Work& w) {
        for (std::size_t k = 0; k < 2; ++k)
            if ((total.flops[k] > 0 && w.flops[k] >= min_share * total.flops[k]) ||
                (total.time[k] > 0 && w.time[k] >= min_share * total.time[k]))
                return true;
        return !any_total;
    };
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::string& fn = order[i];
        const auto& series = by_function[fn];
        if (!holds_share(work[i])) {
            ++out.below_share;
            continue;
        }
        const auto now = verdict_at(r, m, fn, series, out.largest_measured);
        const auto then = verdict_at(r, m, fn, series, target);
        if (!now || !then) {
            out.omitted.push_back(fn + ": no fitted flops and bytes to place");
            continue;
        }
        FunctionRoofline f{fn, *now, *then, std::nullopt, std::nullopt, std::nullopt, {}};
        for (const std::size_t s : series)
            if (r.data.series[s].metric == "time") {
                const Prediction pt = predict(r.fits[s], target, params);
                f.time_lo = pt.lo;
                f.time_hi = pt.hi;
            }
        // The bottleneck along a geometric grid of the first parameter (the others move linearly with it).
        const double a = out.largest_measured[0], b = target[0];
        if (a > 0 && b > a) {
            for (int k = 1; k <= k_roofline_steps && !f.change_at; ++k) {
                const double t = static_cast<double>(k) / k_roofline_steps;
                Coord x = out.largest_measured;
                x[0] = a * std::pow(b / a, t);
                for (std::size_t d = 1; d < params; ++d)
                    x[d] = out.largest_measured[d] + t * (target[d] - out.largest_measured[d]);
                const auto v = verdict_at(r, m, fn, series, x);
                if (v && v->bottleneck != now->bottleneck) {
                    f.change_at = x;
                    f.change = describe_change(*now, *v, *then, x, r.data.parameters);
                }
            }
        }
        out.functions.push_back(std::move(f));
    }
    std::stable_sort(out.functions.begin(), out.functions.end(),
                     [](const FunctionRoofline& a, const FunctionRoofline& b) {
                         return a.predicted.flops > b.predicted.flops;
                     });
    return out;
}

} // namespace roofcast::model::scale
