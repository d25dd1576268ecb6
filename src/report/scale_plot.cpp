#include "report/scale_report.hpp"
#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::report {

using namespace model::scale;

std::string scale_svg_name(const ScaleResult& r, std::size_t series) {
    const Series& s = r.data.series[series];
    std::string name = fmt::format("{:04}-{}-{}", series, s.function, s.metric);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
            c = '_';
    if (name.size() > 120)
        name.resize(120);
    return name + ".svg";
}

std::string scale_svg(const ScaleResult& r, std::size_t series) {
    const Series& s = r.data.series[series];
    const Fit& f = r.fits[series];
    const auto& params = r.data.parameters;
    const auto& preds = r.predictions[series];
    // Two parameters: the model is drawn along the first at a fixed second coordinate.
    double fixed = 0.0;
    if (params.size() == 2) {
        fixed = !r.targets.empty() ? r.targets[0][1] : (f.xs.empty() ? 0.0 : f.xs.back()[1]);
    }
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    auto take = [&](double x, double y) {
        if (std::isfinite(x)) {
            xlo = std::min(xlo, x);
            xhi = std::max(xhi, x);
        }
        if (std::isfinite(y)) {
            ylo = std::min(ylo, y);
            yhi = std::max(yhi, y);
        }
    };
    for (const auto& p : s.points)
        for (double v : p.values)
            take(p.x[0], v);
    for (const auto& p : preds) {
        take(p.x[0], p.value);
        if (p.lo)
            take(p.x[0], *p.lo);
        if (p.hi)
            take(p.x[0], *p.hi);
    }
    const bool log_x = xlo > 0.0;
    svg::Document doc(720, 440, fmt::format("{} {}", s.function, s.metric), fmt::format("scale{}", series));
    if (!(xhi >= xlo) || !(yhi >= ylo)) {
        doc.note({20, 40}, "no finite values to plot");
        return doc.standalone();
    }
    const bool log_y = ylo > 0.0 && yhi / ylo > 20.0;
    const std::string xlabel = params[0];
    const std::string ylabel = s.metric;
    svg::Axis ax = log_x ? svg::Axis::log2(xlo, std::max(xhi, xlo * 2), xlabel)
                         : svg::Axis::linear(xlo, xhi > xlo ? xhi : xlo + 1, xlabel);
    const double ypad = (yhi - ylo) * 0.05 + (yhi == ylo ? std::abs(yhi) * 0.1 + 1 : 0);
    svg::Axis ay =
        log_y ? svg::Axis::log10(ylo, yhi, ylabel)
              : svg::Axis::linear(ylo >= 0.0 ? std::max(0.0, ylo - ypad) : ylo - ypad, yhi + ypad, ylabel);
    const svg::Frame fr = svg::make_frame({80, 50, 600, 320}, ax, ay);
    svg::draw_axes(doc, fr);
    doc.text({360, 28}, fmt::format("{} — {}", s.function, s.metric), 14, svg::Anchor::middle);
    const std::string clip = doc.define_clip("area", fr.area);
    doc.begin_group("model", clip);
    // Model curve sampled evenly in the axis' own coordinates.
    std::vector<svg::Point> curve;
    const double a0 = log_x ? std::log(ax.lo) : ax.lo, a1 = log_x ? std::log(ax.hi) : ax.hi;
    for (int k = 0; k <= 200; ++k) {
        const double t = a0 + (a1 - a0) * k / 200.0;
        const double x = log_x ? std::exp(t) : t;
        const double y = f.model.evaluate({x, fixed});
        if (fr.placeable(x, y))
            curve.push_back(fr.to_pixel(x, y));
        else if (curve.size() > 1) {
            doc.polyline(curve, svg::Style{svg::colour(0), "none", 2, "", 1, "model-curve"});
            curve.clear();
        }
    }
    if (curve.size() > 1)
        doc.polyline(curve, svg::Style{svg::colour(0), "none", 2, "", 1, "model-curve"},
                     fmt::format("model: {}", f.model.formula(params)));
    doc.end_group();
    // Measured means with min–max bars (only the line at the fixed coordinate for two parameters
    // is on the curve; the others are drawn hollow).
    std::size_t omitted = 0;
    for (const auto& p : s.points) {
        const auto [mn, mx] = std::minmax_element(p.values.begin(), p.values.end());
        const bool on_line = params.size() < 2 || p.x[1] == fixed;
        if (!fr.placeable(p.x[0], p.mean())) {
            ++omitted;
            continue;
        }
        if (fr.placeable(p.x[0], *mn) && fr.placeable(p.x[0], *mx) && *mx > *mn)
            doc.line(fr.to_pixel(p.x[0], *mn), fr.to_pixel(p.x[0], *mx),
                     svg::Style{"#222", "none", 1.2, "", 1, "spread"});
        doc.marker(svg::Marker::circle, fr.to_pixel(p.x[0], p.mean()), 4.5, "#222", on_line,
                   fmt::format("{}: mean {:.6g} (min {:.6g}, max {:.6g}, n = {})", format_point(p.x, params),
                               p.mean(), *mn, *mx, p.values.size()),
                   "measured");
    }
    for (const auto& p : preds) {
        if (!fr.placeable(p.x[0], p.value)) {
            ++omitted;
            continue;
        }
        if (p.lo && p.hi) {
            const double lo = fr.y.placeable(*p.lo) ? *p.lo : ay.lo;
            doc.line(fr.to_pixel(p.x[0], lo), fr.to_pixel(p.x[0], *p.hi),
                     svg::Style{svg::colour(1), "none", 2, "", 1, "interval"});
        }
        doc.marker(svg::Marker::diamond, fr.to_pixel(p.x[0], p.value), 6, svg::colour(1), !p.far,
                   fmt::format("prediction at {}: {:.6g}{}{}", format_point(p.x, params), p.value,
                               p.lo && p.hi ? fmt::format(" [{:.6g}, {:.6g}]", *p.lo, *p.hi) : std::string(),
                               p.far ? " (far extrapolation)" : ""),
                   p.far ? "prediction far" : "prediction");
    }
    if (omitted > 0)
        doc.note({90, 430}, fmt::format("{} value(s) omitted: not placeable on the axes", omitted));
    const std::vector<svg::LegendEntry> legend = {
        {"measured (mean, min–max)", "#222", svg::Marker::circle, true, false, ""},
        {fmt::format("model: {}", f.model.formula(params)), svg::colour(0), std::nullopt, true, true, ""},
        {"prediction, 95 % interval (hollow: far)", svg::colour(1), svg::Marker::diamond, true, false, ""}};
    // Legend in the upper corner the curve leaves free: right for decreasing data, left otherwise.
    const bool decreasing = f.model.evaluate({ax.hi, fixed}) < f.model.evaluate({ax.lo, fixed});
    const double width = svg::legend_box(legend, {0, 0}, 11).w;
    const double left =
        decreasing ? std::max(fr.area.x + 10, fr.area.x + fr.area.w - width - 10) : fr.area.x + 10;
    svg::draw_legend(doc, legend, {left, fr.area.y + 8}, 11);
    return doc.standalone();
}

} // namespace roofcast::report
