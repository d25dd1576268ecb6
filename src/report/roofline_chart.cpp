#include "report/roofline_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::report::detail {

namespace {

std::vector<std::string> level_order(const core::Machine& m, const core::KernelResult& k) {
    std::vector<std::string> order;
    for (const auto& l : m.levels)
        order.push_back(l.name);
    for (const auto& [name, bytes] : k.bytes_per_iteration)
        if (std::find(order.begin(), order.end(), name) == order.end())
            order.push_back(name);
    return order;
}

} // namespace

const Series& series_of(const std::string& suite) {
    static const std::map<std::string, Series> k_series{
        {"stream", {"STREAM", 0, svg::Marker::circle, true}},
        {"apps", {"applications", 1, svg::Marker::triangle, true}},
        {"mixed", {"mixed family", 2, svg::Marker::square, false}},
        {"user", {"profiled regions", 3, svg::Marker::diamond, true}},
        {"calibrate", {"calibration loops", 4, svg::Marker::circle, true}}};
    static const Series k_other{"other kernels", 5, svg::Marker::diamond, true};
    auto it = k_series.find(suite);
    return it == k_series.end() ? k_other : it->second;
}

void Chart::collect_sweeps() {
    if (set != KernelSet::calibration_only)
        return;
    // Measured series' shapes (the predictions use the other four); colours in the Okabe–Ito order.
    static constexpr std::array k_shapes{svg::Marker::circle, svg::Marker::square, svg::Marker::triangle,
                                         svg::Marker::diamond};
    std::map<std::string, std::size_t> members;
    for (const auto& k : kernels)
        if (shown(k))
            ++members[family_key(k.name)];
    for (const auto& k : kernels) {
        const std::string key = family_key(k.name);
        if (!shown(k) || sweeps.count(key))
            continue;
        // A loop alone in its sweep keeps its own label.
        const bool single = members[key] == 1;
        const std::size_t i = sweeps.size();
        sweeps.emplace(
            key, Series{single ? k.name : key + " loops", i % 8, k_shapes[i % k_shapes.size()], single});
    }
}

void Chart::collect_classic() {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const core::KernelResult& k = kernels[i];
        if (!shown(k))
            continue;
        const std::string level = classic_level(k, machine);
        if (level.empty()) {
            notes.push_back(k.name + " omitted: no bytes per iteration, so no arithmetic intensity");
            continue;
        }
        const double intensity = k.flops_per_iteration / k.bytes_per_iteration.at(level);
        if (!(intensity > 0) || !std::isfinite(intensity)) {
            notes.push_back(fmt::format("{} omitted: {:g} FLOP per iteration gives intensity {:g}, which a "
                                        "log axis cannot show",
                                        k.name, k.flops_per_iteration, intensity));
            continue;
        }
        double measured_y = 0;
        if (k.measured_gflops) {
            const double y = k.measured_gflops->median;
            if (y > 0 && std::isfinite(y)) {
                marks.push_back({i, intensity, y, level});
                measured_y = y;
            } else {
                notes.push_back(fmt::format("{}: measured {:g} GFLOP/s omitted (not positive)", k.name, y));
            }
        }
        int omitted = 0;
        for (const auto& p : k.predictions) {
            // A joined series (the mixed family, a sweep of calibration loops) shows the mixed model's
            // prediction only (30 members x 4 models crowded the chart; every prediction stays in the
            // table). The legend lists the models drawn.
            if (joined(i) && p.model != "mixed")
                continue;
            const auto it = std::find(models.begin(), models.end(), p.model);
            const std::size_t mi = static_cast<std::size_t>(it - models.begin());
            if (it == models.end())
                models.push_back(p.model);
            if (p.gflops > 0 && std::isfinite(p.gflops))
                preds.push_back({i, mi, intensity, p.gflops, measured_y, &p});
            else
                ++omitted;
        }
        if (omitted > 0)
            notes.push_back(fmt::format("{}: {} prediction{} omitted (not positive)", k.name, omitted,
                                        omitted == 1 ? "" : "s"));
    }
}

void Chart::collect_hierarchical() {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const core::KernelResult& k = kernels[i];
        if (!shown(k))
            continue;
        if (!(k.flops_per_iteration > 0)) {
            notes.push_back(fmt::format("{} omitted: {:g} FLOP per iteration has no positive intensity",
                                        k.name, k.flops_per_iteration));
            continue;
        }
        if (!k.measured_gflops || !(k.measured_gflops->median > 0) ||
            !std::isfinite(k.measured_gflops->median)) {
            notes.push_back(k.name + " omitted: no positive measured performance");
            continue;
        }
        int placed = 0;
        for (const auto& level : level_order(machine, k)) {
            auto it = k.bytes_per_iteration.find(level);
            if (it == k.bytes_per_iteration.end() || !(it->second > 0))
                continue;
            const double intensity = k.flops_per_iteration / it->second;
            if (!std::isfinite(intensity))
                continue;
            marks.push_back({i, intensity, k.measured_gflops->median, level});
            ++placed;
        }
        if (placed == 0)
            notes.push_back(k.name + " omitted: no bytes per iteration at any level");
    }
}

svg::Document Chart::render() {
    collect_sweeps();
    if (view == RooflineView::classic)
        collect_classic();
    else
        collect_hierarchical();
    // Two passes: the first finds the kernels whose labels do not fit (numbered markers), the second
    // lists them in the legend. The plotting area does not depend on the legend, so the placement of
    // the second pass is the same.
    draw();
    return draw();
}

svg::Document Chart::draw() {
    std::vector<std::string> listed = numbered;
    numbered.clear();

    // Axis ranges: every placed value and every ridge, with a margin so nothing sits on the frame.
    std::vector<double> xs, ys;
    for (const auto& m : marks) {
        xs.push_back(m.x);
        ys.push_back(m.y);
    }
    for (const auto& p : preds) {
        xs.push_back(p.x);
        ys.push_back(p.y);
    }
    for (const auto& r : roofs.memory)
        xs.push_back(r.ridge);
    for (const auto& c : roofs.compute)
        ys.push_back(c.gflops);
    if (!roofs.memory.empty()) {
        // Show the slanted roofs over at least a decade and a half left of the first ridge, down to
        // where the lowest bandwidth roof is at that intensity.
        const auto [lo, hi] =
            std::minmax_element(roofs.memory.begin(), roofs.memory.end(),
                                [](const MemoryRoof& a, const MemoryRoof& b) { return a.ridge < b.ridge; });
        const double left = lo->ridge / 8;
        xs.push_back(left);
        ys.push_back(hi->gbs * left);
    }
    const auto [xmin, xmax] = std::minmax_element(xs.begin(), xs.end());
    const auto [ymin, ymax] = std::minmax_element(ys.begin(), ys.end());
    svg::Axis xa = xs.empty() ? svg::Axis::log10(0.01, 100, "")
                              : svg::Axis::log10(*xmin / 2.5, std::max(*xmax * 2.5, *xmin * 100), "");
    svg::Axis ya = ys.empty() ? svg::Axis::log10(0.1, 1000, "") : svg::Axis::log10(*ymin / 2, *ymax * 2, "");
    xa.label = view == RooflineView::classic ? "Arithmetic intensity [FLOP/byte]"
                                             : "Arithmetic intensity at each memory level [FLOP/byte]";
    ya.label = "Performance [GFLOP/s]";
    const svg::Frame f = svg::make_frame({k_plot_x, k_plot_y, k_plot_w, k_plot_h}, xa, ya);

    std::vector<svg::LegendEntry> legend = legend_entries();
    for (std::size_t i = 0; i < listed.size(); ++i)
        legend.push_back({fmt::format("{}  {}", i + 1, listed[i]), "#555555", std::nullopt, true, false, ""});
    const svg::Point legend_at{k_plot_x + k_plot_w + k_legend_gap, k_plot_y};
    const svg::Box lb = svg::legend_box(legend, legend_at, k_font);
    const double notes_top = k_plot_y + k_plot_h + 62;
    const double height =
        std::max(notes_top + 16.0 * static_cast<double>(notes.size()) + 4, lb.y + lb.h + 12);
    const double width = std::max(980.0, lb.x + lb.w + 12);
    svg::Document doc(width, height, title, id_prefix);
    doc.rect({0, 0, width, height}, svg::Style{"none", "#ffffff", 0, "", 1, "background"});
    doc.text({k_plot_x, 28}, title, 15, svg::Anchor::start, "#111", "chart-title", 0, false, "bold");
    svg::draw_axes(doc, f, k_font);

    svg::LabelPlacer placer(f.area);
    const std::string clip = doc.define_clip("plot", f.area);
    doc.begin_group("roofs", clip);
    draw_roofs(doc, f);
    doc.end_group();
    doc.begin_group("kernels", clip);
    if (view == RooflineView::classic)
        draw_classic(doc, f, placer);
    else
        draw_hierarchical(doc, f, placer);
    doc.end_group();
    // Texts only (no dots): a roof label that finds no place free of dots may cover dots, never text.
    svg::LabelPlacer texts(f.area);
    draw_ridges(doc, f, placer, texts);
    draw_roof_labels(doc, f, placer, texts);
    draw_kernel_labels(doc, f, placer);
    svg::draw_legend(doc, legend, legend_at, k_font);
    for (std::size_t i = 0; i < notes.size(); ++i)
        doc.note({k_plot_x - 60, notes_top + 16.0 * static_cast<double>(i)}, notes[i]);
    return doc;
}

} // namespace roofcast::report::detail
