// Small SVG building blocks for roofcast's charts (roofline, bandwidth, scaling): a document that
// escapes every text it is given, linear/log axes with readable ticks and units, a plot frame that maps
// data to pixels and clips to the plotting area, markers, a legend, <title> tooltips, an Okabe–Ito
// colour-blind-safe palette and a simple label placer that nudges labels until they do not overlap.
//
// Contract: the output is always well-formed XML (all text and attribute values are escaped, every
// element is closed, ids are prefixed per document so several charts can be inlined in one HTML page).
// Values that cannot be placed on an axis (NaN, infinities, and zero or negatives on a log axis) are
// never drawn: callers ask Axis::placeable() and report what they omitted with Document::note().
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::report::svg {

// Okabe & Ito, "Color Universal Design" (2008): eight colours distinguishable with every common form
// of colour-vision deficiency. Ordered so that the first entries have the most contrast on white
// (yellow, hard to read as thin lines, comes last but one; black last).
inline constexpr std::array<const char*, 8> k_okabe_ito{"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                        "#E69F00", "#56B4E9", "#F0E442", "#000000"};
// Palette colour i (wraps around).
const char* colour(std::size_t i);

// XML-escapes text for element content and attribute values (& < > " ').
std::string escape(std::string_view text);
// Compact coordinate/number formatting for attributes: at most 2 decimals, no trailing zeros.
std::string num(double v);
// Approximate rendered width of text in a sans-serif font (no font metrics at hand): 0.6 em per
// character, UTF-8 aware. Used only for layout (label collision, legend sizing).
double text_width(std::string_view text, double font_size);

// Tick-label formatting for a log axis: 0.01, 0.1, 1, 10, 100, 1000, then 10⁴ ... (and 10⁻³ below).
std::string decade_label(double v);
// Plain compact number for linear-axis ticks: 0, 0.5, 2, 250, 1.5k.
std::string compact_number(double v);

enum class Scale { linear, log10, log2 };

struct Tick {
    double value = 0;
    std::string label; // empty for minor ticks
    bool major = true;
};

// One axis: the data interval [lo, hi] mapped onto the pixel interval [p0, p1] (p0 may be > p1, as for
// a y axis growing upwards).
struct Axis {
    Scale scale = Scale::linear;
    double lo = 0;
    double hi = 1;
    double p0 = 0;
    double p1 = 1;
    std::string label; // "Arithmetic intensity [FLOP/byte]"
    // Formats a major tick's label; defaults to decade_label (log) or compact_number (linear).
    std::function<std::string(double)> format;

    // A log10 axis covering [min_value, max_value] widened to whole decades (at least one decade).
    static Axis log10(double min_value, double max_value, std::string label);
    // A log2 axis widened to whole powers of two (for sizes and thread/process counts).
    static Axis log2(double min_value, double max_value, std::string label);
    // A linear axis from min_value to max_value widened to a "nice" step (1, 2, 5 × 10^k).
    static Axis linear(double min_value, double max_value, std::string label);

    bool placeable(double v) const;  // finite and, on a log axis, > 0
    bool in_range(double v) const;   // placeable and within [lo, hi] (with a tiny tolerance)
    double to_pixel(double v) const; // requires placeable(v); values outside [lo, hi] extrapolate
    std::vector<Tick> ticks() const; // majors with labels, minors without
};

// Stroke/fill of a shape. Empty strings are omitted from the output.
struct Style {
    std::string stroke = "none";
    std::string fill = "none";
    double stroke_width = 1.5;
    std::string dash;    // SVG stroke-dasharray, e.g. "6 4"
    double opacity = 1;  // applied to the whole shape
    std::string classes; // CSS class names, for the HTML report and for tests
};

// Series use circle, square, triangle and diamond; each model's predictions one of the other four, so a
// prediction's shape never reads as a series (issue 15: distinct colour and shape per visible series).
enum class Marker { circle, square, triangle, diamond, triangle_down, pentagon, cross, star };
Marker prediction_marker(std::size_t i); // the i-th model's prediction shape (wraps around)

struct Point {
    double x = 0;
    double y = 0;
};

struct Box {
    double x = 0;
    double y = 0;
    double w = 0;
    double h = 0;
    bool overlaps(const Box& o) const;
};

enum class Anchor { start, middle, end };

// An SVG document built element by element. `id_prefix` makes ids (clip paths) unique when several
// documents are inlined into one HTML page.
class Document {
public:
    Document(double width, double height, std::string title, std::string id_prefix);

    double width() const { return m_width; }
    double height() const { return m_height; }
    const std::string& id_prefix() const { return m_id_prefix; }

    void rect(const Box& b, const Style& s, std::string_view tooltip = {});
    void line(Point a, Point b, const Style& s, std::string_view tooltip = {});
    void polyline(const std::vector<Point>& pts, const Style& s, std::string_view tooltip = {});
    // Many straight segments of one style as a single <path> (grid lines, tick marks): one element
    // instead of hundreds keeps large reports small.
    void segments(const std::vector<std::pair<Point, Point>>& segs, const Style& s);
    void polygon(const std::vector<Point>& pts, const Style& s, std::string_view tooltip = {});
    // A marker centred on p with "radius" r; filled markers use `colour` as fill, hollow ones a white fill.
    void marker(Marker m, Point p, double r, const std::string& colour, bool filled, std::string_view tooltip,
                std::string_view classes = {});
    // `halo` draws a white outline behind the glyphs so labels stay readable over grid lines and curves.
    void text(Point p, std::string_view content, double font_size, Anchor a = Anchor::start,
              std::string_view fill = "#222", std::string_view classes = {}, double rotate_deg = 0,
              bool halo = false, std::string_view font_weight = {});
    // A visible note, drawn as "Note: <content>" (e.g. "2 values omitted: not placeable on a log axis");
    // the contents are kept (notes()) for reports that list them elsewhere.
    void note(Point p, std::string_view content);

    // Groups; clip_id, when given, clips the group's content to a rectangle defined with define_clip.
    void begin_group(std::string_view classes = {}, std::string_view clip_id = {});
    void end_group();
    // Defines a rectangular clip path and returns its (prefixed) id.
    std::string define_clip(std::string_view name, const Box& b);

    const std::vector<std::string>& notes() const { return m_notes; }

    // The SVG element alone (for inlining in HTML) or a standalone file with an XML declaration.
    std::string inline_markup() const;
    std::string standalone() const;

private:
    double m_width;
    double m_height;
    std::string m_title;
    std::string m_id_prefix;
    std::string m_defs;
    std::string m_body;
    int m_open_groups = 0;
    std::vector<std::string> m_notes;
};

// The plotting area of a chart: a pixel box with its two axes (their pixel ranges must match the box).
struct Frame {
    Box area;
    Axis x;
    Axis y;

    Point to_pixel(double x_value, double y_value) const {
        return {x.to_pixel(x_value), y.to_pixel(y_value)};
    }
    bool placeable(double x_value, double y_value) const {
        return x.placeable(x_value) && y.placeable(y_value);
    }
};

// Builds a frame whose axes fill `area` (x left→right, y bottom→top). The axes' data ranges are kept.
Frame make_frame(const Box& area, Axis x, Axis y);

// Draws background, grid (major and minor), tick marks, tick labels and axis titles around the frame.
void draw_axes(Document& doc, const Frame& f, double font_size = 12);

// Clips a segment between two data-space points to the frame's data ranges (in the axes' transformed
// coordinates, so straight lines on log-log stay straight). Returns nullopt when nothing is visible.
std::optional<std::pair<Point, Point>> clip_segment(const Frame& f, Point a, Point b);

struct LegendEntry {
    std::string label;
    std::string colour;
    std::optional<Marker> marker; // drawn when set
    bool filled = true;
    bool line = false; // draw a short line sample
    std::string dash;  // dash pattern of the line sample
};

// Size of the legend box for the entries (for placement by the caller).
Box legend_box(const std::vector<LegendEntry>& entries, Point top_left, double font_size = 12);
// Draws the legend in a framed box at top_left; returns the box used.
Box draw_legend(Document& doc, const std::vector<LegendEntry>& entries, Point top_left,
                double font_size = 12);

// Places labels so that they do not overlap each other or reserved boxes: tries the wanted position,
// then nudges it vertically by growing steps (up, down, up, ...), staying inside `bounds`.
class LabelPlacer {
public:
    explicit LabelPlacer(Box bounds) : m_bounds(bounds) {}
    void reserve(const Box& b) { m_taken.push_back(b); }
    // Returns the free box nearest to `wanted` (and reserves it); when none is found within
    // `max_tries` nudges, the wanted box itself (overlap accepted rather than a lost label).
    Box place(Box wanted, double step, int max_tries = 12);
    // Returns (and reserves) the first free candidate; when none is free, the candidate inside the bounds
    // that overlaps the placed boxes least.
    Box place_first(const std::vector<Box>& candidates);
    // Returns (and reserves) the first free candidate, or nullopt when every one overlaps something
    // placed or leaves the bounds: the caller then falls back (a numbered marker, a legend entry).
    std::optional<Box> try_place(const std::vector<Box>& candidates);
    bool free(const Box& b) const;

private:
    Box m_bounds;
    std::vector<Box> m_taken;
};

} // namespace roofcast::report::svg
