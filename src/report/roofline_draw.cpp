#include "report/format.hpp"
#include "report/roofline_chart.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report::detail {

std::string family_key(const std::string& name) {
    const auto dash = name.rfind('-');
    return dash == std::string::npos ? name : name.substr(0, dash);
}

namespace {

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

} // namespace

double Chart::widest_bandwidth() const {
    double b = 0;
    for (const auto& r : roofs.memory)
        b = std::max(b, r.gbs);
    return b;
}

void Chart::draw_roofs(svg::Document& doc, const svg::Frame& f) const {
    const double top = roofs.top();
    for (const auto& r : roofs.memory) {
        // Attainable performance under this level's roof: P = min(P_peak, I * B)
        // (Williams et al. 2009, eq. 1); the slanted part ends at the ridge I* = P_peak / B.
        const auto seg = svg::clip_segment(f, {f.x.lo, r.gbs * f.x.lo}, {r.ridge, top});
        if (!seg)
            continue;
        doc.line(seg->first, seg->second, svg::Style{k_roof_colour, "none", 1.8, "", 1, "roof roof-memory"},
                 fmt::format("{} roof: {} ({}); ridge at {} FLOP/byte", r.level, gbs_text(r.gbs), r.source,
                             intensity_text(r.ridge)));
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

void Chart::draw_ridges(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer,
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

void Chart::draw_classic(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) const {
    draw_family_lines(doc, f);
    // A segment from the measured dot to each prediction makes the error visible at a glance; one
    // path per series colour keeps a chart of a hundred kernels small.
    std::map<std::string, std::vector<std::pair<svg::Point, svg::Point>>> stems;
    std::map<std::string, std::size_t> stem_kernel;
    for (const auto& p : preds)
        if (p.measured_y > 0) {
            stems[kernels[p.kernel].suite].push_back({f.to_pixel(p.x, p.measured_y), f.to_pixel(p.x, p.y)});
            stem_kernel[kernels[p.kernel].suite] = p.kernel;
        }
    for (const auto& [suite, segs] : stems)
        doc.segments(segs, svg::Style{colour(stem_kernel[suite]), "none", 1, "", 0.45,
                                      "prediction-stem " + suite_class(stem_kernel[suite])});
    for (const auto& p : preds) {
        const svg::Point at = f.to_pixel(p.x, p.y);
        std::string tip =
            fmt::format("{} — {} predicts {}", kernels[p.kernel].name, p.p->model, gflops_text(p.p->gflops));
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
                   kernel_tooltip(kernels[m.kernel], m.level, m.x, false), "dot " + suite_class(m.kernel));
        placer.reserve({at.x - k_dot_radius, at.y - k_dot_radius, 2 * k_dot_radius, 2 * k_dot_radius});
    }
}

std::map<std::size_t, const Mark*> Chart::anchors() const {
    std::map<std::size_t, const Mark*> anchor;
    for (const auto& m : marks)
        if (!anchor.count(m.kernel) || m.x > anchor[m.kernel]->x)
            anchor[m.kernel] = &m;
    return anchor;
}

std::map<std::string, std::vector<std::size_t>> Chart::families() const {
    std::map<std::string, std::vector<std::size_t>> fam;
    for (const auto& [k, m] : anchors())
        if (joined(k))
            fam[kernels[k].suite + ":" + family_key(kernels[k].name)].push_back(k);
    return fam;
}

void Chart::draw_family_lines(svg::Document& doc, const svg::Frame& f) const {
    const auto anchor = anchors();
    for (const auto& [key, members] : families()) {
        std::vector<svg::Point> pts;
        for (std::size_t k : members)
            pts.push_back(f.to_pixel(anchor.at(k)->x, anchor.at(k)->y));
        const std::size_t first = members.front();
        doc.polyline(pts,
                     svg::Style{colour(first), "none", 1.2, "3 2", 0.7, "family-line " + suite_class(first)},
                     fmt::format("{} {}: {} members in catalogue order", series(first).label,
                                 key.substr(key.find(':') + 1), members.size()));
    }
}

void Chart::draw_hierarchical(svg::Document& doc, const svg::Frame& f, svg::LabelPlacer& placer) const {
    std::map<std::size_t, std::vector<const Mark*>> by_kernel;
    for (const auto& m : marks)
        by_kernel[m.kernel].push_back(&m);
    for (auto& [k, ms] : by_kernel) {
        std::sort(ms.begin(), ms.end(), [](const Mark* a, const Mark* b) { return a->x < b->x; });
        std::vector<svg::Point> pts;
        for (const auto* m : ms)
            pts.push_back(f.to_pixel(m->x, m->y));
        // The many members of a joined series stay in the background.
        const bool family = joined(k);
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
                                : joined(m.kernel)
                                    ? std::string()
                                    : fmt::format("{}: I({}) = {} FLOP/byte", kernels[m.kernel].name, m.level,
                                                  intensity_text(m.x));
        doc.marker(series(m.kernel).marker, at, r, colour(m.kernel), true, tip,
                   "dot " + suite_class(m.kernel));
        placer.reserve({at.x - r - 1, at.y - r - 1, 2 * r + 2, 2 * r + 2});
    }
}

} // namespace roofcast::report::detail
