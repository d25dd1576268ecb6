#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <stdexcept>
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

std::string style_attrs(const Style& s) {
    std::string a = fmt::format(" stroke=\"{}\" fill=\"{}\"", escape(s.stroke), escape(s.fill));
    // 1 is SVG's initial stroke-width: written only when it differs (the report inlines hundreds of markers).
    if (s.stroke != "none" && s.stroke_width != 1)
        a += fmt::format(" stroke-width=\"{}\"", num(s.stroke_width));
    if (!s.dash.empty())
        a += fmt::format(" stroke-dasharray=\"{}\"", escape(s.dash));
    if (s.opacity < 1)
        a += fmt::format(" opacity=\"{}\"", num(s.opacity));
    if (!s.classes.empty())
        a += fmt::format(" class=\"{}\"", escape(s.classes));
    return a;
}

// Emits <tag attrs/> or, with a tooltip, <tag attrs><title>tooltip</title></tag>.
std::string element(std::string_view tag, const std::string& attrs, std::string_view tooltip) {
    if (tooltip.empty())
        return fmt::format("<{}{}/>\n", tag, attrs);
    return fmt::format("<{}{}><title>{}</title></{}>\n", tag, attrs, escape(tooltip), tag);
}

std::string points_attr(const std::vector<Point>& pts) {
    std::string out;
    for (const auto& p : pts) {
        if (!out.empty())
            out += ' ';
        out += fmt::format("{},{}", num(p.x), num(p.y));
    }
    return out;
}

} // namespace

const char* colour(std::size_t i) {
    return k_okabe_ito[i % k_okabe_ito.size()];
}

Marker prediction_marker(std::size_t i) {
    static constexpr std::array<Marker, 4> k_markers{Marker::triangle_down, Marker::pentagon, Marker::cross,
                                                     Marker::star};
    return k_markers[i % k_markers.size()];
}

std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            // Control characters other than tab/newline are not allowed in XML 1.0.
            if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
                out += ' ';
            else
                out += c;
        }
    }
    return out;
}

std::string num(double v) {
    if (!std::isfinite(v))
        throw std::invalid_argument("svg::num: non-finite coordinate");
    std::string s = fmt::format("{:.2f}", v);
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s == "-0" ? "0" : s;
}

double text_width(std::string_view text, double font_size) {
    std::size_t chars = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
            ++chars;
    return 0.6 * font_size * static_cast<double>(chars);
}

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

Axis Axis::log10(double min_value, double max_value, std::string label) {
    Axis a;
    a.scale = Scale::log10;
    if (!(min_value > 0) || !(max_value > 0) || !std::isfinite(min_value) || !std::isfinite(max_value)) {
        min_value = 1;
        max_value = 10;
    }
    if (min_value > max_value)
        std::swap(min_value, max_value);
    a.lo = std::pow(10.0, std::floor(std::log10(min_value) + k_eps));
    a.hi = std::pow(10.0, std::ceil(std::log10(max_value) - k_eps));
    if (a.hi <= a.lo)
        a.hi = a.lo * 10;
    a.label = std::move(label);
    return a;
}

Axis Axis::log2(double min_value, double max_value, std::string label) {
    Axis a;
    a.scale = Scale::log2;
    if (!(min_value > 0) || !(max_value > 0) || !std::isfinite(min_value) || !std::isfinite(max_value)) {
        min_value = 1;
        max_value = 2;
    }
    if (min_value > max_value)
        std::swap(min_value, max_value);
    a.lo = std::exp2(std::floor(std::log2(min_value) + k_eps));
    a.hi = std::exp2(std::ceil(std::log2(max_value) - k_eps));
    if (a.hi <= a.lo)
        a.hi = a.lo * 2;
    a.label = std::move(label);
    return a;
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

bool Box::overlaps(const Box& o) const {
    return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
}

Document::Document(double width, double height, std::string title, std::string id_prefix)
    : m_width(width), m_height(height), m_title(std::move(title)), m_id_prefix(std::move(id_prefix)) {}

void Document::rect(const Box& b, const Style& s, std::string_view tooltip) {
    m_body += element("rect",
                      fmt::format(" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}", num(b.x), num(b.y),
                                  num(std::max(0.0, b.w)), num(std::max(0.0, b.h)), style_attrs(s)),
                      tooltip);
}

void Document::line(Point a, Point b, const Style& s, std::string_view tooltip) {
    m_body += element("line",
                      fmt::format(" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}", num(a.x), num(a.y), num(b.x),
                                  num(b.y), style_attrs(s)),
                      tooltip);
}

void Document::polyline(const std::vector<Point>& pts, const Style& s, std::string_view tooltip) {
    if (pts.size() < 2)
        return;
    m_body += element("polyline", fmt::format(" points=\"{}\"{}", points_attr(pts), style_attrs(s)), tooltip);
}

void Document::segments(const std::vector<std::pair<Point, Point>>& segs, const Style& s) {
    if (segs.empty())
        return;
    std::string d;
    for (const auto& [a, b] : segs)
        d += fmt::format("M{} {}L{} {}", num(a.x), num(a.y), num(b.x), num(b.y));
    m_body += element("path", fmt::format(" d=\"{}\"{}", d, style_attrs(s)), {});
}

void Document::polygon(const std::vector<Point>& pts, const Style& s, std::string_view tooltip) {
    if (pts.size() < 3)
        return;
    m_body += element("polygon", fmt::format(" points=\"{}\"{}", points_attr(pts), style_attrs(s)), tooltip);
}

void Document::marker(Marker m, Point p, double r, const std::string& colour_value, bool filled,
                      std::string_view tooltip, std::string_view classes) {
    Style s;
    s.stroke = filled ? "#ffffff" : colour_value;
    s.fill = filled ? colour_value : "#ffffff";
    s.stroke_width = filled ? 1.0 : 2.0;
    s.classes = std::string(classes);
    switch (m) {
    case Marker::circle:
        m_body += element(
            "circle",
            fmt::format(" cx=\"{}\" cy=\"{}\" r=\"{}\"{}", num(p.x), num(p.y), num(r), style_attrs(s)),
            tooltip);
        return;
    case Marker::square: {
        const double h = 0.88 * r; // same visual weight as the circle of radius r
        m_body += element("rect",
                          fmt::format(" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}", num(p.x - h),
                                      num(p.y - h), num(2 * h), num(2 * h), style_attrs(s)),
                          tooltip);
        return;
    }
    case Marker::triangle:
        m_body += element("polygon",
                          fmt::format(" points=\"{}\"{}",
                                      points_attr({{p.x, p.y - 1.2 * r},
                                                   {p.x + 1.05 * r, p.y + 0.7 * r},
                                                   {p.x - 1.05 * r, p.y + 0.7 * r}}),
                                      style_attrs(s)),
                          tooltip);
        return;
    case Marker::diamond:
        m_body += element(
            "polygon",
            fmt::format(
                " points=\"{}\"{}",
                points_attr({{p.x, p.y - 1.25 * r}, {p.x + r, p.y}, {p.x, p.y + 1.25 * r}, {p.x - r, p.y}}),
                style_attrs(s)),
            tooltip);
        return;
    case Marker::triangle_down:
        m_body += element("polygon",
                          fmt::format(" points=\"{}\"{}",
                                      points_attr({{p.x, p.y + 1.2 * r},
                                                   {p.x + 1.05 * r, p.y - 0.7 * r},
                                                   {p.x - 1.05 * r, p.y - 0.7 * r}}),
                                      style_attrs(s)),
                          tooltip);
        return;
    case Marker::pentagon:
    case Marker::star: {
        // Regular pentagon, or a five-pointed star (inner radius 0.45 of the outer), point up.
        const bool star = m == Marker::star;
        const int corners = star ? 10 : 5;
        std::vector<Point> pts;
        for (int k = 0; k < corners; ++k) {
            const double rr = (star ? 1.35 : 1.1) * r * (star && k % 2 ? 0.45 : 1.0);
            const double a = -std::numbers::pi / 2 + 2 * std::numbers::pi * k / corners;
            pts.push_back({p.x + rr * std::cos(a), p.y + rr * std::sin(a)});
        }
        m_body +=
            element("polygon", fmt::format(" points=\"{}\"{}", points_attr(pts), style_attrs(s)), tooltip);
        return;
    }
    case Marker::cross: {
        // A thick diagonal cross (x) as one outline, arms 0.35 r wide.
        const double a = 1.0 * r, w = 0.35 * r;
        m_body += element("polygon",
                          fmt::format(" points=\"{}\"{}",
                                      points_attr({{p.x - a, p.y - a + w},
                                                   {p.x - a + w, p.y - a},
                                                   {p.x, p.y - w},
                                                   {p.x + a - w, p.y - a},
                                                   {p.x + a, p.y - a + w},
                                                   {p.x + w, p.y},
                                                   {p.x + a, p.y + a - w},
                                                   {p.x + a - w, p.y + a},
                                                   {p.x, p.y + w},
                                                   {p.x - a + w, p.y + a},
                                                   {p.x - a, p.y + a - w},
                                                   {p.x - w, p.y}}),
                                      style_attrs(s)),
                          tooltip);
        return;
    }
    }
}

void Document::text(Point p, std::string_view content, double font_size, Anchor a, std::string_view fill,
                    std::string_view classes, double rotate_deg, bool halo, std::string_view font_weight) {
    const char* anchor = a == Anchor::start ? "start" : a == Anchor::middle ? "middle" : "end";
    std::string attrs = fmt::format(" x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\"", num(p.x), num(p.y),
                                    num(font_size), escape(fill));
    if (a != Anchor::start)
        attrs += fmt::format(" text-anchor=\"{}\"", anchor);
    if (!classes.empty())
        attrs += fmt::format(" class=\"{}\"", escape(classes));
    if (halo)
        attrs += " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"";
    if (!font_weight.empty())
        attrs += fmt::format(" font-weight=\"{}\"", escape(font_weight));
    if (rotate_deg != 0)
        attrs += fmt::format(" transform=\"rotate({} {} {})\"", num(rotate_deg), num(p.x), num(p.y));
    m_body += fmt::format("<text{}>{}</text>\n", attrs, escape(content));
}

void Document::note(Point p, std::string_view content) {
    m_notes.emplace_back(content);
    m_body += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#A33A00\" font-style=\"italic\" "
                          "class=\"note\">Note: {}</text>\n",
                          num(p.x), num(p.y), escape(content));
}

void Document::begin_group(std::string_view classes, std::string_view clip_id) {
    std::string attrs;
    if (!classes.empty())
        attrs += fmt::format(" class=\"{}\"", escape(classes));
    if (!clip_id.empty())
        attrs += fmt::format(" clip-path=\"url(#{})\"", escape(clip_id));
    m_body += fmt::format("<g{}>\n", attrs);
    ++m_open_groups;
}

void Document::end_group() {
    if (m_open_groups == 0)
        throw std::logic_error("svg::Document::end_group without begin_group");
    m_body += "</g>\n";
    --m_open_groups;
}

std::string Document::define_clip(std::string_view name, const Box& b) {
    std::string id = m_id_prefix + "-" + std::string(name);
    m_defs +=
        fmt::format("<clipPath id=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>\n",
                    escape(id), num(b.x), num(b.y), num(b.w), num(b.h));
    return id;
}

std::string Document::inline_markup() const {
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "role=\"img\" aria-labelledby=\"{2}-title\" font-family=\"DejaVu Sans, Helvetica, Arial, "
        "sans-serif\" "
        "class=\"roofcast-chart\">\n<title id=\"{2}-title\">{3}</title>\n",
        num(m_width), num(m_height), escape(m_id_prefix), escape(m_title));
    if (!m_defs.empty())
        out += "<defs>\n" + m_defs + "</defs>\n";
    out += m_body;
    for (int i = 0; i < m_open_groups; ++i)
        out += "</g>\n";
    out += "</svg>\n";
    return out;
}

std::string Document::standalone() const {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + inline_markup();
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
