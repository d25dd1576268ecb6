#include "report/roofline.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "model/bandwidth.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <numbers>
#include <set>

namespace roofcast::report {

namespace {

constexpr double k_font = 12;
constexpr double k_plot_x = 96;
constexpr double k_plot_y = 48;
constexpr double k_plot_w = 620;
constexpr double k_plot_h = 470;
constexpr double k_legend_gap = 18;
constexpr double k_dot_radius = 6;
constexpr const char* k_roof_colour = "#2b2b2b";
constexpr const char* k_ceiling_colour = "#6b6b6b";

std::string op_label(const std::string& op) {
    static const std::map<std::string, std::string> k_labels{{"fma", "FMA"},
                                                             {"add", "add"},
                                                             {"mul", "mul"},
                                                             {"addmul", "add+mul (no FMA)"},
                                                             {"chain", "dependent chain"}};
    auto it = k_labels.find(op);
    return it == k_labels.end() ? op : it->second;
}

// Text colour for a palette colour: Okabe–Ito yellow and orange are hard to read as text on white.
std::string label_colour(std::size_t i) {
    const std::string c = svg::colour(i);
    if (c == "#F0E442")
        return "#7a7000";
    return c == "#E69F00" ? "#9a6500" : c;
}

const core::ComputeCeiling* best(const std::vector<const core::ComputeCeiling*>& cs) {
    const core::ComputeCeiling* b = nullptr;
    for (const auto* c : cs)
        if (!b || c->gflops.median > b->gflops.median)
            b = c;
    return b;
}

// A visible series: the kernels of one suite share a colour AND a marker shape (so the chart reads in
// greyscale and with any colour-vision deficiency); the series, not the kernels, make the legend.
struct Series {
    std::string label;
    std::size_t colour = 0; // Okabe–Ito index
    svg::Marker marker = svg::Marker::circle;
    bool labelled = true; // each kernel gets its own label (the mixed family is labelled once)
};

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

// The mixed family's sub-series: members with the same neighbour count n and cache (the name up to the
// flop level, "3M-4L1" of "3M-4L1-12F") are joined in catalogue order, so the n and l structure shows.
std::string family_key(const std::string& name) {
    const auto dash = name.rfind('-');
    return dash == std::string::npos ? name : name.substr(0, dash);
}

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

std::string kernel_tooltip(const core::KernelResult& k, const std::string& level, double intensity,
                           bool with_predictions = true) {
    std::string t = fmt::format("{} ({}, {}, {} thread{})", k.name, k.suite, k.precision, k.threads,
                                k.threads == 1 ? "" : "s");
    if (k.measured_gflops)
        t += fmt::format("\nmeasured {} ({})", gflops_text(k.measured_gflops->median),
                         spread_text(*k.measured_gflops));
    else
        t += "\nnot measured";
    t += fmt::format(
        "\nI({}) = {} FLOP/byte ({} FLOP / {} B per iteration)", level, intensity_text(intensity),
        fmt::format("{:g}", k.flops_per_iteration),
        fmt::format("{:g}", k.bytes_per_iteration.count(level) ? k.bytes_per_iteration.at(level) : 0.0));
    for (const auto& p : k.predictions) {
        if (!with_predictions)
            break;
        t += fmt::format("\n{}: {}", p.model, gflops_text(p.gflops));
        if (p.error_pct)
            t += fmt::format(" ({:+.1f} %)", *p.error_pct);
        t += ", bound by " + p.bottleneck;
        if (!p.valid)
            t += ", outside validity";
    }
    return t;
}

std::vector<std::string> level_order(const core::Machine& m, const core::KernelResult& k) {
    std::vector<std::string> order;
    for (const auto& l : m.levels)
        order.push_back(l.name);
    for (const auto& [name, bytes] : k.bytes_per_iteration)
        if (std::find(order.begin(), order.end(), name) == order.end())
            order.push_back(name);
    return order;
}

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
    const Series& series(std::size_t kernel) const { return series_of(kernels[kernel].suite); }
    std::string colour(std::size_t kernel) const { return svg::colour(series(kernel).colour); }
    std::string suite_class(std::size_t kernel) const { return report::suite_class(kernels[kernel].suite); }

    void collect_classic() {
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
                notes.push_back(
                    fmt::format("{} omitted: {:g} FLOP per iteration gives intensity {:g}, which a "
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
                    notes.push_back(
                        fmt::format("{}: measured {:g} GFLOP/s omitted (not positive)", k.name, y));
                }
            }
            int omitted = 0;
            for (const auto& p : k.predictions) {
                const auto it = std::find(models.begin(), models.end(), p.model);
                const std::size_t mi = static_cast<std::size_t>(it - models.begin());
                if (it == models.end())
                    models.push_back(p.model);
                // The mixed family validates the mixed model: its members show that model's prediction
                // only (30 members x 4 models crowded the chart; every prediction stays in the table).
                if (k.suite == "mixed" && p.model != "mixed")
                    continue;
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

    void collect_hierarchical() {
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

    svg::Document render() {
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

    svg::Document draw() {
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
            const auto [lo, hi] = std::minmax_element(
                roofs.memory.begin(), roofs.memory.end(),
                [](const MemoryRoof& a, const MemoryRoof& b) { return a.ridge < b.ridge; });
            const double left = lo->ridge / 8;
            xs.push_back(left);
            ys.push_back(hi->gbs * left);
        }
        const auto [xmin, xmax] = std::minmax_element(xs.begin(), xs.end());
        const auto [ymin, ymax] = std::minmax_element(ys.begin(), ys.end());
        svg::Axis xa = xs.empty() ? svg::Axis::log10(0.01, 100, "")
                                  : svg::Axis::log10(*xmin / 2.5, std::max(*xmax * 2.5, *xmin * 100), "");
        svg::Axis ya =
            ys.empty() ? svg::Axis::log10(0.1, 1000, "") : svg::Axis::log10(*ymin / 2, *ymax * 2, "");
        xa.label = view == RooflineView::classic ? "Arithmetic intensity [FLOP/byte]"
                                                 : "Arithmetic intensity at each memory level [FLOP/byte]";
        ya.label = "Performance [GFLOP/s]";
        const svg::Frame f = svg::make_frame({k_plot_x, k_plot_y, k_plot_w, k_plot_h}, xa, ya);

        std::vector<svg::LegendEntry> legend = legend_entries();
        for (std::size_t i = 0; i < listed.size(); ++i)
            legend.push_back(
                {fmt::format("{}  {}", i + 1, listed[i]), "#555555", std::nullopt, true, false, ""});
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

    double widest_bandwidth() const {
        double b = 0;
        for (const auto& r : roofs.memory)
            b = std::max(b, r.gbs);
        return b;
    }

    void draw_roofs(svg::Document& doc, const svg::Frame& f) const {
        const double top = roofs.top();
        for (const auto& r : roofs.memory) {
            // Attainable performance under this level's roof: P = min(P_peak, I * B)
            // (Williams et al. 2009, eq. 1); the slanted part ends at the ridge I* = P_peak / B.
            const auto seg = svg::clip_segment(f, {f.x.lo, r.gbs * f.x.lo}, {r.ridge, top});
            if (!seg)
                continue;
            doc.line(seg->first, seg->second,
                     svg::Style{k_roof_colour, "none", 1.8, "", 1, "roof roof-memory"},
                     fmt::format("{} roof: {} ({}); ridge at {} FLOP/byte", r.level, gbs_text(r.gbs),
                                 r.source, intensity_text(r.ridge)));
        }
        const double b_max = widest_bandwidth();
        for (const auto& c : roofs.compute) {
            // A ceiling starts where it meets the highest bandwidth roof (I = P / B_max).
            const double x0 = b_max > 0 ? c.gflops / b_max : f.x.lo;
            const auto seg = svg::clip_segment(f, {x0, c.gflops}, {f.x.hi, c.gflops});
            if (!seg)
                continue;
            const bool is_top = &c == &roofs.compute.front();
            svg::Style s{is_top ? k_roof_colour : k_ceiling_colour,
                         "none",
                         is_top ? 2.4 : 1.3,
                         is_top ? "" : (c.theoretical ? "2 4" : "7 4"),
                         1,
                         c.theoretical ? "roof roof-theoretical" : "roof roof-compute"};
            std::string tip = fmt::format("{}: {}", c.label, gflops_text(c.gflops));
            if (c.measured)
                tip += " (" + spread_text(*c.measured) + ")";
            doc.line(seg->first, seg->second, s, tip);
        }
    }

    void draw_ridges(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer,
                     svg::LabelPlacer& texts) const {
        const double top = roofs.top();
        for (const auto& r : roofs.memory) {
            if (!f.x.in_range(r.ridge) || !f.y.in_range(top))
                continue;
            const svg::Point p = f.to_pixel(r.ridge, top);
            doc.marker(svg::Marker::diamond, p, 4.5, k_roof_colour, false,
                       fmt::format("{} ridge point: {} / {} = {} FLOP/byte", r.level, gflops_text(top),
                                   gbs_text(r.gbs), intensity_text(r.ridge)),
                       "ridge");
            placer.reserve({p.x - 5, p.y - 6, 10, 12});
            const std::string label = intensity_text(r.ridge);
            const double w = svg::text_width(label, 10);
            texts.reserve({p.x - 5, p.y - 6, 10, 12});
            const svg::Box b = placer.place_first({{p.x - w / 2, p.y + 8, w, 11},
                                                   {p.x + 6, p.y + 6, w, 11},
                                                   {p.x - w - 6, p.y + 6, w, 11},
                                                   {p.x - w / 2, p.y + 20, w, 11}});
            texts.reserve(b);
            doc.text({b.x + w / 2, b.y + 9}, label, 10, svg::Anchor::middle, "#444", "ridge-label", 0, true);
        }
    }

    void draw_roof_labels(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer,
                          svg::LabelPlacer& texts) const {
        for (const auto& r : roofs.memory) {
            const auto seg = svg::clip_segment(f, {f.x.lo, r.gbs * f.x.lo}, {r.ridge, roofs.top()});
            if (!seg)
                continue;
            const double dx = seg->second.x - seg->first.x;
            const double dy = seg->second.y - seg->first.y;
            const double len = std::hypot(dx, dy);
            std::string label = fmt::format("{} {}", r.level, gbs_text(r.gbs));
            if (svg::text_width(label, 11) + 30 > len)
                label = r.level;
            if (svg::text_width(label, 11) + 16 > len)
                continue;
            const double ux = dx / len;
            const double uy = dy / len;
            const double w = svg::text_width(label, 11) * 1.05;
            // Along the line from its lower-left end, lifted 5 px off the line (perpendicular); parallel
            // roofs close together would stack their labels, so each slides along its line until the
            // bounding box of the rotated text is free.
            // First pass: a place free of dots and texts; second pass: free of texts (the halo keeps the
            // label readable over the dots it covers).
            bool placed = false;
            for (int pass = 0; pass < 2 && !placed; ++pass)
                for (double along = 14; along + w + 8 < len; along += 12) {
                    const svg::Point p{seg->first.x + ux * along + uy * 5,
                                       seg->first.y + uy * along - ux * 5};
                    // Corners of the rotated text: baseline from p along u, glyphs rising along (uy, -ux).
                    const double xs[] = {p.x - uy * 3, p.x + ux * w, p.x + uy * 11, p.x + ux * w + uy * 11};
                    const double ys[] = {p.y + ux * 3, p.y + uy * w, p.y - ux * 11, p.y + uy * w - ux * 11};
                    const auto [x0, x1] = std::minmax_element(std::begin(xs), std::end(xs));
                    const auto [y0, y1] = std::minmax_element(std::begin(ys), std::end(ys));
                    const svg::Box box{*x0, *y0, *x1 - *x0, *y1 - *y0};
                    if (pass == 0 ? !placer.free(box) : !texts.free(box))
                        continue;
                    placer.reserve(box);
                    texts.reserve(box);
                    doc.text(p, label, 11, svg::Anchor::start, k_roof_colour, "roof-label",
                             std::atan2(dy, dx) * 180 / std::numbers::pi, true);
                    placed = true;
                    break;
                }
        }
        // Ceilings closer than 10 % share one label: two labels would sit on top of each other.
        std::vector<const ComputeRoof*> sorted;
        for (const auto& c : roofs.compute)
            if (f.y.in_range(c.gflops))
                sorted.push_back(&c);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const ComputeRoof* a, const ComputeRoof* b) { return a->gflops > b->gflops; });
        for (std::size_t i = 0; i < sorted.size();) {
            std::size_t j = i + 1;
            while (j < sorted.size() && sorted[j]->gflops > sorted[i]->gflops * 0.9)
                ++j;
            std::string label;
            for (std::size_t k = i; k < j; ++k)
                label += (k == i ? "" : " · ") + fmt::format("{} {}", sorted[k]->label,
                                                             k + 1 == j ? gflops_text(sorted[k]->gflops)
                                                                        : intensity_text(sorted[k]->gflops));
            const double py = f.y.to_pixel(sorted[i]->gflops);
            const double py_low = f.y.to_pixel(sorted[j - 1]->gflops);
            const double w = svg::text_width(label, 11);
            const double right = f.area.x + f.area.w - 6;
            std::vector<svg::Box> candidates;
            for (int shift = 0; shift < 10; ++shift)
                candidates.push_back({right - w - shift * 45.0, py - 14, w, 12});
            for (int shift = 0; shift < 10; ++shift)
                candidates.push_back({right - w - shift * 45.0, py_low + 2, w, 12});
            const svg::Box b = placer.place_first(candidates);
            doc.text({b.x, b.y + 10}, label, 11, svg::Anchor::start,
                     j == i + 1 && sorted[i]->theoretical ? "#777" : k_roof_colour, "roof-label", 0, true);
            i = j;
        }
    }

    void draw_classic(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) const {
        draw_family_lines(doc, f);
        // A segment from the measured dot to each prediction makes the error visible at a glance; one
        // path per series colour keeps a chart of a hundred kernels small.
        std::map<std::string, std::vector<std::pair<svg::Point, svg::Point>>> stems;
        std::map<std::string, std::size_t> stem_kernel;
        for (const auto& p : preds)
            if (p.measured_y > 0) {
                stems[kernels[p.kernel].suite].push_back(
                    {f.to_pixel(p.x, p.measured_y), f.to_pixel(p.x, p.y)});
                stem_kernel[kernels[p.kernel].suite] = p.kernel;
            }
        for (const auto& [suite, segs] : stems)
            doc.segments(segs, svg::Style{colour(stem_kernel[suite]), "none", 1, "", 0.45,
                                          "prediction-stem " + suite_class(stem_kernel[suite])});
        for (const auto& p : preds) {
            const svg::Point at = f.to_pixel(p.x, p.y);
            std::string tip = fmt::format("{} — {} predicts {}", kernels[p.kernel].name, p.p->model,
                                          gflops_text(p.p->gflops));
            if (p.p->error_pct)
                tip += fmt::format(" ({:+.1f} %)", *p.p->error_pct);
            tip += ", bound by " + p.p->bottleneck;
            if (!p.p->valid)
                tip += "\noutside the model's validity range";
            doc.marker(svg::prediction_marker(p.model), at, 4.5, colour(p.kernel), false, tip,
                       (p.p->valid ? "prediction " : "prediction invalid ") + suite_class(p.kernel));
            placer.reserve({at.x - 5, at.y - 5, 10, 10});
        }
        for (const auto& m : marks) {
            const svg::Point at = f.to_pixel(m.x, m.y);
            // Each prediction marker carries its own tooltip: the dot's lists none.
            doc.marker(series(m.kernel).marker, at, k_dot_radius - 1, colour(m.kernel), true,
                       kernel_tooltip(kernels[m.kernel], m.level, m.x, false),
                       "dot " + suite_class(m.kernel));
            placer.reserve({at.x - k_dot_radius, at.y - k_dot_radius, 2 * k_dot_radius, 2 * k_dot_radius});
        }
    }

    // The label anchor of each kernel: its rightmost mark (the MEM dot in the classic view).
    std::map<std::size_t, const Mark*> anchors() const {
        std::map<std::size_t, const Mark*> anchor;
        for (const auto& m : marks)
            if (!anchor.count(m.kernel) || m.x > anchor[m.kernel]->x)
                anchor[m.kernel] = &m;
        return anchor;
    }

    // The mixed family's members (n, cache) joined in catalogue order by a thin line.
    std::map<std::string, std::vector<std::size_t>> families() const {
        std::map<std::string, std::vector<std::size_t>> fam;
        for (const auto& [k, m] : anchors())
            if (kernels[k].suite == "mixed")
                fam[family_key(kernels[k].name)].push_back(k);
        return fam;
    }

    void draw_family_lines(svg::Document& doc, const svg::Frame& f) const {
        const auto anchor = anchors();
        for (const auto& [key, members] : families()) {
            std::vector<svg::Point> pts;
            for (std::size_t k : members)
                pts.push_back(f.to_pixel(anchor.at(k)->x, anchor.at(k)->y));
            doc.polyline(pts,
                         svg::Style{colour(members.front()), "none", 1.2, "3 2", 0.7, "family-line s-mixed"},
                         fmt::format("mixed family {}: {} members, flop level rising left to right", key,
                                     members.size()));
        }
    }

    void draw_hierarchical(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) const {
        std::map<std::size_t, std::vector<const Mark*>> by_kernel;
        for (const auto& m : marks)
            by_kernel[m.kernel].push_back(&m);
        for (auto& [k, ms] : by_kernel) {
            std::sort(ms.begin(), ms.end(), [](const Mark* a, const Mark* b) { return a->x < b->x; });
            std::vector<svg::Point> pts;
            for (const auto* m : ms)
                pts.push_back(f.to_pixel(m->x, m->y));
            // The many members of the mixed family stay in the background.
            const bool family = kernels[k].suite == "mixed";
            doc.polyline(pts, svg::Style{colour(k), "none", family ? 1 : 1.6, "", family ? 0.35 : 0.8,
                                         "kernel-line " + suite_class(k)});
        }
        draw_family_lines(doc, f);
        for (const auto& m : marks) {
            const svg::Point at = f.to_pixel(m.x, m.y);
            const double r = m.level == "MEM" || by_kernel[m.kernel].size() == 1 ? k_dot_radius - 1 : 3.5;
            // The predictions are listed once per kernel (on its largest dot), not once per level; the
            // mixed family's other dots (background, 30 members x 3 levels) carry none.
            const std::string tip = r > 4 ? kernel_tooltip(kernels[m.kernel], m.level, m.x)
                                    : kernels[m.kernel].suite == "mixed"
                                        ? std::string()
                                        : fmt::format("{}: I({}) = {} FLOP/byte", kernels[m.kernel].name,
                                                      m.level, intensity_text(m.x));
            doc.marker(series(m.kernel).marker, at, r, colour(m.kernel), true, tip,
                       "dot " + suite_class(m.kernel));
            placer.reserve({at.x - r - 1, at.y - r - 1, 2 * r + 2, 2 * r + 2});
        }
    }

    std::size_t level_index(const std::string& level) const {
        for (std::size_t i = 0; i < machine.levels.size(); ++i)
            if (machine.levels[i].name == level)
                return i;
        return machine.levels.size();
    }

    // Candidate boxes for a w×h label around a point, ring by ring: right, left, above, below and the
    // four diagonals at distance r, then farther rings (joined to the point by a leader line).
    static std::vector<svg::Box> ring(svg::Point at, double w, double h, double r) {
        return {{at.x + r, at.y - h / 2, w, h},
                {at.x - r - w, at.y - h / 2, w, h},
                {at.x - w / 2, at.y - r - h, w, h},
                {at.x - w / 2, at.y + r, w, h},
                {at.x + r * 0.7, at.y - r * 0.7 - h, w, h},
                {at.x + r * 0.7, at.y + r * 0.7, w, h},
                {at.x - r * 0.7 - w, at.y - r * 0.7 - h, w, h},
                {at.x - r * 0.7 - w, at.y + r * 0.7, w, h}};
    }

    // Places one label near `at`: the nearest free candidate; a leader line when it had to move away.
    // Returns false when no candidate is free.
    bool place_label(svg::Document& doc, svg::LabelPlacer& placer, svg::Point at, const std::string& text,
                     double font, std::string_view weight, const std::string& fill,
                     std::string_view classes) const {
        const double w = svg::text_width(text, font) * (weight.empty() ? 1.05 : 1.15) + 2;
        const double h = font + 3;
        const double r0 = k_dot_radius + 3;
        for (double r : {r0, r0 + 14, r0 + 30, r0 + 50, r0 + 75}) {
            const auto b = placer.try_place(ring(at, w, h, r));
            if (!b)
                continue;
            if (r > r0) {
                // Leader from the dot's edge to the nearest point of the label's box.
                const double nx = std::clamp(at.x, b->x, b->x + b->w);
                const double ny = std::clamp(at.y, b->y, b->y + b->h);
                const double len = std::hypot(nx - at.x, ny - at.y);
                if (len > k_dot_radius)
                    doc.line(
                        {at.x + (nx - at.x) * k_dot_radius / len, at.y + (ny - at.y) * k_dot_radius / len},
                        {nx, ny}, svg::Style{fill, "none", 0.8, "", 0.7, "leader"});
            }
            doc.text({b->x + 1, b->y + font * 0.85 + 1}, text, font, svg::Anchor::start, fill, classes, 0,
                     true, weight);
            return true;
        }
        return false;
    }

    void draw_kernel_labels(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) {
        const auto anchor = anchors();
        // The mixed family: one label at its member with the highest performance.
        std::size_t family_top = kernels.size();
        std::size_t members = 0;
        for (const auto& [k, m] : anchor)
            if (kernels[k].suite == "mixed") {
                ++members;
                if (family_top == kernels.size() || m->y > anchor.at(family_top)->y)
                    family_top = k;
            }
        if (members > 0) {
            const Mark* m = anchor.at(family_top);
            const std::string text = fmt::format("mixed family ({} kernels)", members);
            if (!place_label(doc, placer, f.to_pixel(m->x, m->y), text, 11.5, "bold",
                             label_colour(series(family_top).colour), "kernel-label family-label s-mixed"))
                numbered.push_back(text);
        }
        for (const auto& [k, m] : anchor) {
            if (!series(k).labelled)
                continue;
            const svg::Point at = f.to_pixel(m->x, m->y);
            // In the classic view a kernel without MEM traffic sits at a cache level's intensity: say which.
            const std::string name = view == RooflineView::classic && m->level != "MEM"
                                         ? kernels[k].name + " (" + m->level + ")"
                                         : kernels[k].name;
            const std::string fill = label_colour(series(k).colour);
            if (place_label(doc, placer, at, name, 11, "bold", fill, "kernel-label " + suite_class(k)))
                continue;
            // No room for the name: a number next to the dot, the name in the legend.
            numbered.push_back(name);
            const std::string number = std::to_string(numbered.size());
            if (!place_label(doc, placer, at, number, 10, "bold", fill,
                             "kernel-label kernel-number " + suite_class(k)))
                numbered.back() += " (no room for its number: see the dot's tooltip)";
        }
    }

    std::vector<svg::LegendEntry> legend_entries() const {
        std::vector<svg::LegendEntry> e;
        std::map<std::string, std::size_t> count;
        for (const auto& [k, m] : anchors())
            ++count[kernels[k].suite];
        std::set<std::string> seen;
        for (const auto& [k, m] : anchors()) {
            const std::string& suite = kernels[k].suite;
            if (!seen.insert(suite).second)
                continue;
            const Series& s = series(k);
            e.push_back({fmt::format("{} ({})", s.label, count[suite]), svg::colour(s.colour), s.marker, true,
                         suite == "mixed", suite == "mixed" ? "3 2" : ""});
        }
        if (view == RooflineView::classic) {
            for (std::size_t i = 0; i < models.size(); ++i)
                e.push_back(
                    {models[i] + " (predicted)", "#555555", svg::prediction_marker(i), false, false, ""});
        } else if (!marks.empty()) {
            e.push_back({"one dot per memory level", "#555555", std::nullopt, true, true, ""});
        }
        if (!roofs.compute.empty())
            e.push_back({"compute roof", k_roof_colour, std::nullopt, true, true, ""});
        if (roofs.compute.size() > 1)
            e.push_back({"lower ceilings", k_ceiling_colour, std::nullopt, true, true, "7 4"});
        if (!roofs.memory.empty()) {
            e.push_back({"bandwidth roofs", k_roof_colour, std::nullopt, true, true, ""});
            e.push_back({"ridge point", k_roof_colour, svg::Marker::diamond, false, false, ""});
        }
        return e;
    }
};

std::string chart_title(const core::Machine& m, const Roofs& roofs, const std::string& what) {
    return fmt::format("{} · {} · {}, {} thread{}", what, m.name, roofs.precision, roofs.threads,
                       roofs.threads == 1 ? "" : "s");
}

} // namespace

Roofs roofs_for(const core::Machine& m, int threads, const std::string& precision) {
    Roofs r;
    r.precision = precision;
    r.threads = threads;
    std::vector<const core::ComputeCeiling*> same_precision;
    for (const auto& c : m.ceilings)
        if (c.precision == precision)
            same_precision.push_back(&c);
    if (!same_precision.empty()) {
        int used = same_precision.front()->threads;
        for (const auto* c : same_precision)
            if (std::abs(c->threads - threads) < std::abs(used - threads) ||
                (std::abs(c->threads - threads) == std::abs(used - threads) && c->threads < used))
                used = c->threads;
        if (used != threads)
            r.notes.push_back(
                fmt::format("no {} compute ceilings measured with {} threads; using those with {}", precision,
                            threads, used));
        std::map<std::string, std::vector<const core::ComputeCeiling*>> by_isa;
        for (const auto* c : same_precision)
            if (c->threads == used)
                by_isa[c->isa].push_back(c);
        std::vector<std::string> isas;
        for (const auto& [isa, cs] : by_isa)
            isas.push_back(isa);
        std::sort(isas.begin(), isas.end(), [](const std::string& a, const std::string& b) {
            return core::isa_bits(a) > core::isa_bits(b);
        });
        for (const auto& isa : isas) {
            const auto& cs = by_isa[isa];
            const auto fma = std::find_if(cs.begin(), cs.end(), [](const auto* c) { return c->op == "fma"; });
            const core::ComputeCeiling* c = fma != cs.end() ? *fma : best(cs);
            r.compute.push_back(
                {core::isa_label(isa) + " " + op_label(c->op), c->gflops.median, c->gflops, false});
            if (isa == isas.front()) {
                const auto mix =
                    std::find_if(cs.begin(), cs.end(), [](const auto* x) { return x->op == "addmul"; });
                if (mix != cs.end() && *mix != c)
                    r.compute.push_back({core::isa_label(isa) + " " + op_label("addmul"),
                                         (*mix)->gflops.median, (*mix)->gflops, false});
            }
        }
        std::stable_sort(r.compute.begin(), r.compute.end(),
                         [](const ComputeRoof& a, const ComputeRoof& b) { return a.gflops > b.gflops; });
        const auto peak = m.peak_gflops.find(precision);
        const bool all_cores = !m.topology || used >= m.topology->cores;
        if (peak != m.peak_gflops.end() && all_cores && peak->second > r.top() * 1.02)
            r.compute.push_back({"theoretical peak", peak->second, std::nullopt, true});
    } else {
        const bool effective = m.effective_gflops.count(precision) > 0;
        r.compute.push_back(
            {effective ? "effective peak" : "peak", m.effective(precision), std::nullopt, false});
        r.notes.push_back(
            fmt::format("no measured {} compute ceilings: the roof is the machine file's {} ({})", precision,
                        effective ? "effective_gflops" : "peak_gflops", gflops_text(r.top())));
    }

    for (const auto& l : m.levels) {
        MemoryRoof mr;
        mr.level = l.name;
        // The roof a prediction of the reference workload (read/write mix unknown) uses at this thread
        // count: the models' one choice (model/bandwidth.hpp), never a second rule here.
        model::BandwidthNeed need;
        need.threads = threads;
        const model::ChosenBandwidth b = model::choose_bandwidth(l, need);
        mr.gbs = b.gbs;
        mr.source = b.source;
        mr.measured = b.measured;
        mr.ridge = r.top() / mr.gbs;
        r.memory.push_back(mr);
    }
    return r;
}

int dominant_threads(const core::Results& r) {
    std::map<int, int> count;
    for (const auto& k : r.kernels)
        ++count[k.threads];
    int best_threads = 1;
    int best_count = 0;
    for (const auto& [t, c] : count)
        if (c >= best_count) {
            best_threads = t;
            best_count = c;
        }
    return best_threads;
}

std::string dominant_precision(const core::Results& r) {
    std::map<std::string, int> count;
    for (const auto& k : r.kernels)
        ++count[k.precision];
    std::string best_precision = "double";
    int best_count = 0;
    for (const auto& [p, c] : count)
        if (c > best_count) {
            best_precision = p;
            best_count = c;
        }
    return best_precision;
}

std::string classic_level(const core::KernelResult& k, const core::Machine& m) {
    const auto positive = [&](const std::string& level) {
        auto it = k.bytes_per_iteration.find(level);
        return it != k.bytes_per_iteration.end() && it->second > 0;
    };
    if (positive("MEM"))
        return "MEM";
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it)
        if (positive(it->name))
            return it->name;
    for (const auto& [level, bytes] : k.bytes_per_iteration)
        if (bytes > 0)
            return level;
    return "";
}

std::string suite_class(const std::string& suite) {
    std::string c = "s-";
    for (char ch : suite)
        c += std::isalnum(static_cast<unsigned char>(ch))
                 ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch)))
                 : '-';
    return c;
}

svg::Document roofline_chart(const core::Results& r, RooflineView view, const std::string& id_prefix) {
    return roofline_chart(r, view, id_prefix, KernelSet::all_but_calibration);
}

svg::Document roofline_chart(const core::Results& r, RooflineView view, const std::string& id_prefix,
                             KernelSet set) {
    if (!r.machine)
        throw core::InputError("", "machine", "the results file has no embedded machine: cannot draw roofs");
    const Roofs roofs = roofs_for(*r.machine, dominant_threads(r), dominant_precision(r));
    std::string what = view == RooflineView::classic ? "Roofline" : "Hierarchical roofline";
    if (set == KernelSet::calibration_only)
        what += " (calibration loops)";
    Chart c{*r.machine, roofs,       r.kernels, view, chart_title(*r.machine, roofs, what), id_prefix, {}, {},
            {},         roofs.notes, set,       {}};
    std::size_t hidden = 0;
    for (const auto& k : r.kernels) {
        if (!c.shown(k)) {
            ++hidden;
            continue;
        }
        if (k.threads != roofs.threads || k.precision != roofs.precision)
            c.notes.push_back(fmt::format(
                "{} ran with {} thread{} ({}); the roofs are for {} ({})", k.name, k.threads,
                k.threads == 1 ? "" : "s", k.precision,
                roofs.threads == 1 ? "1 thread" : fmt::format("{} threads", roofs.threads), roofs.precision));
    }
    if (r.kernels.empty())
        c.notes.push_back("the results file has no kernels: roofs only");
    else if (hidden > 0 && set == KernelSet::all_but_calibration)
        c.notes.push_back(fmt::format("{} calibration loop{} not drawn here (roofline-calibration.svg)",
                                      hidden, hidden == 1 ? "" : "s"));
    else if (hidden == r.kernels.size())
        c.notes.push_back("no kernel of this set in the results file: roofs only");
    return c.render();
}

svg::Document roofline_chart(const core::Machine& m, const std::string& id_prefix) {
    int threads = 1;
    for (const auto& c : m.ceilings)
        threads = std::max(threads, c.threads);
    std::string precision = "double";
    if (!m.peak_gflops.count("double") && !m.peak_gflops.empty())
        precision = m.peak_gflops.begin()->first;
    const Roofs roofs = roofs_for(m, threads, precision);
    static const std::vector<core::KernelResult> k_none;
    Chart c{m,
            roofs,
            k_none,
            RooflineView::classic,
            chart_title(m, roofs, "Roofline"),
            id_prefix,
            {},
            {},
            {},
            roofs.notes,
            KernelSet::all,
            {}};
    return c.render();
}

} // namespace roofcast::report
