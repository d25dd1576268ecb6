// CUBE4 (measure/profile/cube.hpp) on archives written by tests/measure/data/cube/make_cubex.py from the
// format's documentation, against the values that script computes on its own (small.expected.json).
#include "core/io.hpp"
#include "measure/profile/cube.hpp"
#include "test_inputs.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace roofcast::measure::profile {
namespace {

using roofcast::test::input_error_of;

std::string cube_fixture(const std::string& name) {
    return std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/cube/" + name;
}

void expect_expected_values(const std::string& file) {
    const core::Profile p = cube_to_profile(parse_cube(core::read_file(cube_fixture(file)), file), file);
    const auto expected = nlohmann::json::parse(core::read_file(cube_fixture("small.expected.json")));
    EXPECT_EQ(p.ranks, 2);
    EXPECT_EQ(p.threads, 2);
    EXPECT_EQ(p.settings.at("cube.locations"),
              "rank 0 thread 0,rank 0 thread 1,rank 1 thread 0,rank 1 thread 1");
    std::size_t checked = 0;
    for (const auto& [metric, per_path] : expected["metrics"].items())
        for (const auto& [path, v] : per_path.items()) {
            SCOPED_TRACE(metric + " " + path);
            const auto f = std::find_if(p.functions.begin(), p.functions.end(),
                                        [&](const core::ProfileFunction& g) { return g.name == path; });
            ASSERT_NE(f, p.functions.end());
            EXPECT_EQ(f->metrics.at(metric).per_rank[0], v["exclusive"].get<std::vector<double>>());
            EXPECT_EQ(f->metrics.at(metric + " (inc)").per_rank[0],
                      v["inclusive"].get<std::vector<double>>());
            EXPECT_EQ(f->metrics.at(metric).aggregate, "sum");
            checked += 2;
        }
    EXPECT_EQ(checked, 3u * 6u * 2u); // three metrics with data, six call paths (main->foo from two sites)
    EXPECT_EQ(p.functions.size(), 6u);
    // The derived metric has no data: named, not read.
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("'ratio'"), std::string::npos);
}

TEST(Cube, EveryMetricExclusiveAndInclusivePerCallPathAndLocation) {
    expect_expected_values("small.cubex");
}

TEST(Cube, BigEndianAndCompressedData) {
    expect_expected_values("big-endian.cubex");
}

TEST(Cube, UnitsAndSniffing) {
    const std::string bytes = core::read_file(cube_fixture("small.cubex"));
    const core::Profile p = cube_to_profile(parse_cube(bytes, "s.cubex"), "s.cubex");
    EXPECT_EQ(p.functions[0].metrics.at("time").unit, "seconds");
    EXPECT_EQ(p.functions[0].metrics.at("visits").unit, "count");
    EXPECT_TRUE(looks_like_cube(bytes));
    EXPECT_FALSE(looks_like_cube("anchor.xml"));
}

TEST(Cube, DamagedArchivesAreOneLineErrors) {
    const std::string bytes = core::read_file(cube_fixture("small.cubex"));
    EXPECT_NE(
        input_error_of([] { (void)parse_cube("not a tar archive at all", "x.cubex"); }).find("x.cubex: "),
        std::string::npos);
    // A member cut short: the archive ends inside 2.data.
    const std::string cut = bytes.substr(0, 512 * 12);
    const std::string e = input_error_of([&] { (void)parse_cube(cut, "x.cubex"); });
    EXPECT_EQ(e.find('\n'), std::string::npos);
    EXPECT_EQ(e.rfind("x.cubex", 0), 0u) << e;
    // Damaged XML: the anchor's first bytes overwritten (tar header 512 bytes, content after it).
    std::string bad = bytes;
    bad.replace(512, 5, "<cub!");
    EXPECT_NE(input_error_of([&] { (void)parse_cube(bad, "x.cubex"); }).find("anchor.xml"),
              std::string::npos);
}

} // namespace
} // namespace roofcast::measure::profile
