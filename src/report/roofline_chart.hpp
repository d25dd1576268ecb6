// Internals of the roofline chart (report/roofline.hpp), shared by the files that implement one idea
// each: roofline_chart.cpp (the marks of the kernels, and the chart's layout: axes, legend, notes),
// roofline_draw.cpp (the roofs, the ridge points and the marks), roofline_labels.cpp (the placement of
// the roof and kernel labels, and the legend's entries); roofline.cpp keeps the roofs and the public
// functions. Not a public interface: only the roofline sources include it.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "report/roofline.hpp"
#include "report/svg.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::report::detail {

inline constexpr double k_font = 12;
inline constexpr double k_plot_x = 96;
inline constexpr double k_plot_y = 48;
inline constexpr double k_plot_w = 620;
inline constexpr double k_plot_h = 470;
inline constexpr double k_legend_gap = 18;
inline constexpr double k_dot_radius = 6;
inline constexpr const char* k_roof_colour = "#2b2b2b";
inline constexpr const char* k_ceiling_colour = "#6b6b6b";

// A visible series: the kernels of one suite share a colour AND a marker shape (so the chart reads in
// greyscale and with any colour-vision deficiency); the series, not the kernels, make the legend.
struct Series {
    std::string label;
    std::size_t colour = 0; // Okabe–Ito index
    svg::Marker marker = svg::Marker::circle;
    bool labelled = true; // each kernel gets its own label (the mixed family is labelled once)
};

// roofline_chart.cpp
const Series& series_of(const std::string& suite);
// A joined group's key: the kernel's name up to its last dash. The mixed family's sub-series ("3M-4L1" of
// "3M-4L1-12F": same neighbour count n and cache) and the calibration loops' sweeps ("calib-L3" of
// "calib-L3-9F": one level, flops per iteration rising) are joined in catalogue order by this key.
std::string family_key(const std::string& name);

struct Mark {
    std::size_t kernel = 0;
    double x = 0;
    double y = 0;
    std::string level;
};

struct PredMark {
    std::size_t kernel = 0;
    std::size_t model = 0;
    double x = 0;
    double y = 0;
    double measured_y = 0; // 0 when the kernel has no placeable measurement
    const core::Prediction* p = nullptr;
};

struct Chart {
    const core::Machine& machine;
    const Roofs& roofs;
    const std::vector<core::KernelResult>& kernels;
    RooflineView view;
    std::string title;
    std::string id_prefix;

    std::vector<Mark> marks;
    std::vector<PredMark> preds;
    std::vector<std::string> models;
    std::vector<std::string> notes;
    KernelSet set = KernelSet::all_but_calibration;
    std::vector<std::string> numbered; // kernels whose name did not fit: "n name" in the legend
    // On the calibration chart each sweep of calibration loops (family_key) is a series of its own,
    // with its own colour and shape, joined and labelled once; empty on the other charts.
    std::map<std::string, Series> sweeps;

    bool shown(const core::KernelResult& k) const {
        switch (set) {
        case KernelSet::all_but_calibration:
            return k.suite != "calibrate";
        case KernelSet::calibration_only:
            return k.suite == "calibrate";
        case KernelSet::all:
            break;
        }
        return true;
    }
    const Series& series(std::size_t kernel) const {
        const core::KernelResult& k = kernels[kernel];
        if (!sweeps.empty() && k.suite == "calibrate")
            return sweeps.at(family_key(k.name));
        return series_of(k.suite);
    }
    // Joined series: the kernels that are drawn as one line and labelled once (not labelled).
    bool joined(std::size_t kernel) const { return !series(kernel).labelled; }
    std::string colour(std::size_t kernel) const { return svg::colour(series(kernel).colour); }
    std::string suite_class(std::size_t kernel) const { return report::suite_class(kernels[kernel].suite); }

    // roofline_chart.cpp: the marks, and the chart (two passes of draw).
    void collect_sweeps();
    void collect_classic();
    void collect_hierarchical();
    svg::Document render();
    svg::Document draw();

    // roofline_draw.cpp: the roofs, the ridge points and the marks.
    double widest_bandwidth() const;
    void draw_roofs(svg::Document& doc, const svg::Frame& f) const;
    void draw_ridges(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer,
                     svg::LabelPlacer& texts) const;
    void draw_classic(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) const;
    // The label anchor of each kernel: its rightmost mark (the MEM dot in the classic view).
    std::map<std::size_t, const Mark*> anchors() const;
    // The joined series' members (by suite and family_key) in catalogue order, each group drawn as a
    // thin line.
    std::map<std::string, std::vector<std::size_t>> families() const;
    void draw_family_lines(svg::Document& doc, const svg::Frame& f) const;
    void draw_hierarchical(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) const;

    // roofline_labels.cpp: the labels of the roofs and the kernels, and the legend.
    void draw_roof_labels(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer,
                          svg::LabelPlacer& texts) const;
    // Candidate boxes for a w×h label around a point, ring by ring: right, left, above, below and the
    // four diagonals at distance r, then farther rings (joined to the point by a leader line).
    static std::vector<svg::Box> ring(svg::Point at, double w, double h, double r);
    // Places one label near `at`: the nearest free candidate; a leader line when it had to move away.
    // Returns false when no candidate is free.
    bool place_label(svg::Document& doc, svg::LabelPlacer& placer, svg::Point at, const std::string& text,
                     double font, std::string_view weight, const std::string& fill,
                     std::string_view classes) const;
    void draw_kernel_labels(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer);
    std::vector<svg::LegendEntry> legend_entries() const;
};

} // namespace roofcast::report::detail
