// The summary table of `roofcast run` (report/run_summary.hpp) on a hand-built results struct: every row's
// error can be reproduced from the figures printed in that row (the best epoch it is computed from, beside
// the median), and the kernels a user came for come before the calibration loops. The report's Predictions
// table and results.json carry the same figures.
#include "core/results.hpp"
#include "core/stats.hpp"
#include "fixtures.hpp"
#include "report/html.hpp"
#include "report/run_summary.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace roofcast::report {
namespace {

// A kernel measured at `seconds_per_iteration` (one sample per epoch) and predicted at `predicted_s`, with
// the rates and the error as model::compare_kernel derives them: rates from every epoch's time, the error
// from the best epoch, (t_best / t_predicted - 1) x 100.
core::KernelResult kernel(const std::string& name, const std::string& suite, double flops,
                          std::map<std::string, double> bytes,
                          const std::vector<double>& seconds_per_iteration, double predicted_s) {
    core::KernelResult k;
    k.name = name;
    k.suite = suite;
    k.role = suite == "calibrate" ? "calibration" : "validation";
    k.flops_per_iteration = flops;
    k.iterations = 1e6;
    k.bytes_per_iteration = std::move(bytes);
    std::vector<double> per_call;
    for (double t : seconds_per_iteration)
        per_call.push_back(t * k.iterations);
    k.measured_seconds = *core::summarize(per_call);
    const core::Summary per_iteration = *core::summarize(seconds_per_iteration);
    k.measured_gflops = core::rate_from_times(per_iteration, flops / 1e9);
    k.measured_gbs = core::rate_from_times(per_iteration, k.bytes_per_iteration.rbegin()->second / 1e9);
    core::Prediction p;
    p.model = "mixed";
    p.seconds_per_iteration = predicted_s;
    p.gflops = flops / predicted_s / 1e9;
    p.bottleneck = "MEM";
    p.error_pct = (per_iteration.min / predicted_s - 1) * 100;
    k.predictions.push_back(p);
    return k;
}

// Run order as `roofcast run` measures: calibration loops first, then STREAM, the mixed family, the apps.
core::Results results() {
    core::Results r;
    // Epochs whose median lies far from the best (best 1.0, median 1.3): a row printing the median beside
    // an error from the best epoch cannot reproduce it.
    const std::vector<double> epochs{1.0e-9, 1.3e-9, 1.35e-9, 1.6e-9, 1.25e-9};
    r.kernels.push_back(kernel("calib-MEM-2F", "calibrate", 2, {{"MEM", 16}}, epochs, 1.2e-9));
    r.kernels.push_back(kernel("calib-L2-3F", "calibrate", 3, {{"L2", 24}}, epochs, 0.4e-9));
    r.kernels.push_back(kernel("stream-copy", "stream", 0, {{"MEM", 24}}, epochs, 1.12e-9));
    r.kernels.push_back(kernel("stream-triad", "stream", 2, {{"MEM", 32}}, epochs, 0.87e-9));
    r.kernels.push_back(kernel("mixed-L2-1", "mixed", 2, {{"L2", 8}, {"MEM", 16}}, epochs, 1.05e-9));
    r.kernels.push_back(kernel("jacobi7-tuned", "apps", 8, {{"MEM", 16}}, epochs, 0.93e-9));
    return r;
}

// "16.8 GB/s" -> 1.68e10 (SI prefixes of core::format_rate).
double rate_of(const std::string& number, const std::string& unit) {
    const std::map<char, double> prefix{{'k', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}, {'P', 1e15}};
    const auto it = prefix.find(unit.front());
    return std::stod(number) * (it == prefix.end() ? 1.0 : it->second);
}

struct Row {
    std::string name;
    double median, best, lo, hi, predicted, error_pct;
    std::string best_text, predicted_text, error_text;
};

std::vector<Row> table_rows(const std::string& text) {
    // kernel, median, best epoch, min..max, spread, prediction, model, error, bottleneck.
    const std::string num = R"((\d+(?:\.\d+)?))";
    const std::regex row("^(\\S+)\\s+" + num + " (\\S+/s)\\s+" + num + " (\\S+/s)\\s+" + num +
                         " ?(\\S+/s)?\\.\\." + num + " (\\S+/s)\\s+\\S+ %!?\\s+" + num +
                         " (\\S+/s)\\s+\\S+\\s+([+-]" + num.substr(1) + " %\\s+\\S+\\s*$");
    std::vector<Row> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, row))
            continue;
        const std::string lo_unit = m[7].matched ? m[7].str() : m[9].str();
        rows.push_back({m[1], rate_of(m[2], m[3]), rate_of(m[4], m[5]), rate_of(m[6], lo_unit),
                        rate_of(m[8], m[9]), rate_of(m[10], m[11]), std::stod(m[12]),
                        m[4].str() + " " + m[5].str(), m[10].str() + " " + m[11].str(), m[12]});
    }
    return rows;
}

TEST(RunSummary, EveryErrorIsReproducibleFromItsRow) {
    const core::Results r = results();
    const std::string text = format_run_summary(r);
    const std::vector<Row> rows = table_rows(text);
    ASSERT_EQ(rows.size(), 4u) << text;
    for (const Row& row : rows) {
        // Three significant digits on the rates: each within 0.5 % of its value; the error to 0.05 points.
        const double ratio = row.predicted / row.best;
        const double tolerance = 100 * ratio * 2 * 0.005 + 0.05;
        EXPECT_NEAR((ratio - 1) * 100, row.error_pct, tolerance)
            << row.name << ": " << row.predicted_text << " against the best epoch " << row.best_text
            << " does not give the printed error " << row.error_text << "\n"
            << text;
        // The median is printed too, and is not what the error compares with (the epochs are chosen so).
        EXPECT_GT(std::fabs((row.predicted / row.median - 1) * 100 - row.error_pct), 10 * tolerance)
            << row.name;
        EXPECT_LE(row.lo, row.median);
        EXPECT_DOUBLE_EQ(row.hi, row.best);
    }
    // A kernel without flops is read in bandwidth, its prediction too.
    EXPECT_NE(text.find("stream-copy"), std::string::npos);
    EXPECT_NE(rows[1].best_text.find("B/s"), std::string::npos);
    EXPECT_NE(rows[1].predicted_text.find("B/s"), std::string::npos);
    EXPECT_NE(text.find("best epoch"), std::string::npos);
}

TEST(RunSummary, TheKernelsAUserCameForComeFirstAndCalibrationLoopsAreFolded) {
    const std::string text = format_run_summary(results());
    const std::vector<Row> rows = table_rows(text);
    ASSERT_EQ(rows.size(), 4u) << text;
    EXPECT_EQ(rows[0].name, "jacobi7-tuned");
    EXPECT_EQ(rows[1].name, "stream-copy");
    EXPECT_EQ(rows[2].name, "stream-triad");
    EXPECT_EQ(rows[3].name, "mixed-L2-1");
    EXPECT_EQ(text.find("calib-MEM-2F"), std::string::npos) << text;
    EXPECT_NE(text.find("(2 calibration loops"), std::string::npos) << text;
    // The header is the first line and names the statistic the error is computed from.
    EXPECT_EQ(text.rfind("kernel ", 0), 0u);
}

TEST(RunSummary, TheReportListsTheSameOrderAndTheBestEpochBesideTheErrors) {
    core::Results r = results();
    r.machine = test::fixture_machine(); // the report draws its roofs
    const std::string html = html_report(r);
    const auto table = html.find("<section id=\"predictions\">");
    ASSERT_NE(table, std::string::npos);
    std::vector<std::size_t> at;
    for (const char* name :
         {"jacobi7-tuned", "stream-copy", "stream-triad", "mixed-L2-1", "calib-MEM-2F", "calib-L2-3F"})
        at.push_back(html.find(std::string(">") + name + "</a>", table));
    for (std::size_t i = 0; i + 1 < at.size(); ++i) {
        ASSERT_NE(at[i], std::string::npos) << i;
        EXPECT_LT(at[i], at[i + 1]) << "row " << i << " of the Predictions table is out of order";
    }
    // The best epoch and the epochs' range of stream-triad in its row: 2 flops over the best 1.0 ns.
    const auto triad = html.find(">stream-triad</a>", table);
    const auto end = html.find("</tr>", triad);
    const std::string row = html.substr(triad, end - triad);
    EXPECT_NE(row.find("2.00 GFLOP/s<small>1.25..2.00 GFLOP/s</small>"), std::string::npos) << row;
    // results.json: the basis of every error beside it.
    const auto j = core::results_to_json(r);
    const auto& k = j["kernels"][3];
    ASSERT_EQ(k["name"], "stream-triad");
    EXPECT_EQ(k["error_basis"]["statistic"], "best_epoch");
    const double t_best = k["error_basis"]["seconds_per_iteration"].get<double>();
    EXPECT_NEAR((t_best / k["predictions"][0]["seconds_per_iteration"].get<double>() - 1) * 100,
                k["predictions"][0]["error_pct"].get<double>(), 1e-9);
    EXPECT_DOUBLE_EQ(k["error_basis"]["gflops"].get<double>(), k["measured"]["gflops"]["max"].get<double>());
    // The file reads back (error_basis is a known key).
    std::vector<std::string> unread;
    core::results_from_json(j, "r.json", &unread);
    EXPECT_TRUE(unread.empty()) << unread.front();
}

} // namespace
} // namespace roofcast::report
