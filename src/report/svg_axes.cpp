// The chart half of the SVG blocks (svg.hpp): tick labels, linear and log axes with their ticks, the frame
// that maps data to pixels, the axes drawn around it, segment clipping, the legend and the label placer. The
// document and its primitives are in svg.cpp.
#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace roofcast::report::svg {

namespace {

// Relative tolerance when deciding whether a value lies on a range boundary or is a power of ten.
constexpr double k_eps = 1e-9;

double forward(Scale s, double v) {
    switch (s) {
    case Scale::log10:
        return std::log10(v);
    case Scale::log2:
        return std::log2(v);
    case Scale::linear:
        break;
    }
    return v;
}

std::string superscript(int e) {
    static const std::array<const char*, 10> k_digits{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string out = e < 0 ? "⁻" : "";
    const std::string digits = std::to_string(std::abs(e));
    for (char c : digits)
        out += k_digits[static_cast<std::size_t>(c - '0')];
    return out;
}

// The nice step (1, 2 or 5 × 10^k) closest above raw.
double nice_step(double raw) {
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / mag;
    const double n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return n * mag;
}

} // namespace

std::string decade_label(double v) {
    if (!(v > 0) || !std::isfinite(v))
        return compact_number(v);
    const double e = std::log10(v);
    const double er = std::round(e);
    if (std::fabs(e - er) > 1e-6)
        return compact_number(v);
    const int ei = static_cast<int>(er);
    if (ei >= -3 && ei <= 4)
        return ei < 0 ? fmt::format("{:.{}f}", v, -ei) : fmt::format("{:.0f}", v);
    return "10" + superscript(ei);
}

std::string compact_number(double v) {
    if (v == 0)
        return "0";
    const double a = std::fabs(v);
    if (a >= 1e4 && a < 1e7)
        return fmt::format("{:g}k", v / 1e3);
    if (a >= 1e7 || a < 1e-3)
        return fmt::format("{:.2g}", v);
    return fmt::format("{:.4g}", v);
}

namespace {

// A logarithmic axis in base `base` covering [min_value, max_value] widened to whole powers of the base (at
// least one power); `log_b` and `pow_b` are the base's logarithm and power (log10 and pow(10, x), log2 and
// exp2: exact on whole exponents).
Axis log_axis(Scale scale, double base, double (*log_b)(double), double (*pow_b)(double), double min_value,
              double max_value, std::string label) {
    Axis a;
    a.scale = scale;
    if (!(min_value > 0) || !(max_value > 0) || !std::isfinite(min_value) || !std::isfinite(max_value)) {
        min_value = 1;
        max_value = base;
    }
    if (min_value > max_value)
        std::swap(min_value, max_value);
    a.lo = pow_b(std::floor(log_b(min_value) + k_eps));
    a.hi = pow_b(std::ceil(log_b(max_value) - k_eps));
    if (a.hi <= a.lo)
        a.hi = a.lo * base;
    a.label = std::move(label);
    return a;
}

} // namespace

Axis Axis::log10(double min_value, double max_value, std::string label) {
    return log_axis(
        Scale::log10, 10, [](double x) { return std::log10(x); }, [](double x) { return std::pow(10.0, x); },
        min_value, max_value, std::move(label));
}

Axis Axis::log2(double min_value, double max_value, std::string label) {
    return log_axis(
        Scale::log2, 2, [](double x) { return std::log2(x); }, [](double x) { return std::exp2(x); },
        min_value, max_value, std::move(label));
}

Axis Axis::linear(double min_value, double max_value, std::string label) {
    Axis a;
    a.scale = Scale::linear;
    if (!std::isfinite(min_value) || !std::isfinite(max_value)) {
        min_value = 0;
        max_value = 1;
    }
    if (min_value > max_value)
        std::swap(min_value, max_value);
    if (max_value - min_value <= 0) {
        const double pad = min_value == 0 ? 1 : std::fabs(min_value) * 0.5;
        min_value -= pad;
        max_value += pad;
    }
    const double step = nice_step((max_value - min_value) / 6);
    a.lo = std::floor(min_value / step + k_eps) * step;
    a.hi = std::ceil(max_value / step - k_eps) * step;
    a.label = std::move(label);
    return a;
}

bool Axis::placeable(double v) const {
    return std::isfinite(v) && (scale == Scale::linear || v > 0);
}

bool Axis::in_range(double v) const {
    if (!placeable(v))
        return false;
    const double t = (forward(scale, v) - forward(scale, lo)) / (forward(scale, hi) - forward(scale, lo));
    return t >= -1e-6 && t <= 1 + 1e-6;
}

double Axis::to_pixel(double v) const {
    const double f0 = forward(scale, lo);
    const double f1 = forward(scale, hi);
    const double t = (forward(scale, v) - f0) / (f1 - f0);
    return p0 + t * (p1 - p0);
}

std::vector<Tick> Axis::ticks() const {
    std::vector<Tick> out;
    const auto label_of = [this](double v) {
        if (format)
            return format(v);
        return scale == Scale::linear ? compact_number(v) : decade_label(v);
    };
    const double tol = scale == Scale::linear ? (hi - lo) * k_eps : 0;
    const auto add = [&](double v, bool major, bool labelled) {
        const bool inside = scale == Scale::linear ? v >= lo - tol && v <= hi + tol
                                                   : v >= lo * (1 - k_eps) && v <= hi * (1 + k_eps);
        if (inside)
            out.push_back({v, labelled ? label_of(v) : "", major});
    };
    if (scale == Scale::log10) {
        const int e0 = static_cast<int>(std::floor(std::log10(lo) + k_eps));
        const int e1 = static_cast<int>(std::ceil(std::log10(hi) - k_eps));
        // Few decades: label 2 and 5 too, so that a short axis still has several readable ticks.
        const bool label_25 = e1 - e0 <= 2;
        for (int e = e0; e <= e1; ++e) {
            const double d = std::pow(10.0, e);
            add(d, true, true);
            if (e == e1)
                break;
            for (int k = 2; k <= 9; ++k)
                add(k * d, false, label_25 && (k == 2 || k == 5));
        }
    } else if (scale == Scale::log2) {
        const int e0 = static_cast<int>(std::round(std::log2(lo)));
        const int e1 = static_cast<int>(std::round(std::log2(hi)));
        const int step = std::max(1, (e1 - e0 + 9) / 10);
        for (int e = e0; e <= e1; ++e)
            add(std::exp2(e), (e - e0) % step == 0, (e - e0) % step == 0);
    } else {
        const double step = nice_step((hi - lo) / 6);
        const int n = static_cast<int>(std::round((hi - lo) / step));
        for (int i = 0; i <= n; ++i) {
            double v = lo + i * step;
            if (std::fabs(v) < step * 1e-9)
                v = 0;
            add(v, true, true);
        }
    }
    return out;
}

Frame make_frame(const Box& area, Axis x, Axis y) {
    x.p0 = area.x;
    x.p1 = area.x + area.w;
    y.p0 = area.y + area.h;
    y.p1 = area.y;
    return Frame{area, std::move(x), std::move(y)};
}

void draw_axes(Document& doc, const Frame& f, double font_size) {
    const Box& a = f.area;
    doc.rect(a, Style{"none", "#ffffff", 0, "", 1, "plot-bg"});
    Style major{"#d4d4d4", "none", 0.8, "", 1, "grid"};
    Style minor{"#ececec", "none", 0.6, "", 1, "grid-minor"};
    Style tick_style{"#444444", "none", 1, "", 1, ""};
    const double bottom = a.y + a.h;
    std::vector<std::pair<Point, Point>> major_lines, minor_lines, tick_lines;
    for (const Tick& t : f.x.ticks()) {
        const double px = f.x.to_pixel(t.value);
        (t.major ? major_lines : minor_lines).push_back({{px, a.y}, {px, bottom}});
        tick_lines.push_back({{px, bottom}, {px, bottom + (t.major ? 5 : 3)}});
        if (!t.label.empty())
            doc.text({px, bottom + font_size * 1.45}, t.label, t.major ? font_size : font_size * 0.85,
                     Anchor::middle, "#333", "tick-label");
    }
    double widest = 0;
    for (const Tick& t : f.y.ticks()) {
        const double py = f.y.to_pixel(t.value);
        (t.major ? major_lines : minor_lines).push_back({{a.x, py}, {a.x + a.w, py}});
        tick_lines.push_back({{a.x - (t.major ? 5 : 3), py}, {a.x, py}});
        if (!t.label.empty()) {
            const double fs = t.major ? font_size : font_size * 0.85;
            doc.text({a.x - 8, py + fs * 0.35}, t.label, fs, Anchor::end, "#333", "tick-label");
            widest = std::max(widest, text_width(t.label, fs));
        }
    }
    doc.segments(minor_lines, minor);
    doc.segments(major_lines, major);
    doc.segments(tick_lines, tick_style);
    doc.rect(a, Style{"#555555", "none", 1, "", 1, "plot-frame"});
    if (!f.x.label.empty())
        doc.text({a.x + a.w / 2, bottom + font_size * 3.0}, f.x.label, font_size * 1.1, Anchor::middle,
                 "#222", "axis-title");
    if (!f.y.label.empty())
        doc.text({a.x - widest - 8 - font_size * 0.9, a.y + a.h / 2}, f.y.label, font_size * 1.1,
                 Anchor::middle, "#222", "axis-title", -90);
}

std::optional<std::pair<Point, Point>> clip_segment(const Frame& f, Point a, Point b) {
    if (!f.placeable(a.x, a.y) || !f.placeable(b.x, b.y))
        return std::nullopt;
    // Liang & Barsky, "A new concept and method for line clipping", ACM TOG 3(1), 1984: the axes map
    // linearly from their transformed coordinates to pixels, so clipping in pixel space is exact.
    const Point pa = f.to_pixel(a.x, a.y);
    const Point pb = f.to_pixel(b.x, b.y);
    const double dx = pb.x - pa.x;
    const double dy = pb.y - pa.y;
    double t0 = 0;
    double t1 = 1;
    const Box& r = f.area;
    const std::array<std::pair<double, double>, 4> pq{
        {{-dx, pa.x - r.x}, {dx, r.x + r.w - pa.x}, {-dy, pa.y - r.y}, {dy, r.y + r.h - pa.y}}};
    for (const auto& [p, q] : pq) {
        if (p == 0) {
            if (q < 0)
                return std::nullopt;
            continue;
        }
        const double t = q / p;
        if (p < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return std::nullopt;
    }
    return std::make_pair(Point{pa.x + t0 * dx, pa.y + t0 * dy}, Point{pa.x + t1 * dx, pa.y + t1 * dy});
}

Box legend_box(const std::vector<LegendEntry>& entries, Point top_left, double font_size) {
    double widest = 0;
    for (const auto& e : entries)
        widest = std::max(widest, text_width(e.label, font_size));
    const double row = font_size * 1.55;
    return Box{top_left.x, top_left.y, 10 + 28 + 8 + widest + 10,
               8 + row * static_cast<double>(entries.size()) + 4};
}

Box draw_legend(Document& doc, const std::vector<LegendEntry>& entries, Point top_left, double font_size) {
    const Box box = legend_box(entries, top_left, font_size);
    if (entries.empty())
        return box;
    doc.begin_group("legend");
    doc.rect(box, Style{"#bbbbbb", "#ffffff", 1, "", 0.95, "legend-box"});
    const double row = font_size * 1.55;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const LegendEntry& e = entries[i];
        const double cy = box.y + 8 + row * (static_cast<double>(i) + 0.5);
        const double sx = box.x + 10;
        if (e.line)
            doc.line({sx, cy}, {sx + 28, cy}, Style{e.colour, "none", 2, e.dash, 1, ""});
        if (e.marker)
            doc.marker(*e.marker, {sx + 14, cy}, 4.5, e.colour, e.filled, {});
        doc.text({sx + 36, cy + font_size * 0.35}, e.label, font_size, Anchor::start, "#222", "legend-label");
    }
    doc.end_group();
    return box;
}

bool LabelPlacer::free(const Box& b) const {
    if (b.x < m_bounds.x || b.y < m_bounds.y || b.x + b.w > m_bounds.x + m_bounds.w ||
        b.y + b.h > m_bounds.y + m_bounds.h)
        return false;
    return std::none_of(m_taken.begin(), m_taken.end(), [&](const Box& t) { return t.overlaps(b); });
}

Box LabelPlacer::place(Box wanted, double step, int max_tries) {
    for (int i = 0; i <= max_tries; ++i) {
        // 0, -1, +1, -2, +2, ... steps: prefer moving up (labels usually sit above their anchor).
        const int k = (i + 1) / 2;
        const double offset = (i % 2 == 1 ? -1.0 : 1.0) * k * step;
        Box b = wanted;
        b.y += offset;
        if (free(b)) {
            m_taken.push_back(b);
            return b;
        }
    }
    m_taken.push_back(wanted);
    return wanted;
}

std::optional<Box> LabelPlacer::try_place(const std::vector<Box>& candidates) {
    for (const Box& b : candidates)
        if (free(b)) {
            m_taken.push_back(b);
            return b;
        }
    return std::nullopt;
}

Box LabelPlacer::place_first(const std::vector<Box>& candidates) {
    if (candidates.empty())
        return Box{};
    // First free candidate; otherwise the one overlapping least (by area) what is already placed.
    const Box* chosen = nullptr;
    double least = 0;
    for (const Box& b : candidates) {
        if (free(b)) {
            chosen = &b;
            break;
        }
        const bool inside = b.x >= m_bounds.x && b.y >= m_bounds.y && b.x + b.w <= m_bounds.x + m_bounds.w &&
                            b.y + b.h <= m_bounds.y + m_bounds.h;
        if (!inside)
            continue;
        double area = 0;
        for (const Box& t : m_taken)
            if (t.overlaps(b))
                area += (std::min(b.x + b.w, t.x + t.w) - std::max(b.x, t.x)) *
                        (std::min(b.y + b.h, t.y + t.h) - std::max(b.y, t.y));
        if (!chosen || area < least) {
            chosen = &b;
            least = area;
        }
    }
    const Box b = chosen ? *chosen : candidates.front();
    m_taken.push_back(b);
    return b;
}

} // namespace roofcast::report::svg
