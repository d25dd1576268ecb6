#include "report/bandwidth.hpp"

#include "core/units.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace roofcast::report {

namespace {

constexpr double k_font = 12;
constexpr double k_plot_x = 96;
constexpr double k_plot_y = 76;
constexpr double k_plot_w = 620;
constexpr double k_plot_h = 440;

struct Boundary {
    std::string level;
    double bytes = 0;
    bool effective = false;
};

std::string thread_text(int t) {
    return fmt::format("{} thread{}", t, t == 1 ? "" : "s");
}

// "L3 260 MiB", or "L3 usable 67.3 MiB" for a size measured by the sweep.
std::string size_label(const Boundary& b) {
    return b.effective ? fmt::format("{} usable {}", b.level, size_tick(b.bytes))
                       : fmt::format("{} {}", b.level, size_tick(b.bytes));
}

} // namespace

namespace {

// A whole multiple of a power of 1024 with its binary prefix ("48 KiB", "16 Mi"); nullopt where not whole.
std::optional<std::string> binary_tick(double value, std::string_view unit) {
    static const std::array<const char*, 5> k_prefixes{"", "Ki", "Mi", "Gi", "Ti"};
    std::size_t k = 0;
    double v = value;
    while (v >= 1024 && k + 1 < k_prefixes.size()) {
        v /= 1024;
        ++k;
    }
    if (std::fabs(v - std::round(v)) >= 1e-9)
        return std::nullopt;
    const std::string suffix = fmt::format("{}{}", k_prefixes[k], unit);
    return suffix.empty() ? fmt::format("{:.0f}", v) : fmt::format("{:.0f} {}", v, suffix);
}

} // namespace

std::string size_tick(double bytes) {
    return binary_tick(bytes, "B").value_or(core::format_size(bytes));
}

std::string count_tick(double n) {
    return binary_tick(n, "").value_or(svg::compact_number(n));
}

namespace {

// Dash patterns of the curves, one per thread count (solid for the first).
constexpr std::array<const char*, 3> k_curve_dashes{"", "7 4", "2 3"};

// The sweep's curves keyed by (kernel, threads), in first-seen order for stable colours; the kernels
// (colours) and thread counts (dashes) they use; notes on what could not be drawn.
struct SweepCurves {
    std::vector<std::pair<std::string, int>> keys;
    std::map<std::pair<std::string, int>, std::vector<const core::BandwidthPoint*>> curves;
    std::vector<std::string> kernel_names;
    std::vector<int> thread_counts;

    std::size_t kernel_index(const std::string& k) const {
        return static_cast<std::size_t>(std::find(kernel_names.begin(), kernel_names.end(), k) -
                                        kernel_names.begin());
    }
    std::size_t thread_index(int t) const {
        return static_cast<std::size_t>(std::find(thread_counts.begin(), thread_counts.end(), t) -
                                        thread_counts.begin());
    }
};

SweepCurves sweep_curves(const core::Machine& m, std::vector<std::string>& notes) {
    SweepCurves c;
    int omitted = 0;
    for (const auto& p : m.sweep) {
        if (!(p.working_set_bytes > 0) || !(p.gbs.median > 0) || !std::isfinite(p.gbs.median)) {
            ++omitted;
            continue;
        }
        const auto key = std::make_pair(p.kernel, p.threads);
        if (!c.curves.count(key))
            c.keys.push_back(key);
        c.curves[key].push_back(&p);
    }
    if (omitted > 0)
        notes.push_back(fmt::format("{} sweep point{} omitted: zero or negative size or bandwidth", omitted,
                                    omitted == 1 ? "" : "s"));
    if (m.sweep.empty())
        notes.push_back("the machine file has no bandwidth sweep: plateaus only");
    for (const auto& [k, t] : c.keys) {
        if (std::find(c.kernel_names.begin(), c.kernel_names.end(), k) == c.kernel_names.end())
            c.kernel_names.push_back(k);
        if (std::find(c.thread_counts.begin(), c.thread_counts.end(), t) == c.thread_counts.end())
            c.thread_counts.push_back(t);
    }
    std::sort(c.thread_counts.begin(), c.thread_counts.end());
    return c;
}

// Level boundaries: each cache's reported size, and its usable size when the sweep disagreed.
std::vector<Boundary> level_boundaries(const core::Machine& m) {
    std::vector<Boundary> sizes;
    if (m.topology) {
        for (const auto& c : m.topology->caches) {
            sizes.push_back({c.name, static_cast<double>(c.size_bytes), false});
            if (c.effective_size_bytes && *c.effective_size_bytes != c.size_bytes)
                sizes.push_back({c.name, static_cast<double>(*c.effective_size_bytes), true});
        }
    } else {
        for (const auto& l : m.levels)
            if (l.size_bytes && *l.size_bytes > 0)
                sizes.push_back({l.name, static_cast<double>(*l.size_bytes), false});
    }
    return sizes;
}

// Log axes around every curve point, cache size and level roof.
svg::Frame bandwidth_frame(const core::Machine& m, const SweepCurves& c, const std::vector<Boundary>& sizes) {
    std::vector<double> xs, ys;
    for (const auto& [key, pts] : c.curves)
        for (const auto* p : pts) {
            xs.push_back(static_cast<double>(p->working_set_bytes));
            ys.push_back(p->gbs.median);
        }
    for (const auto& b : sizes)
        xs.push_back(b.bytes);
    for (const auto& l : m.levels)
        if (l.bandwidth_gbs)
            ys.push_back(*l.bandwidth_gbs);
    const auto [xmin, xmax] = std::minmax_element(xs.begin(), xs.end());
    const auto [ymin, ymax] = std::minmax_element(ys.begin(), ys.end());
    svg::Axis xa = xs.empty() ? svg::Axis::log2(1024, 1 << 30, "Working set")
                              : svg::Axis::log2(*xmin / 1.5, *xmax * 1.5, "Working set");
    xa.format = size_tick;
    const svg::Axis ya = ys.empty() ? svg::Axis::log10(1, 1000, "Bandwidth [GB/s]")
                                    : svg::Axis::log10(*ymin / 1.3, *ymax * 1.3, "Bandwidth [GB/s]");
    return svg::make_frame({k_plot_x, k_plot_y, k_plot_w, k_plot_h}, xa, ya);
}

std::vector<svg::LegendEntry> bandwidth_legend(const SweepCurves& c, const std::vector<Boundary>& sizes) {
    std::vector<svg::LegendEntry> legend;
    for (const auto& [k, t] : c.keys)
        legend.push_back({k + ", " + thread_text(t), svg::colour(c.kernel_index(k)), svg::Marker::circle,
                          true, true, k_curve_dashes[c.thread_index(t) % k_curve_dashes.size()]});
    legend.push_back({"cache size (reported)", "#666666", std::nullopt, true, true, ""});
    if (std::any_of(sizes.begin(), sizes.end(), [](const Boundary& b) { return b.effective; }))
        legend.push_back({"usable size (sweep)", "#666666", std::nullopt, true, true, "5 4"});
    legend.push_back({"level bandwidth (roof)", "#2b2b2b", std::nullopt, true, true, "1 3"});
    legend.push_back({"noisy point (spread > 5 %)", "#555555", svg::Marker::circle, false, false, ""});
    return legend;
}

// Region served by level i: from the previous cache's usable size to this cache's usable size, shaded, with
// the level's roof drawn across it.
void draw_plateaus(svg::Document& doc, const svg::Frame& f, const core::Machine& m,
                   const std::vector<Boundary>& sizes, const std::string& clip) {
    doc.begin_group("plateaus", clip);
    std::map<std::string, double> usable;
    for (const auto& b : sizes)
        if (!usable.count(b.level) || b.effective)
            usable[b.level] = b.bytes;
    double left = f.x.lo;
    for (std::size_t i = 0; i < m.levels.size(); ++i) {
        const core::Level& l = m.levels[i];
        const double right = usable.count(l.name) ? usable[l.name] : f.x.hi;
        if (right <= left)
            continue;
        const double x0 = f.x.to_pixel(std::max(left, f.x.lo));
        const double x1 = f.x.to_pixel(std::min(right, f.x.hi));
        if (x1 > x0) {
            doc.rect(
                {x0, f.area.y, x1 - x0, f.area.h},
                svg::Style{"none", i % 2 == 0 ? "#eef3f8" : "#f8f8f8", 0, "", 1, "plateau"},
                fmt::format("{}: working sets from {} to {}", l.name, size_tick(left), size_tick(right)));
            doc.text({(x0 + x1) / 2, f.area.y + 18}, l.name, 13, svg::Anchor::middle, "#7a8796",
                     "plateau-label", 0, false, "bold");
            if (l.bandwidth_gbs && f.y.in_range(*l.bandwidth_gbs)) {
                const double py = f.y.to_pixel(*l.bandwidth_gbs);
                doc.line(
                    {x0, py}, {x1, py}, svg::Style{"#2b2b2b", "none", 1.6, "1 3", 1, "plateau-roof"},
                    fmt::format("{} roof: {} ({})", l.name, gbs_text(*l.bandwidth_gbs),
                                l.bandwidth_kernel.empty() ? core::to_string(l.source) : l.bandwidth_kernel));
            }
        }
        left = right;
    }
    doc.end_group();
}

// The cache sizes as vertical lines, labelled above the plot on two rows so that close sizes do not collide.
void draw_cache_sizes(svg::Document& doc, const svg::Frame& f, const std::vector<Boundary>& sizes,
                      const std::string& clip, double width) {
    doc.begin_group("cache-sizes", clip);
    for (const auto& b : sizes) {
        if (!f.x.in_range(b.bytes))
            continue;
        const double px = f.x.to_pixel(b.bytes);
        const std::string label = size_label(b);
        doc.line({px, f.area.y}, {px, f.area.y + f.area.h},
                 svg::Style{"#666666", "none", 1.3, b.effective ? "5 4" : "", 1, "cache-size"}, label);
    }
    doc.end_group();
    svg::LabelPlacer top_placer({0, k_plot_y - 34, width, 32});
    for (const auto& b : sizes) {
        if (!f.x.in_range(b.bytes))
            continue;
        const double px = f.x.to_pixel(b.bytes);
        const std::string label = size_label(b);
        const double w = svg::text_width(label, 10.5);
        const svg::Box box = top_placer.place_first({{px - w / 2, k_plot_y - 17, w, 14},
                                                     {px - w / 2, k_plot_y - 32, w, 14},
                                                     {px - w - 2, k_plot_y - 17, w, 14},
                                                     {px + 2, k_plot_y - 17, w, 14},
                                                     {px - w - 2, k_plot_y - 32, w, 14},
                                                     {px + 2, k_plot_y - 32, w, 14}});
        doc.line({px, box.y + 13}, {px, k_plot_y},
                 svg::Style{"#666666", "none", 1, b.effective ? "2 2" : "", 1, ""});
        doc.text({box.x + w / 2, box.y + 10}, label, 10.5, svg::Anchor::middle, "#444", "cache-label");
    }
}

// One line per curve and a marker per point (hollow when noisy), each with its figures as a tooltip.
void draw_sweep_curves(svg::Document& doc, const svg::Frame& f, const SweepCurves& c,
                       const std::string& clip) {
    doc.begin_group("curves", clip);
    for (const auto& key : c.keys) {
        auto pts = c.curves.at(key);
        std::sort(pts.begin(), pts.end(),
                  [](const auto* a, const auto* b) { return a->working_set_bytes < b->working_set_bytes; });
        const std::size_t ki = c.kernel_index(key.first);
        const std::size_t ti = c.thread_index(key.second);
        std::vector<svg::Point> line;
        for (const auto* p : pts)
            line.push_back(f.to_pixel(static_cast<double>(p->working_set_bytes), p->gbs.median));
        doc.polyline(line,
                     svg::Style{svg::colour(ki), "none", 2, k_curve_dashes[ti % k_curve_dashes.size()], 1,
                                "sweep-curve"},
                     fmt::format("{}, {}", key.first, thread_text(key.second)));
        for (const auto* p : pts) {
            std::string tip = fmt::format(
                "{}, {}, working set {}: {} (median of {}", key.first, thread_text(key.second),
                size_tick(static_cast<double>(p->working_set_bytes)), gbs_text(p->gbs.median), p->gbs.n);
            if (p->gbs.spread)
                tip += fmt::format(", spread {:.1f} %", *p->gbs.spread * 100);
            tip += p->gbs.noisy ? ", NOISY)" : ")";
            doc.marker(
                svg::Marker::circle, f.to_pixel(static_cast<double>(p->working_set_bytes), p->gbs.median),
                3.2, svg::colour(ki), !p->gbs.noisy, tip, p->gbs.noisy ? "sweep-point noisy" : "sweep-point");
        }
    }
    doc.end_group();
}

} // namespace

svg::Document bandwidth_chart(const core::Machine& m, const std::string& id_prefix) {
    std::vector<std::string> notes;
    const SweepCurves curves = sweep_curves(m, notes);
    const std::vector<Boundary> sizes = level_boundaries(m);
    const svg::Frame f = bandwidth_frame(m, curves, sizes);
    const std::vector<svg::LegendEntry> legend = bandwidth_legend(curves, sizes);

    const svg::Point legend_at{k_plot_x + k_plot_w + 18, k_plot_y};
    const svg::Box lb = svg::legend_box(legend, legend_at, k_font);
    const double notes_top = k_plot_y + k_plot_h + 62;
    const double height =
        std::max(notes_top + 16.0 * static_cast<double>(notes.size()) + 4, lb.y + lb.h + 12);
    const double width = std::max(980.0, lb.x + lb.w + 12);
    const std::string title = fmt::format("Bandwidth vs working set · {}", m.name);
    svg::Document doc(width, height, title, id_prefix);
    doc.rect({0, 0, width, height}, svg::Style{"none", "#ffffff", 0, "", 1, "background"});
    doc.text({k_plot_x, 26}, title, 15, svg::Anchor::start, "#111", "chart-title", 0, false, "bold");
    svg::draw_axes(doc, f, k_font);

    const std::string clip = doc.define_clip("plot", f.area);
    draw_plateaus(doc, f, m, sizes, clip);
    draw_cache_sizes(doc, f, sizes, clip, width);
    draw_sweep_curves(doc, f, curves, clip);

    svg::draw_legend(doc, legend, legend_at, k_font);
    for (std::size_t i = 0; i < notes.size(); ++i)
        doc.note({k_plot_x - 60, notes_top + 16.0 * static_cast<double>(i)}, notes[i]);
    return doc;
}

} // namespace roofcast::report
