#include "report/format.hpp"
#include "report/roofline_chart.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <set>

namespace roofcast::report::detail {

namespace {

// Text colour for a palette colour: Okabe–Ito yellow and orange are hard to read as text on white.
std::string label_colour(std::size_t i) {
    const std::string c = svg::colour(i);
    if (c == "#F0E442")
        return "#7a7000";
    return c == "#E69F00" ? "#9a6500" : c;
}

} // namespace

void Chart::draw_roof_labels(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer,
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
                const svg::Point p{seg->first.x + ux * along + uy * 5, seg->first.y + uy * along - ux * 5};
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

std::vector<svg::Box> Chart::ring(svg::Point at, double w, double h, double r) {
    return {{at.x + r, at.y - h / 2, w, h},
            {at.x - r - w, at.y - h / 2, w, h},
            {at.x - w / 2, at.y - r - h, w, h},
            {at.x - w / 2, at.y + r, w, h},
            {at.x + r * 0.7, at.y - r * 0.7 - h, w, h},
            {at.x + r * 0.7, at.y + r * 0.7, w, h},
            {at.x - r * 0.7 - w, at.y - r * 0.7 - h, w, h},
            {at.x - r * 0.7 - w, at.y + r * 0.7, w, h}};
}

bool Chart::place_label(svg::Document& doc, svg::LabelPlacer& placer, svg::Point at, const std::string& text,
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
                doc.line({at.x + (nx - at.x) * k_dot_radius / len, at.y + (ny - at.y) * k_dot_radius / len},
                         {nx, ny}, svg::Style{fill, "none", 0.8, "", 0.7, "leader"});
        }
        doc.text({b->x + 1, b->y + font * 0.85 + 1}, text, font, svg::Anchor::start, fill, classes, 0, true,
                 weight);
        return true;
    }
    return false;
}

void Chart::draw_kernel_labels(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) {
    const auto anchor = anchors();
    // A joined series (the mixed family, a calibration sweep): one label, at its member with the highest
    // performance where there is room, else at the next highest, and so on. A series with no room at any
    // member goes unlabelled on the plot: its legend entry (colour and marker) names it.
    std::map<std::string, std::vector<std::size_t>> members; // series label -> its kernels
    for (const auto& [k, m] : anchor)
        if (joined(k))
            members[series(k).label].push_back(k);
    for (auto& [label, ks] : members) {
        std::stable_sort(ks.begin(), ks.end(),
                         [&](std::size_t a, std::size_t b) { return anchor.at(a)->y > anchor.at(b)->y; });
        const std::string text = fmt::format("{} ({} kernels)", label, ks.size());
        for (const std::size_t k : ks) {
            const Mark* m = anchor.at(k);
            if (place_label(doc, placer, f.to_pixel(m->x, m->y), text, 11.5, "bold",
                            label_colour(series(k).colour), "kernel-label family-label " + suite_class(k)))
                break;
        }
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

std::vector<svg::LegendEntry> Chart::legend_entries() const {
    std::vector<svg::LegendEntry> e;
    std::map<std::string, std::size_t> count;
    for (const auto& [k, m] : anchors())
        ++count[series(k).label];
    std::set<std::string> seen;
    for (const auto& [k, m] : anchors()) {
        const Series& s = series(k);
        if (!seen.insert(s.label).second)
            continue;
        e.push_back({fmt::format("{} ({})", s.label, count[s.label]), svg::colour(s.colour), s.marker, true,
                     !s.labelled, s.labelled ? "" : "3 2"});
    }
    if (view == RooflineView::classic) {
        for (std::size_t i = 0; i < models.size(); ++i)
            e.push_back({models[i] + " (predicted)", "#555555", svg::prediction_marker(i), false, false, ""});
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

} // namespace roofcast::report::detail
