// The `roofcast predict` formatters: golden files for the table and the explanation of the shipped
// array-count example on the shipped published machine, the verdict line, and the JSON shape.
// To refresh the golden files after an intended change of layout: ROOFCAST_UPDATE_GOLDEN=1 test_report.
#include "core/io.hpp"
#include "model/predict.hpp"
#include "report/predict_table.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <string>

using namespace roofcast;

namespace {

const std::string k_src = ROOFCAST_SOURCE_DIR;

model::Analysis predict_example(const std::vector<std::string>& models = {},
                                std::optional<double> overlap = {}) {
    const auto k = model::load_kernel(k_src + "/data/kernels/mixed-arrays.yaml");
    auto m = core::load_machine(k_src + "/data/machines/example-published.yaml");
    m.overlap_exponent = overlap;
    model::PredictOptions o;
    o.models = models;
    return model::analyse(k, m, o);
}

void expect_golden(const std::string& name, const std::string& text) {
    const std::string path = k_src + "/tests/report/golden/" + name;
    if (std::getenv("ROOFCAST_UPDATE_GOLDEN"))
        core::write_file_atomic(path, text);
    EXPECT_EQ(text, core::read_file(path)) << "golden file " << path << " differs";
}

} // namespace

TEST(PredictTable, GoldenTable) {
    expect_golden("predict_mixed_arrays.txt", report::format_prediction_tables(predict_example()));
}

TEST(PredictTable, GoldenExplanation) {
    expect_golden("explain_mixed_arrays.txt", report::format_explanation(predict_example()));
}

TEST(PredictTable, VerdictOfTheIssueExample) {
    // Mixed model: t = max(40/46, 208/146, 43/112.6) ns = 1.4247 ns (L2); C_p = 43 / (1.4247 * 128) = 23.6 %.
    EXPECT_EQ(report::verdict(predict_example()),
              "this loop can reach 23.6 % of peak; it is L2-bandwidth bound");
    // Without the mixed model the hierarchical one speaks (same figures here); roofline alone: MEM-bound,
    // 49.45 / 128 = 38.6 %.
    EXPECT_EQ(report::verdict(predict_example({"roofline"})),
              "this loop can reach 38.6 % of peak; it is MEM-bandwidth bound");
}

TEST(PredictTable, ExplanationWithOverlapExponent) {
    // t = (t_C^2 + t_L2^2 + t_MEM^2)^(1/2) with t_C = 43/112.6, t_L2 = 208/146, t_MEM = 40/46 ns
    // = (0.3819^2 + 1.4247^2 + 0.8696^2)^(1/2) ns = 1.7124 ns: 43 / (1.7124 x 128) = 19.6 % of peak.
    const std::string e = report::format_explanation(predict_example({"mixed"}, 2.0));
    EXPECT_NE(e.find("t = (t_C^p + t_L2^p + t_MEM^p)^(1/p) with p = 2 = 1.71 ns (L2)"), std::string::npos)
        << e;
    EXPECT_EQ(report::verdict(predict_example({}, 2.0)),
              "this loop can reach 19.6 % of peak; it is L2-bandwidth bound");
}

TEST(PredictTable, TableRowsCarryBytesBandwidthSourceAndBottleneck) {
    const std::string t = report::format_prediction_tables(predict_example({"mixed"}));
    EXPECT_NE(t.find("== mixed"), std::string::npos);
    // L2 row: 208 B, 43/208 = 0.2067 flop/B, 146 GB/s entered, 1.42 ns, marked as the bottleneck.
    EXPECT_NE(t.find("  L2            208 B    0.2067     146 GB/s  entered"), std::string::npos) << t;
    EXPECT_NE(t.find("1.42 ns  <- bottleneck"), std::string::npos) << t;
    EXPECT_NE(t.find("n_cache = (B_L2/B_MEM - 1) x n_MEM = 10.87"), std::string::npos) << t;
    EXPECT_EQ(t.find("== roofline"), std::string::npos);
}

TEST(PredictJson, Shape) {
    const nlohmann::json j = report::prediction_json(predict_example());
    EXPECT_EQ(j.at("kernel"), "mixed-arrays");
    EXPECT_EQ(j.at("machine"), "some-published-system");
    ASSERT_TRUE(j.at("predictions").is_array());
    ASSERT_EQ(j.at("predictions").size(), 4u);
    for (const auto& p : j.at("predictions")) {
        for (const char* key : {"model", "seconds_per_iteration", "gflops", "peak_fraction", "bottleneck",
                                "valid", "notes", "terms"})
            EXPECT_TRUE(p.contains(key)) << key;
        EXPECT_TRUE(p.at("seconds_per_iteration").is_number());
        EXPECT_TRUE(p.at("valid").is_boolean());
        EXPECT_TRUE(p.at("notes").is_array());
        for (const auto& t : p.at("terms"))
            for (const char* key : {"level", "bytes_per_iteration", "intensity", "bandwidth_gbs",
                                    "bandwidth_source", "seconds_per_iteration"})
                EXPECT_TRUE(t.contains(key)) << key;
    }
    const auto& mixed = j.at("predictions").at(3);
    EXPECT_EQ(mixed.at("model"), "mixed");
    EXPECT_EQ(mixed.at("bottleneck"), "L2");
    EXPECT_NEAR(mixed.at("peak_fraction").get<double>(), 43.0 / (208.0 / 146.0) / 128.0, 1e-12);
    EXPECT_EQ(mixed.at("thresholds").at(0).at("level"), "L2");
    EXPECT_EQ(j.at("bytes_per_iteration").at("L2"), 208.0);
}
