#include "analysis/scale/forecast.hpp"

#include "core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <unordered_map>

namespace roofcast::model::scale {

ScaleResult forecast(Dataset data, Selection sel, std::vector<Coord> targets, std::optional<Grid> grid) {
    if (grid && data.parameters.size() != 1)
        throw core::InputError(
            "", "--grid",
            fmt::format("expected a data set whose one parameter is the rank count, not ({})",
                        fmt::join(data.parameters, ", ")));
    ScaleResult r;
    r.data = std::move(data);
    r.selection = sel;
    r.targets = std::move(targets);
    r.grid = std::move(grid);
    const auto t0 = std::chrono::steady_clock::now();
    // One grid for every series' models to share.
    r.fits = fit_all(r.data, sel, r.grid ? std::make_shared<const Grid>(*r.grid) : nullptr);
    r.fit_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.predictions.resize(r.fits.size());
    const auto n = static_cast<std::ptrdiff_t>(r.fits.size());
#pragma omp parallel for schedule(dynamic, 256)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        r.predictions[k].reserve(r.targets.size());
        for (const auto& x : r.targets)
            r.predictions[k].push_back(predict(r.fits[k], x, r.data.parameters.size()));
    }
    return r;
}

Evaluation evaluate(const ScaleResult& r, const Dataset& measured, const std::string& file) {
    Evaluation e;
    e.file = file;
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < r.data.series.size(); ++i)
        index.emplace(r.data.series[i].function + '\x1f' + r.data.series[i].metric, i);
    double sum = 0.0, sum_library = 0.0;
    std::size_t counted = 0, counted_library = 0;
    for (const auto& s : measured.series) {
        const auto it = index.find(s.function + '\x1f' + s.metric);
        if (it == index.end()) {
            e.unmatched.push_back(s.function + " " + s.metric);
            continue;
        }
        for (const auto& p : s.points) {
            Comparison c;
            c.series = it->second;
            c.predicted = predict(r.fits[it->second], p.x, r.data.parameters.size());
            c.measured = p.mean();
            c.relative_error = std::abs(c.predicted.value - c.measured) / std::abs(c.measured);
            c.inside = c.predicted.lo && c.predicted.hi && *c.predicted.lo <= c.measured &&
                       c.measured <= *c.predicted.hi;
            if (std::isfinite(c.relative_error)) {
                sum += c.relative_error;
                ++counted;
                if (r.data.series[it->second].kind == "library") {
                    sum_library += c.relative_error;
                    ++counted_library;
                }
            }
            e.inside += c.inside ? 1 : 0;
            e.rows.push_back(c);
        }
    }
    e.mean_relative_error = counted > 0 ? sum / static_cast<double>(counted) : std::nan("");
    e.library_rows = counted_library;
    e.mean_relative_error_library =
        counted_library > 0 ? sum_library / static_cast<double>(counted_library) : std::nan("");
    e.mean_relative_error_own = counted > counted_library
                                    ? (sum - sum_library) / static_cast<double>(counted - counted_library)
                                    : std::nan("");
    // Profiling cost: core-seconds (and processor seconds) of the small runs against the measured target run.
    const auto total = [](const std::vector<RunCost>& costs, auto seconds) -> std::optional<double> {
        double s = 0.0;
        for (const auto& c : costs) {
            const std::optional<double> v = seconds(c);
            if (!v)
                return std::nullopt;
            s += *v;
        }
        return costs.empty() ? std::nullopt : std::optional<double>(s);
    };
    const auto core_s = [](const RunCost& c) { return std::optional<double>(c.core_seconds()); };
    const auto cpu_s = [](const RunCost& c) { return c.cpu_seconds; };
    e.small_core_seconds = total(r.data.costs, core_s);
    e.target_core_seconds = total(measured.costs, core_s);
    if (e.small_core_seconds && e.target_core_seconds)
        e.cost_ratio = *e.small_core_seconds / *e.target_core_seconds;
    e.small_cpu_seconds = total(r.data.costs, cpu_s);
    e.target_cpu_seconds = total(measured.costs, cpu_s);
    if (e.small_cpu_seconds && e.target_cpu_seconds && *e.target_cpu_seconds > 0)
        e.cpu_cost_ratio = *e.small_cpu_seconds / *e.target_cpu_seconds;
    return e;
}

} // namespace roofcast::model::scale
