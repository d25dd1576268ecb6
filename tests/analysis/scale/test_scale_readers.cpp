#include "analysis/scale/dataset.hpp"
#include "core/error.hpp"
#include "core/profile.hpp"
#include "test_inputs.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <string>
#include <utility>

using namespace roofcast::model::scale;

using roofcast::test::input_error_of;

TEST(ScaleReaders, ExtrapTextOneParameter) {
    const std::string text = "# comment\nPARAMETER p\nPOINTS ( 2 ) ( 4 )\nPOINTS 8\n\n"
                             "REGION main->solve\nMETRIC time\nDATA 1 3\nDATA 4\nDATA 8 nan\n"
                             "METRIC visits\nDATA 1\nDATA 1\nDATA 1\n";
    const Dataset d = read_extrap_text(text, "t.txt");
    ASSERT_EQ(d.parameters, std::vector<std::string>{"p"});
    ASSERT_EQ(d.series.size(), 2u);
    const Series& s = d.series[0];
    EXPECT_EQ(s.function, "main->solve");
    EXPECT_EQ(s.metric, "time");
    ASSERT_EQ(s.points.size(), 3u);
    EXPECT_EQ(s.points[0].x[0], 2.0);
    EXPECT_EQ(s.points[0].mean(), 2.0); // (1 + 3) / 2
    EXPECT_EQ(s.points[2].values.size(), 1u);
    EXPECT_EQ(s.notes, std::vector<std::string>{"1 non-finite value(s) (NaN/inf) dropped"});
    EXPECT_EQ(d.series[1].metric, "visits");
}

TEST(ScaleReaders, ExtrapTextTwoParameters) {
    const std::string text = "PARAMETER p\nPARAMETER n\nPOINTS ( 2 10 ) ( 4 10 ) ( 2 20 )\n"
                             "REGION f\nDATA 1\nDATA 2\nDATA 3\n";
    const Dataset d = read_extrap_text(text, "t.txt");
    ASSERT_EQ(d.parameters.size(), 2u);
    ASSERT_EQ(d.series[0].points.size(), 3u);
    // Sorted by coordinates: (2,10), (2,20), (4,10).
    EXPECT_EQ(d.series[0].points[1].x[1], 20.0);
    EXPECT_EQ(d.series[0].points[1].mean(), 3.0);
}

TEST(ScaleReaders, ExtrapTextErrors) {
    // Extra-P text and the error reading it as a.txt gives.
    const std::pair<std::string, std::string> cases[] = {
        {"PARAMETER p\nPOINTS 2 4\nREGION f\nDATA 1\n",
         "a.txt: field 'end of file': region 'f' (line 3) has 1 DATA lines, expected one per point (2)"},
        {"PARAMETER p\nPOINTS 2\nREGION f\nDATA x\n", "a.txt: field 'line 4': expected a number, got 'x'"},
        {"POINTS 2\n", "a.txt: field 'line 1': expected PARAMETER before POINTS"},
        {"PARAMETER p q\nPOINTS (2)\n",
         "a.txt: field 'line 2': expected 2 coordinate(s) per point (one per parameter), got 1"},
        {"FOO\n", "a.txt: field 'line 1': expected PARAMETER, POINTS, REGION, METRIC or DATA, got 'FOO'"},
    };
    for (const auto& [text, message] : cases)
        EXPECT_EQ(input_error_of([&] { read_extrap_text(text, "a.txt"); }), message) << text;
}

TEST(ScaleReaders, CsvWithRepetitionsAndTwoParameters) {
    const std::string text = "function,metric,cores,size,value\n"
                             "\"a,b\",time,8,100,1.5\n"
                             "\"a,b\",time,8,100,2.5\n"
                             "c,time,16,100,4\n";
    const Dataset d = read_csv(text, "p.csv");
    ASSERT_EQ(d.parameters, (std::vector<std::string>{"cores", "size"}));
    ASSERT_EQ(d.series.size(), 2u);
    EXPECT_EQ(d.series[0].function, "a,b");
    ASSERT_EQ(d.series[0].points.size(), 1u);
    EXPECT_EQ(d.series[0].points[0].mean(), 2.0);
    EXPECT_EQ(d.series[0].points[0].values.size(), 2u); // two rows: two repetitions
    EXPECT_EQ(d.series[0].notes.back(), "measured at 1 of 2 points (missing cores=16,size=100)");
    // "a,b" lacks (16,100), "c" lacks (8,100).
    EXPECT_EQ(d.series[1].notes.back(), "measured at 1 of 2 points (missing cores=8,size=100)");
    const auto error = [](const std::string& csv) { return input_error_of([&] { read_csv(csv, "p.csv"); }); };
    EXPECT_EQ(error("f,m,x,value\n"),
              "p.csv: field 'header': expected 'function,metric,<parameter>...,value' (1 or 2 parameters)");
    EXPECT_EQ(error("function,metric,x,value\nf,m,two,1\n"),
              "p.csv: field 'line 2 x': expected a finite number, got 'two'");
    EXPECT_EQ(error("function,metric,x,value\nf,m,2\n"), "p.csv: field 'line 2': expected 4 columns, got 3");
}

// The CSV reader walks the text in place: blank lines, CRLF endings, blanks around cells, quoted cells with
// commas and quotes, a '+' sign, rows of one series apart from each other, and errors that name the line
// (counted with the blank lines) and the column.
TEST(ScaleReaders, CsvLinesCellsAndOrder) {
    const std::string text = "\n  \nfunction,metric,x,value\r\n"
                             " f ,time, 2 , +1.5 \r\n"
                             "\r\n"
                             "\"g \"\"q\"\", h\",time,2,7\n"
                             "f,time,4,2.5\n"
                             "f,bytes,2,9\n"
                             "f,time,2,3.5";
    const Dataset d = read_csv(text, "p.csv");
    ASSERT_EQ(d.series.size(), 3u);
    EXPECT_EQ(d.series[0].function, "f");
    EXPECT_EQ(d.series[0].metric, "time");
    EXPECT_EQ(d.series[1].function, "g \"q\", h");
    EXPECT_EQ(d.series[2].metric, "bytes");
    ASSERT_EQ(d.series[0].points.size(), 2u);
    EXPECT_EQ(d.series[0].points[0].values, (std::vector<double>{1.5, 3.5})); // rows of x = 2, in order
    EXPECT_EQ(d.series[0].points[1].values, std::vector<double>{2.5});
    const auto error = [](const std::string& csv) { return input_error_of([&] { read_csv(csv, "p.csv"); }); };
    EXPECT_EQ(error("function,metric,x,value\n\nf,m,1,1\nf,m,2,x\n"),
              "p.csv: field 'line 4 value': expected a number, got 'x'");
    EXPECT_EQ(error("function,metric,x,value\n\"a,b\",m,1\n"),
              "p.csv: field 'line 2': expected 4 columns, got 3");
    EXPECT_EQ(error("function,metric,x,value\nf,m,1,2,3\n"),
              "p.csv: field 'line 2': expected 4 columns, got 5");
    EXPECT_EQ(error("function,metric,x,value\n\n"),
              "p.csv: expected at least one data line after the header");
}

// Thousands of series, each row of a series far from the last: the series keep the order in which they
// first appear, and a series' rows all reach it.
TEST(ScaleReaders, CsvManySeriesInFirstSeenOrder) {
    std::string text = "function,metric,x,value\n";
    constexpr int k_series = 5000;
    for (int x = 1; x <= 3; ++x)
        for (int f = 0; f < k_series; ++f)
            text += "main->f" + std::to_string((f * 7919) % k_series) + ",time," + std::to_string(x) + "," +
                    std::to_string(f + x) + "\n";
    const Dataset d = read_csv(text, "p.csv");
    ASSERT_EQ(d.series.size(), static_cast<std::size_t>(k_series));
    for (int f = 0; f < k_series; ++f) {
        const Series& s = d.series[static_cast<std::size_t>(f)];
        ASSERT_EQ(s.function, "main->f" + std::to_string((f * 7919) % k_series));
        ASSERT_EQ(s.points.size(), 3u);
        EXPECT_EQ(s.points[2].values, std::vector<double>{static_cast<double>(f + 3)});
    }
}

namespace {

// The same series in the same order, with the same notes, points and values.
void expect_same_dataset(const Dataset& whole, const Dataset& parts) {
    EXPECT_EQ(parts.parameters, whole.parameters);
    ASSERT_EQ(parts.series.size(), whole.series.size());
    for (std::size_t i = 0; i < whole.series.size(); ++i) {
        const Series& a = whole.series[i];
        const Series& b = parts.series[i];
        ASSERT_EQ(a.function, b.function) << i;
        ASSERT_EQ(a.metric, b.metric) << i;
        ASSERT_EQ(a.notes, b.notes) << i;
        ASSERT_EQ(a.points.size(), b.points.size()) << i;
        for (std::size_t k = 0; k < a.points.size(); ++k) {
            EXPECT_EQ(a.points[k].x, b.points[k].x) << i;
            EXPECT_EQ(a.points[k].values, b.points[k].values) << i;
        }
    }
}

} // namespace

// A CSV of more than a few megabytes is read in parts, one per thread, joined in order: the data set must be
// the one a single reader builds (series, points and values in the same order, rows of a series and of a
// point far apart and on both sides of every part's edge), and a bad line must give the single reader's
// error.
TEST(ScaleReaders, CsvReadInPartsIsReadWhole) {
    std::string text = "function,metric,x,value\n";
    for (int row = 0; row < 240000; ++row) {
        const int f = (row * 37) % 5003, x = 1 + row % 7;
        text += (row % 11 == 0 ? "\"main->g" : "main->g") + std::to_string(f) +
                (row % 11 == 0 ? ", q\"" : "") + (row % 3 == 0 ? ",bytes," : ",time,") + std::to_string(x) +
                "," + std::to_string(row % 1000) + "\n";
        if (row % 50000 == 7)
            text += "\r\n"; // blank lines count in the line numbers: 1 + 240000 + 5 lines before the bad one
    }
    ASSERT_GT(text.size(), std::size_t{4} << 20);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const Dataset whole = read_csv(text, "p.csv");
    const std::string bad = text + "main->g1,time,1,oops\n" + text;
    const std::string whole_error = input_error_of([&] { read_csv(bad, "p.csv"); });
    omp_set_num_threads(4);
    const Dataset parts = read_csv(text, "p.csv");
    const std::string parts_error = input_error_of([&] { read_csv(bad, "p.csv"); });
    omp_set_num_threads(threads);
    expect_same_dataset(whole, parts);
    EXPECT_NE(whole_error.find("p.csv: field 'line 240007 value': expected a number, got 'oops'"),
              std::string::npos)
        << whole_error;
    EXPECT_EQ(parts_error, whole_error);
}

// Extra-P text of more than a few megabytes is read in parts at its REGION lines once the lines before the
// first region are read: the data set and the first error must be the single reader's, with METRIC lines
// between the regions, a call path in several parts, a region named like a tag, and a POINTS line after
// the first region (which makes the reader read the whole file in one part).
TEST(ScaleReaders, ExtrapTextReadInPartsIsReadWhole) {
    const std::string header = "# header\nPARAMETER p\nPOINTS 2 4 8\nMETRIC time\n";
    std::string body;
    for (int r = 0; r < 160000; ++r) {
        if (r % 40000 == 3)
            body += r % 80000 == 3 ? "METRIC bytes\n" : "  METRIC\tvisits \r\n";
        body += "REGION " + std::string(r % 9 == 0 ? "REGION" : "main->g") + std::to_string((r * 37) % 7001) +
                "\nDATA " + std::to_string(r % 1000) + "\nDATA 1 2\n\nDATA " + std::to_string(r % 13) +
                ".5\n";
    }
    const std::string text = header + body;
    ASSERT_GT(text.size(), std::size_t{4} << 20);
    const std::string bad_data = text + "REGION h\nDATA 1\nDATA oops\nDATA 3\n" + body;
    const std::string short_region = text + "REGION h\nDATA 1\nDATA 2\n" + body;
    const std::string late_points = text + "POINTS 16\n";
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const Dataset whole = read_extrap_text(text, "p.txt");
    const std::string bad_whole = input_error_of([&] { read_extrap_text(bad_data, "p.txt"); });
    const std::string short_whole = input_error_of([&] { read_extrap_text(short_region, "p.txt"); });
    const std::string late_whole = input_error_of([&] { read_extrap_text(late_points, "p.txt"); });
    omp_set_num_threads(4);
    const Dataset parts = read_extrap_text(text, "p.txt");
    const std::string bad_parts = input_error_of([&] { read_extrap_text(bad_data, "p.txt"); });
    const std::string short_parts = input_error_of([&] { read_extrap_text(short_region, "p.txt"); });
    const std::string late_parts = input_error_of([&] { read_extrap_text(late_points, "p.txt"); });
    omp_set_num_threads(threads);
    expect_same_dataset(whole, parts);
    EXPECT_GT(whole.series.size(), 7001u);
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    EXPECT_EQ(bad_whole, fmt::format("p.txt: field 'line {}': expected a number, got 'oops'", lines + 3));
    EXPECT_EQ(bad_parts, bad_whole);
    EXPECT_EQ(short_whole,
              fmt::format("p.txt: field 'line {}': region 'h' (line {}) has 2 DATA lines, expected "
                          "one per point (3)",
                          lines + 4, lines + 1));
    EXPECT_EQ(short_parts, short_whole);
    EXPECT_EQ(late_whole,
              fmt::format("p.txt: field 'end of file': region '{}' (line {}) has 3 DATA lines, "
                          "expected one per point (4)",
                          whole.series.empty() ? "" : "main->g" + std::to_string((159999 * 37) % 7001),
                          lines - 4));
    EXPECT_EQ(late_parts, late_whole);
}

TEST(ScaleReaders, ExtrapJsonNewAndOld) {
    const std::string fresh = R"({"parameters": ["x"], "measurements": {"main": {"time": [
        {"point": [2], "values": [1, 2, 3]}, {"point": [4], "values": [5]}]}}})";
    const Dataset d = read_extrap_json(fresh, "e.json");
    ASSERT_EQ(d.series.size(), 1u);
    EXPECT_EQ(d.series[0].points[0].mean(), 2.0);
    EXPECT_EQ(d.series[0].points[1].x[0], 4.0);
    const std::string old = R"({"parameters": [{"id": 1, "name": "p"}], "callpaths": [{"id": 1, "name": "f"}],
        "metrics": [{"id": 1, "name": "time"}],
        "coordinates": [{"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 8}]}],
        "measurements": [{"id": 1, "callpath_id": 1, "coordinate_id": 1, "metric_id": 1, "value": 3},
                         {"id": 2, "callpath_id": 1, "coordinate_id": 1, "metric_id": 1, "value": 5}]})";
    const Dataset o = read_extrap_json(old, "o.json");
    ASSERT_EQ(o.series.size(), 1u);
    EXPECT_EQ(o.series[0].points[0].x[0], 8.0);
    EXPECT_EQ(o.series[0].points[0].mean(), 4.0);
    EXPECT_EQ(input_error_of([] { read_extrap_json(R"({"parameters": ["x"]})", "e.json"); }),
              "e.json: field 'measurements': missing required field");
    EXPECT_EQ(input_error_of([] {
                  read_extrap_json(
                      R"({"parameters":["x"],"measurements":{"m":{"t":[{"point":[1,2],"values":[1]}]}}})",
                      "e.json");
              }),
              "e.json: field 'measurements.m.t[0].point': expected 1 coordinate(s) per point (one per "
              "parameter), got 2");
}

TEST(ScaleReaders, RoofcastProfile) {
    const std::string text = R"({"format": "roofcast-profile", "format_version": 1,
        "parameters": {"cores": 4}, "run": {"wall_seconds": 10, "cores": 4},
        "functions": [
          {"name": "main", "metrics": {"time": {"repetitions": [2, 4]}}},
          {"name": "main->dot", "metrics": {"L1_DCM": {"per_rank": [[1, 2, 3, 4], [2, 3, 4, 5]], "aggregate": "sum"}}}
        ]})";
    const Dataset d = read_roofcast_profile(text, "r.json");
    ASSERT_EQ(d.parameters, std::vector<std::string>{"cores"});
    ASSERT_EQ(d.costs.size(), 1u);
    EXPECT_EQ(d.costs[0].core_seconds(), 40.0); // 10 s x 4 cores
    ASSERT_EQ(d.series.size(), 2u);
    EXPECT_EQ(d.series[0].points[0].mean(), 3.0);
    EXPECT_EQ(d.series[1].points[0].values, (std::vector<double>{10, 14})); // sums over ranks
    EXPECT_EQ(input_error_of([] {
                  read_roofcast_profile(
                      R"({"format":"roofcast-profile","format_version":1,"parameters":{"c":1},
                      "functions":[{"name":"f","metrics":{"t":{"per_rank":[[1]],"aggregate":"median"}}}]})",
                      "r.json");
              }),
              "r.json: field 'functions[0].metrics.t.aggregate': expected one of sum, mean, max, min, got "
              "'median'");
    EXPECT_EQ(input_error_of([] {
                  read_roofcast_profile(R"({"format":"roofcast-profile","format_version":4})", "r.json");
              }),
              "r.json: field 'format_version': expected 1 to 3");
    EXPECT_EQ(input_error_of([] { read_roofcast_profile("{", "r.json"); }).rfind("r.json: not valid JSON", 0),
              0u);
}

TEST(ScaleReaders, RoofcastProfileKeysAndRangesAreThoseOfTheFormat) {
    // A version-2 profile with every field roofcast writes: scale ignores the launch, the backend and the
    // origins, but they are part of the format, so none is reported; a misspelt key is, with its path.
    const roofcast::core::Profile p = roofcast::test::full_profile();
    auto j = roofcast::core::profile_to_json(p);
    std::vector<std::string> unread{"stale"};
    EXPECT_EQ(read_roofcast_profile(j.dump(), "p.json", &unread).costs.at(0).cpu_seconds, 2.75);
    EXPECT_EQ(unread, std::vector<std::string>{});
    j["functions"][0]["metrics"]["L1_DCM"]["agregate"] = "sum";
    (void)read_roofcast_profile(j.dump(), "p.json", &unread);
    EXPECT_EQ(unread, std::vector<std::string>{"functions[0].metrics.L1_DCM.agregate"});
    // In the document's order (keys sorted), each listed once: a member of a function before and after
    // its metrics, and one of the top level after the functions.
    j["functions"][0]["colour"] = "red";
    j["functions"][0]["weight"] = 2;
    j["functions"][0]["metrics"]["L1_DCM"]["extra"] = {{"a", 1}};
    j["zone"] = 1;
    (void)read_roofcast_profile(j.dump(), "p.json", &unread);
    EXPECT_EQ(unread,
              (std::vector<std::string>{"functions[0].colour", "functions[0].metrics.L1_DCM.agregate",
                                        "functions[0].metrics.L1_DCM.extra", "functions[0].weight", "zone"}));
    j["functions"][0].erase("colour");
    j["functions"][0].erase("weight");
    j["functions"][0]["metrics"]["L1_DCM"].erase("extra");
    j.erase("zone");
    // The ranges are core::load_profile's.
    j["functions"][0]["metrics"]["L1_DCM"]["per_rank"][0][1] = -2;
    EXPECT_EQ(
        input_error_of([&] { read_roofcast_profile(j.dump(), "p.json"); }),
        "p.json: field 'functions[0].metrics.L1_DCM.per_rank[0]': expected a number from 0 to 1e+30 (or "
        "\"nan\"), got -2");
    j["functions"][0]["metrics"]["L1_DCM"]["per_rank"][0][1] = 2;
    j["run"]["cpu_seconds"] = -1;
    EXPECT_EQ(input_error_of([&] { read_roofcast_profile(j.dump(), "p.json"); }),
              "p.json: field 'run.cpu_seconds': expected a non-negative number at most 1.07374e+16, got -1");
    j["run"]["cpu_seconds"] = 1;
    j["run"]["wall_seconds"] = 0;
    EXPECT_EQ(input_error_of([&] { read_roofcast_profile(j.dump(), "p.json"); }),
              "p.json: field 'run': expected positive wall_seconds (at most 1e+07) and cores (at most "
              "1.07374e+09)");
}

TEST(ScaleReaders, MergeRunsAndMismatchedParameters) {
    auto run = [](int cores, bool with_dot) {
        std::string funcs = R"({"name": "main", "metrics": {"time": {"repetitions": [1]}}})";
        if (with_dot)
            funcs += R"(, {"name": "dot", "metrics": {"time": {"repetitions": [2]}}})";
        return read_roofcast_profile(
            R"({"format": "roofcast-profile", "format_version": 1, "parameters": {"cores": )" +
                std::to_string(cores) + R"(}, "functions": [)" + funcs + "]}",
            "run.json");
    };
    Dataset d = run(8, true);
    merge(d, run(16, false), "b.json");
    merge(d, run(32, true), "c.json");
    ASSERT_EQ(d.series.size(), 2u);
    EXPECT_EQ(d.series[0].points.size(), 3u);
    EXPECT_TRUE(d.series[0].notes.empty());
    EXPECT_EQ(d.series[1].notes, std::vector<std::string>{"measured at 2 of 3 points (missing cores=16)"});
    merge(d, run(8, false), "d.json"); // a second run at cores = 8
    EXPECT_EQ(d.series[0].points[0].values.size(), 2u);
    EXPECT_EQ(d.series[0].notes.back(), "duplicate points merged as repetitions");
    Dataset other;
    other.parameters = {"size"};
    EXPECT_EQ(input_error_of([&] { merge(d, other, "x.csv"); }),
              "x.csv: field 'parameters': expected the parameters of the other inputs (cores), got (size)");
}

TEST(ScaleReaders, ParsePoint) {
    EXPECT_EQ(parse_point("256", {"cores"})[0], 256.0);
    EXPECT_EQ(parse_point("cores=512", {"cores"})[0], 512.0);
    const Coord c = parse_point("size=1e6,cores=256", {"cores", "size"});
    EXPECT_EQ(c[0], 256.0);
    EXPECT_EQ(c[1], 1e6);
    EXPECT_EQ(input_error_of([] {
                  parse_point("cores=256", {"cores", "size"});
              }),
              "field 'predict': expected cores=NUMBER,size=NUMBER, got 'cores=256'");
    EXPECT_EQ(input_error_of([] { parse_point("lots", {"cores"}); }),
              "field 'predict': expected a number (or cores=NUMBER), got 'lots'");
}
