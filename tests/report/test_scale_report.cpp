#include "report/scale_report.hpp"
#include "xml.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

using namespace roofcast::model::scale;
using namespace roofcast::report;

namespace {

// Two series at cores = 8..128: "lin" = 4 + 0.5·cores exactly (one repetition), "noisy" with two
// repetitions 10 % apart at every point (spread 0.1 > 5 %: flagged).
ScaleResult scale_example(std::vector<Coord> targets) {
    Dataset d;
    d.parameters = {"cores"};
    Series lin{"main->lin", "time", {}, {}};
    Series noisy{"main->noisy", "time", {}, {"measured at 5 of 5 points"}};
    for (double c : {8.0, 16.0, 32.0, 64.0, 128.0}) {
        lin.points.push_back(Point{{c, 0}, {4 + 0.5 * c}});
        noisy.points.push_back(Point{{c, 0}, {100.0, 110.0}});
    }
    noisy.notes = {"example note"};
    d.series = {lin, noisy};
    return forecast(d, Selection::forecast, std::move(targets));
}

// Elements whose class list holds `cls` (word match on the class attribute).
std::size_t count_scale_class(const roofcast::test::XmlNode& root, const std::string& cls) {
    return root.by_class(cls).size();
}

} // namespace

// At 256 the line gives 4 + 128 = 132, at 4096 it is log(4096/128)/log(128/8) = 5/4 ranges out (far).
TEST(ScaleReport, TextShowsModelPredictionIntervalAndFlags) {
    const std::string t = scale_text(scale_example({{256, 0}, {4096, 0}}));
    EXPECT_NE(t.find("4 + 0.5·cores"), std::string::npos) << t;
    EXPECT_NE(t.find("at cores=256 [95 % interval]"), std::string::npos) << t;
    EXPECT_NE(t.find("132 [132, 132]"), std::string::npos) << t;
    EXPECT_NE(t.find("far: cores=4096 is 1.2 measured ranges out"), std::string::npos) << t;
    EXPECT_NE(t.find("noisy"), std::string::npos);
    // The constant 105 carries the repetitions' noise: relative deviations ±5/105 at each of 5 points,
    // pooled variance 5·2·(5/105)²/5 = 0.004535 per value, /2 for a mean of two: 0.0022676; the
    // constant has 5 - 1 = 4 residual dof (t = 2.776) and zero residuals, so the half width is
    // 2.776·sqrt(0.0022676)·105 = 13.88: [91.12, 118.9].
    EXPECT_NE(t.find("105 [91.12, 118.9]"), std::string::npos) << t;
    // Spread (max - min) / median of {100, 110}: 10 / 105 = 9.52 %.
    EXPECT_NE(t.find("9.52 %"), std::string::npos) << t;
}

TEST(ScaleReport, JsonCarriesPointsModelsAndPredictions) {
    const auto j = nlohmann::json::parse(scale_json(scale_example({{256, 0}})));
    EXPECT_EQ(j["format"], "roofcast-scale");
    ASSERT_EQ(j["functions"].size(), 2u);
    const auto& lin = j["functions"][0];
    EXPECT_EQ(lin["model"]["family"], "pmnf");
    EXPECT_NEAR(lin["predictions"][0]["value"].get<double>(), 132.0, 1e-9);
    EXPECT_EQ(lin["predictions"][0]["x"]["cores"], 256.0);
    EXPECT_FALSE(lin["predictions"][0]["far"].get<bool>());
    const auto& noisy = j["functions"][1];
    EXPECT_TRUE(noisy["points"][0]["noisy"].get<bool>());
    EXPECT_EQ(noisy["points"][0]["n"], 2);
    EXPECT_EQ(noisy["notes"][0], "example note");
}

TEST(ScaleReport, CsvOneRowPerSeriesAndTarget) {
    const std::string c = scale_csv(scale_example({{256, 0}, {512, 0}}));
    const auto lines = std::count(c.begin(), c.end(), '\n');
    EXPECT_EQ(lines, 1 + 2 * 2); // header + 2 series x 2 targets
    EXPECT_EQ(c.rfind("function,metric,family,model,points,", 0), 0u);
    EXPECT_NE(c.find("main->lin,time,pmnf,4 + 0.5·cores"), std::string::npos) << c;
}

TEST(ScaleReport, SvgIsWellFormedWithPointsModelAndPrediction) {
    const ScaleResult r = scale_example({{256, 0}});
    const std::string svg = scale_svg(r, 0);
    const auto root = roofcast::test::parse_xml(svg);
    EXPECT_EQ(count_scale_class(*root, "measured"), 5u);
    EXPECT_EQ(count_scale_class(*root, "model-curve"), 1u);
    EXPECT_EQ(count_scale_class(*root, "prediction"), 1u);
    EXPECT_EQ(count_scale_class(*root, "interval"), 1u);
    EXPECT_EQ(scale_svg_name(r, 0), "0000-main-_lin-time.svg");
}

// The JSON document is written piece by piece (report/json_out.hpp) in nlohmann's dump(2) layout: parsed
// and dumped again by nlohmann it must come back byte for byte, whatever it holds: two parameters named
// out of sorted order, an evaluation, non-finite figures (null), strings with quotes, backslashes, control
// characters and UTF-8, series without points' repetitions and a prediction at each of two targets.
TEST(ScaleReport, StreamedJsonIsNlohmannsLayout) {
    Dataset d;
    d.parameters = {"size", "cores"};
    Series a{"main->\"quoted\" \\ tab\there", "time µs", {}, {}};
    Series b{"ctl\x01\x1f", "bytes", {}, {}};
    for (double c : {8.0, 16.0, 32.0, 64.0})
        for (double n : {1e3, 2e3, 4e3}) {
            a.points.push_back(Point{{n, c}, {1 + c * n / 1000, 1.1 + c * n / 1000}});
            b.points.push_back(Point{{n, c}, {5 + std::log2(c)}});
        }
    d.series = {a, b};
    d.warnings = {"a warning with a newline\nin it"};
    ScaleResult r = forecast(d, Selection::forecast, {{1e4, 256}, {8e3, 128}});
    Dataset measured;
    measured.parameters = d.parameters;
    measured.series = {Series{a.function, a.metric, {Point{{1e4, 256}, {2600}}}, {}},
                       Series{"absent", "time", {Point{{1e4, 256}, {1}}}, {}}};
    r.evaluation = evaluate(r, measured, "target.json");
    r.fits[1].mape = std::nan(""); // non-finite figures are written as null
    r.fits[1].notes.push_back("note with \"quotes\" and a tab\t");

    std::vector<std::string> pieces;
    write_scale_json(r, [&](std::string_view p) { pieces.emplace_back(p); });
    EXPECT_GT(pieces.size(), 2u); // head, the functions, tail
    std::string text;
    for (const auto& p : pieces)
        text += p;
    EXPECT_EQ(text, scale_json(r));
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j.dump(2) + "\n", text);
    EXPECT_EQ(j["functions"][0]["function"], a.function);
    EXPECT_EQ(j["functions"][1]["function"], b.function);
    EXPECT_TRUE(j["functions"][1]["fit"]["mape_percent"].is_null());
    EXPECT_EQ(j["functions"][0]["predictions"][1]["x"]["size"], 8e3);
    EXPECT_EQ(j["evaluation"]["unmatched"][0], "absent time");
    EXPECT_EQ(j["parameters"][0], "size");

    // No series at all: empty arrays, and the same layout.
    ScaleResult empty = forecast(Dataset{{"cores"}, {}, {}, {}}, Selection::forecast, {});
    const std::string e = scale_json(empty);
    EXPECT_EQ(nlohmann::json::parse(e).dump(2) + "\n", e);
}

// A string nlohmann refuses (invalid UTF-8) stops the document before its first piece: no half document.
TEST(ScaleReport, StreamedJsonRefusesInvalidUtf8BeforeWriting) {
    ScaleResult r = scale_example({{256, 0}});
    r.data.series[1].function = "bad\xff";
    std::string written;
    EXPECT_THROW(write_scale_json(r, [&](std::string_view p) { written += p; }), nlohmann::json::type_error);
    EXPECT_EQ(written, "");
}

// The CSV written in pieces is the one document.
TEST(ScaleReport, StreamedCsvIsTheDocument) {
    const ScaleResult r = scale_example({{256, 0}, {512, 0}});
    std::string pieces;
    write_scale_csv(r, [&](std::string_view p) { pieces += p; });
    EXPECT_EQ(pieces, scale_csv(r));
    EXPECT_NE(pieces.find("main->noisy,time,constant,105,5,"), std::string::npos) << pieces;
}
