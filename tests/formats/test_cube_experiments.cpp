// A directory of Score-P experiments read as Extra-P reads it (analysis/scale/cube_experiments.hpp), against
// the samples tests/measure/data/cube/make_cubex.py computes on its own (experiments.expected.json).
#include "analysis/scale/cube_experiments.hpp"
#include "core/io.hpp"
#include "formats/format.hpp"
#include "test_inputs.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace roofcast::model::scale {
namespace {

using roofcast::test::input_error_of;

const std::string k_dir = std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/cube/experiments";

void expect_samples(const Dataset& d, const nlohmann::json& expected) {
    EXPECT_EQ(d.parameters, std::vector<std::string>{"p"}); // size1024 is the same everywhere: dropped
    std::size_t checked = 0;
    for (const auto& [key, per_point] : expected.items()) {
        const auto s = std::find_if(d.series.begin(), d.series.end(),
                                    [&](const Series& t) { return t.function + " " + t.metric == key; });
        ASSERT_NE(s, d.series.end()) << key;
        ASSERT_EQ(s->points.size(), per_point.size()) << key;
        for (const auto& pt : s->points) {
            auto want = per_point.at(fmt::format("{:g}", pt.x[0])).get<std::vector<double>>();
            auto got = pt.values;
            std::sort(want.begin(), want.end());
            std::sort(got.begin(), got.end());
            EXPECT_EQ(got, want) << key << " at p=" << pt.x[0];
            ++checked;
        }
    }
    EXPECT_EQ(checked, expected.size() * 4);
    EXPECT_EQ(d.series.size(), expected.size()); // exclusive metrics only, as Extra-P
}

TEST(CubeExperiments, WeakAndStrongScalingAsExtraP) {
    const auto expected = nlohmann::json::parse(core::read_file(
        std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/cube/experiments.expected.json"));
    expect_samples(read_cube_experiments(k_dir, "weak"), expected["weak"]);
    expect_samples(read_cube_experiments(k_dir, "strong"), expected["strong"]);
    // Through the registry, as `roofcast scale DIR` reads it.
    expect_samples(formats::read_dataset(k_dir, nullptr, "strong"), expected["strong"]);
}

TEST(CubeExperiments, FolderNamesAsExtraPParsesThem) {
    using P = std::vector<std::pair<std::string, double>>;
    EXPECT_EQ(cube_experiment_point("mm.x25y10z1.r1", "d"), (P{{"x", 25}, {"y", 10}, {"z", 1}}));
    EXPECT_EQ(cube_experiment_point("run.p2,5n100", "d"), (P{{"p", 2.5}, {"n", 100}}));
    EXPECT_EQ(cube_experiment_point("a.p8", "d"), (P{{"p", 8}}));
    EXPECT_EQ(input_error_of([] { (void)cube_experiment_point("scorep-run", "d"); }),
              "d: field 'scorep-run': expected the point in the folder's name, e.g. mm.x25y10z1.r1 (x = 25, "
              "y = 10, "
              "z = 1)");
    EXPECT_EQ(input_error_of([] { (void)read_cube_experiments(k_dir, "medium"); }),
              "field 'scaling': expected weak or strong, got 'medium'");
}

} // namespace
} // namespace roofcast::model::scale
