#include "core/units.hpp"
#include "report/bandwidth.hpp"
#include "report/svg.hpp"
#include "report/threads_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace roofcast::report {

using namespace model::threads;

std::string threads_svg(const ThreadsAnalysis& a, std::size_t index) {
    const SeriesAnalysis& sa = a.series[index];
    const model::threads::Series& d = a.data.series[index];
    const ModelReport& m = sa.models.front();
    const Context& c = a.data.context;
    // The caption under the chart: the model's formula, one clause a line.
    std::vector<std::string> caption;
    for (std::size_t from = 0; from < m.formula.size();) {
        const std::size_t end = m.formula.find("; ", from);
        caption.push_back(
            m.formula.substr(from, end == std::string::npos ? std::string::npos : end + 1 - from));
        from = end == std::string::npos ? m.formula.size() : end + 2;
    }
    if (caption.empty())
        caption.emplace_back();
    caption.front() = fmt::format("lines: {} model, {}", m.name, caption.front());
    constexpr double k_caption_y = 468, k_caption_line = 14;
    svg::Document doc(760, k_caption_y + k_caption_line * static_cast<double>(caption.size()),
                      fmt::format("T(n, s) {} {}", c.kernel, sa.api), fmt::format("thr{}", index));
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    std::set<int> ss;
    for (const auto& p : d.points) {
        xlo = std::min(xlo, p.n);
        xhi = std::max(xhi, p.n);
        ylo = std::min(ylo, p.seconds.min);
        yhi = std::max(yhi, p.seconds.max);
        ss.insert(p.s);
    }
    if (!(xlo > 0) || !(ylo > 0)) {
        doc.note({20, 40}, "no positive times to plot");
        return doc.standalone();
    }
    svg::Axis xa = svg::Axis::log2(xlo, std::max(xhi, 2 * xlo), "n [elements]");
    xa.format = count_tick;
    const svg::Frame fr = svg::make_frame({80, 50, 500, 360}, xa, svg::Axis::log10(ylo, yhi, "time [s]"));
    svg::draw_axes(doc, fr);
    doc.text({330, 30}, fmt::format("{} ({}): time against n, one colour per thread count", c.kernel, sa.api),
             14, svg::Anchor::middle);
    const std::string clip = doc.define_clip("area", fr.area);
    doc.begin_group("capacities", clip);
    for (const auto& k : c.caches) {
        const double n = k.bytes / c.bytes_per_n;
        if (!fr.x.in_range(n))
            continue;
        const double px = fr.x.to_pixel(n);
        doc.line({px, fr.area.y}, {px, fr.area.y + fr.area.h}, {"#777", "none", 1, "4 4", 1, "cache"},
                 fmt::format("{} {} = n {:.4g}", k.name, core::format_size(k.bytes), n));
        doc.text({px + 3, fr.area.y + 14}, k.name, 11, svg::Anchor::start, "#555");
    }
    doc.end_group();
    std::vector<svg::LegendEntry> legend;
    std::size_t colour_index = 0;
    std::map<int, std::string> colours;
    for (const int s : ss)
        colours[s] = svg::colour(colour_index++);
    doc.begin_group("model", clip);
    for (const int s : ss) {
        std::vector<svg::Point> pts;
        const double l0 = std::log(fr.x.lo), l1 = std::log(fr.x.hi);
        for (int k = 0; k <= 240; ++k) {
            const double n = std::exp(l0 + (l1 - l0) * k / 240.0);
            const double t = m.evaluate(n, s);
            if (fr.placeable(n, t))
                pts.push_back(fr.to_pixel(n, t));
        }
        doc.polyline(pts, {colours[s], "none", 1.3, "", 0.85, "model-line"},
                     fmt::format("{} model, s = {}", m.name, s));
        legend.push_back({fmt::format("s = {}", s), colours[s], svg::Marker::circle, true, true, ""});
    }
    doc.end_group();
    doc.begin_group("points", clip);
    for (const auto& p : d.points) {
        if (!fr.placeable(p.n, p.seconds.median))
            continue;
        const auto a0 = fr.to_pixel(p.n, p.seconds.min), a1 = fr.to_pixel(p.n, p.seconds.max);
        doc.line(a0, a1, {colours[p.s], "none", 1, "", 0.7, "spread"});
        doc.marker(svg::Marker::circle, fr.to_pixel(p.n, p.seconds.median), 2.8, colours[p.s], true,
                   fmt::format("n = {:g}, s = {}: median {:.4g} s (min {:.4g}, max {:.4g}, n = {})", p.n, p.s,
                               p.seconds.median, p.seconds.min, p.seconds.max, p.seconds.n),
                   "measured");
    }
    for (const auto& b : sa.best) {
        if (!fr.placeable(b.n, b.best_value))
            continue;
        doc.marker(svg::Marker::circle, fr.to_pixel(b.n, b.best_value), 6.5, "#000000", false,
                   fmt::format("best s at n = {:g}: {} ({:.4g} s; {:.1f} % faster than all {} threads)", b.n,
                               b.best_s, b.best_value, 100 * b.gain, b.all_threads),
                   "best");
    }
    doc.end_group();
    legend.push_back({"best s (model)", "#000000", svg::Marker::circle, false, false, ""});
    legend.push_back({"cache capacity", "#777", std::nullopt, true, true, "4 4"});
    svg::draw_legend(doc, legend, {600, 50}, 11);
    for (std::size_t i = 0; i < caption.size(); ++i)
        doc.text({80, k_caption_y + k_caption_line * static_cast<double>(i)}, caption[i], 11);
    return doc.standalone();
}

std::string threads_html_section(const ThreadsAnalysis& a) {
    std::string out = "<section id=\"threads\"><h2>Threads: T(n, s) and the best thread count</h2>\n";
    for (std::size_t i = 0; i < a.series.size(); ++i) {
        std::string chart = threads_svg(a, i);
        const auto start = chart.find("<svg");
        out += "<figure>" + (start == std::string::npos ? chart : chart.substr(start)) + "</figure>\n";
    }
    out += "<pre>" + svg::escape(threads_text(a)) + "</pre>\n</section>\n";
    return out;
}

std::string threads_html_page(const ThreadsAnalysis& a) {
    return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head><meta "
           "charset=\"utf-8\"/>"
           "<title>roofcast "
           "threads</title><style>body{font-family:sans-serif;margin:2em}pre{font-size:12px}</style>"
           "</head><body><h1>roofcast threads</h1>\n" +
           threads_html_section(a) + "</body></html>\n";
}

} // namespace roofcast::report
