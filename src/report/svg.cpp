// The document half of the SVG blocks (svg.hpp): escaping, number formatting, the palette and markers, and
// the document with its shapes, text, groups and clip paths. Axes, frames, the legend and the label placer
// are in svg_axes.cpp.
#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace roofcast::report::svg {

namespace {

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

} // namespace roofcast::report::svg
