#include "report/svg.hpp"
#include "xml.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace roofcast::report::svg;
using roofcast::test::parse_xml;

TEST(Svg, EscapesTextAndAttributes) {
    EXPECT_EQ(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    Document doc(100, 50, "T <&> \"x\"", "t");
    doc.text({1, 2}, "<script>&", 10);
    doc.marker(Marker::circle, {5, 5}, 3, "#000", true, "tip & <b>");
    const auto root = parse_xml(doc.standalone());
    EXPECT_EQ(root->name, "svg");
    EXPECT_EQ(root->by_name("text")[0]->text, "<script>&");
    EXPECT_EQ(root->by_name("circle")[0]->by_name("title")[0]->text, "tip & <b>");
}

TEST(Svg, NumberFormatting) {
    EXPECT_EQ(num(1.0), "1");
    EXPECT_EQ(num(2.346), "2.35"); // two decimals at most
    EXPECT_EQ(num(2.5), "2.5");
    EXPECT_EQ(num(-0.001), "0");
    EXPECT_THROW(num(NAN), std::invalid_argument);
    EXPECT_EQ(decade_label(0.01), "0.01");
    EXPECT_EQ(decade_label(1000), "1000");
    EXPECT_EQ(decade_label(1e5), "10⁵");
    EXPECT_EQ(decade_label(1e-4), "10⁻⁴");
    EXPECT_EQ(compact_number(250), "250");
    EXPECT_EQ(compact_number(15000), "15k");
}

TEST(Svg, LogAxisWidensToDecadesAndMapsLinearlyInLog) {
    // 0.03 .. 40 -> [0.01, 100]: four decades over 400 px, 100 px per decade.
    Axis a = Axis::log10(0.03, 40, "x");
    EXPECT_DOUBLE_EQ(a.lo, 0.01);
    EXPECT_DOUBLE_EQ(a.hi, 100);
    a.p0 = 0;
    a.p1 = 400;
    EXPECT_NEAR(a.to_pixel(1), 200, 1e-9);
    EXPECT_NEAR(a.to_pixel(10), 300, 1e-9);
    EXPECT_FALSE(a.placeable(0));
    EXPECT_FALSE(a.placeable(-1));
    EXPECT_FALSE(a.placeable(NAN));
    EXPECT_TRUE(a.in_range(100));
    EXPECT_FALSE(a.in_range(101));
    // Majors at 0.01, 0.1, 1, 10, 100 (five labelled); minors 2..9 in the four decades (32, unlabelled
    // because the axis spans more than two decades).
    int majors = 0, minors = 0, labelled = 0;
    for (const auto& t : a.ticks()) {
        (t.major ? majors : minors)++;
        labelled += !t.label.empty();
    }
    EXPECT_EQ(majors, 5);
    EXPECT_EQ(minors, 32);
    EXPECT_EQ(labelled, 5);
}

TEST(Svg, ShortLogAxisLabelsTwoAndFive) {
    // 1 .. 16 -> [1, 100]: majors 1, 10, 100; labelled minors 2, 5, 20, 50.
    const Axis a = Axis::log10(1, 16, "threads");
    int labelled = 0;
    for (const auto& t : a.ticks())
        labelled += !t.label.empty();
    EXPECT_EQ(labelled, 7);
}

TEST(Svg, Log2AxisAndLinearAxis) {
    // 3 KiB .. 40 MiB -> [2 KiB, 64 MiB] = 2^11 .. 2^26: 16 powers, step ceil(15/10)=2 -> 8 labelled.
    const Axis b = Axis::log2(3 * 1024.0, 40 * 1048576.0, "bytes");
    EXPECT_DOUBLE_EQ(b.lo, 2048);
    EXPECT_DOUBLE_EQ(b.hi, 67108864);
    int labelled = 0;
    for (const auto& t : b.ticks())
        labelled += !t.label.empty();
    EXPECT_EQ(labelled, 8);
    // 0 .. 93: raw step 15.5 -> nice 20 -> [0, 100], ticks 0,20,..,100.
    const Axis l = Axis::linear(0, 93, "y");
    EXPECT_DOUBLE_EQ(l.lo, 0);
    EXPECT_DOUBLE_EQ(l.hi, 100);
    EXPECT_EQ(l.ticks().size(), 6u);
    EXPECT_EQ(l.ticks()[1].label, "20");
    // -5 .. 5: raw step 10/6 -> nice 2 -> [-6, 6], ticks -6, -4, .., 6 (seven, zero exactly "0").
    const Axis n = Axis::linear(-5, 5, "y");
    EXPECT_DOUBLE_EQ(n.lo, -6);
    ASSERT_EQ(n.ticks().size(), 7u);
    EXPECT_EQ(n.ticks().front().label, "-6");
    EXPECT_EQ(n.ticks()[3].label, "0");
}

TEST(Svg, ClipSegmentToFrame) {
    // x,y in [1, 100] on 200x200 px: the segment from (0.1, 10) to (10, 10) (horizontal) is cut at x = 1.
    const Frame f = make_frame({0, 0, 200, 200}, Axis::log10(1, 100, "x"), Axis::log10(1, 100, "y"));
    auto seg = clip_segment(f, {0.1, 10}, {10, 10});
    ASSERT_TRUE(seg.has_value());
    EXPECT_NEAR(seg->first.x, 0, 1e-9);
    EXPECT_NEAR(seg->second.x, 100, 1e-9);
    EXPECT_NEAR(seg->first.y, 100, 1e-9);
    EXPECT_FALSE(clip_segment(f, {0.1, 1000}, {0.5, 1000}).has_value());
    EXPECT_FALSE(clip_segment(f, {0, 10}, {10, 10}).has_value());
}

TEST(Svg, LabelPlacerNudgesAwayFromOverlap) {
    LabelPlacer lp({0, 0, 100, 100});
    const Box a = lp.place({10, 50, 30, 10}, 12);
    EXPECT_DOUBLE_EQ(a.y, 50);
    const Box b = lp.place({20, 50, 30, 10}, 12); // overlaps a -> moved up one step
    EXPECT_DOUBLE_EQ(b.y, 38);
    const Box c = lp.place({20, 52, 30, 10}, 12); // 52 overlaps a, 40 overlaps b, 64 is free
    EXPECT_DOUBLE_EQ(c.y, 64);
    EXPECT_FALSE(a.overlaps(b));
    EXPECT_FALSE(c.overlaps(a));
}

TEST(Svg, DocumentIsWellFormedWithAxesLegendAndGroups) {
    Document doc(640, 400, "chart", "c1");
    const Frame f = make_frame({80, 20, 500, 320}, Axis::log10(0.01, 100, "I [FLOP/byte]"),
                               Axis::log10(1, 1000, "P [GFLOP/s]"));
    draw_axes(doc, f);
    const std::string clip = doc.define_clip("plot", f.area);
    doc.begin_group("data", clip);
    const std::vector<Marker> shapes{Marker::circle,  Marker::square,        Marker::triangle,
                                     Marker::diamond, Marker::triangle_down, Marker::pentagon,
                                     Marker::cross,   Marker::star};
    for (std::size_t i = 0; i < shapes.size(); ++i)
        doc.marker(shapes[i], f.to_pixel(std::pow(10.0, 0.5 * static_cast<double>(i) - 1), 10), 5, colour(i),
                   i % 2 == 0, std::string(1, static_cast<char>('a' + i)), "dot");
    doc.end_group();
    draw_legend(doc,
                {{"a", colour(0), Marker::circle, true, false, ""},
                 {"b", colour(1), std::nullopt, true, true, "4 2"}},
                {500, 30});
    doc.note({90, 390}, "1 value omitted");
    const auto root = parse_xml(doc.standalone());
    EXPECT_EQ(root->by_class("dot").size(), 8u);
    EXPECT_EQ(root->by_name("clipPath").size(), 1u);
    EXPECT_EQ(root->by_name("clipPath")[0]->attr("id"), "c1-plot");
    EXPECT_EQ(root->by_class("legend-label").size(), 2u);
    EXPECT_EQ(root->by_class("note").size(), 1u);
    EXPECT_EQ(doc.notes().size(), 1u);
    // y axis 1..1000 has three decades -> four labelled majors; x 0.01..100 -> five.
    EXPECT_EQ(root->by_class("tick-label").size(), 9u);
    EXPECT_EQ(root->by_class("axis-title").size(), 2u);
}

TEST(Svg, PredictionShapesAreNeverSeriesShapes) {
    for (std::size_t i = 0; i < 8; ++i) {
        const Marker m = prediction_marker(i);
        EXPECT_NE(m, Marker::circle);
        EXPECT_NE(m, Marker::square);
        EXPECT_NE(m, Marker::triangle);
        EXPECT_NE(m, Marker::diamond);
        if (i < 3) {
            EXPECT_NE(m, prediction_marker(i + 1)); // four models, four shapes
        }
    }
}
