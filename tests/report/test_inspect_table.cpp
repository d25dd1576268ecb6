// The `roofcast inspect` formatters on a hand-built inspection: the table (golden file) and the JSON
// fields. To refresh the golden file after an intended change of layout: ROOFCAST_UPDATE_GOLDEN=1
// test_report.
#include "core/io.hpp"
#include "report/inspect_table.hpp"

#include <cstdint>
#include <cstdlib>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <utility>

using namespace roofcast;

namespace {

// A loop of `function` at [begin, end) with `instructions` instructions, FP arithmetic instructions by width
// and arithmetic operations by width; the counts by kind are left to the caller.
measure::LoopInspection loop(std::string function, std::uint64_t begin, std::uint64_t end, int instructions,
                             std::map<int, int> fp_by_width, std::map<int, int> flop_ops_by_width) {
    measure::LoopInspection l;
    l.function = std::move(function);
    l.begin = begin;
    l.end = end;
    l.instructions = instructions;
    l.fp_by_width = std::move(fp_by_width);
    l.flop_ops_by_width = std::move(flop_ops_by_width);
    return l;
}

measure::CodeInspection example() {
    measure::CodeInspection r;
    r.binary = "a.out";
    r.symbol = "kernel";
    r.functions = {"kernel(int)", "kernel(int) [clone ._omp_fn.0]"};
    // An AVX-512 body: 3 fma (into 2 carried accumulators) + 1 add on zmm, 1 sqrt, 1 max, 4 loads, 1 store.
    measure::LoopInspection v =
        loop("kernel(int) [clone ._omp_fn.0]", 0x1010, 0x1053, 14, {{512, 6}}, {{512, 8}});
    v.fma = 3;
    v.fma_chains = 2;
    v.add = 1;
    v.sqrt = 1;
    v.other_fp = 1;
    v.loads = 4;
    v.stores = 1;
    v.double_precision = 6;
    // A scalar single-precision remainder: 1 mul, 1 gather.
    measure::LoopInspection s = loop("kernel(int)", 0x2000, 0x2010, 5, {{0, 1}}, {{0, 1}});
    s.mul = 1;
    s.loads = 1;
    s.gathers = 1;
    s.single_precision = 1;
    r.loops = {v, s, loop("kernel(int)", 0x3000, 0x3004, 2, {}, {})}; // the last with no FP at all
    return r;
}

} // namespace

TEST(InspectTable, Golden) {
    const std::string path = std::string(ROOFCAST_SOURCE_DIR) + "/tests/report/golden/inspect_table.txt";
    const std::string text = report::format_inspection_table(example());
    if (std::getenv("ROOFCAST_UPDATE_GOLDEN"))
        core::write_file_atomic(path, text);
    EXPECT_EQ(text, core::read_file(path)) << "golden file " << path << " differs";
}

TEST(InspectTable, UnavailableAndNoLoops) {
    measure::CodeInspection r = example();
    r.loops.clear();
    EXPECT_EQ(report::format_inspection_table(r),
              "a.out: functions starting with 'kernel': 2 matching, 0 innermost "
              "loops\nno loop in the matching functions:\n  kernel(int)\n  "
              "kernel(int) [clone ._omp_fn.0]\n");
    r.unavailable = "objdump not installed (binutils)";
    EXPECT_NE(report::format_inspection_table(r).find("not inspected: objdump not installed"),
              std::string::npos);
    EXPECT_EQ(report::inspection_json(r)["unavailable"], "objdump not installed (binutils)");
}

TEST(InspectTable, Json) {
    const nlohmann::json j = report::inspection_json(example());
    EXPECT_EQ(j["binary"], "a.out");
    EXPECT_TRUE(j["unavailable"].is_null());
    ASSERT_EQ(j["loops"].size(), 3u);
    const nlohmann::json& v = j["loops"][0];
    EXPECT_EQ(v["begin"], "0x1010");
    EXPECT_EQ(v["end"], "0x1053");
    EXPECT_EQ(v["fp_by_width"], (nlohmann::json{{"512", 6}}));
    EXPECT_EQ(v["vector_bits"], 512);
    EXPECT_EQ(v["precision"], "double");
    EXPECT_EQ(v["flops_per_pass"]["double"], 64.0); // 8 ops x 8 lanes
    EXPECT_EQ(v["flops_per_pass"]["single"], 128.0);
    EXPECT_EQ(v["fma"], 3);
    EXPECT_EQ(v["fma_chains"], 2);
    EXPECT_EQ(v["sqrt"], 1);
    EXPECT_EQ(v["other_fp"], 1);
    EXPECT_EQ(j["loops"][1]["precision"], "single");
    EXPECT_EQ(j["loops"][1]["gathers"], 1);
    EXPECT_EQ(j["loops"][1]["vector_bits"], 0);
    EXPECT_EQ(j["loops"][2]["precision"], "none");
    EXPECT_EQ(j["functions"].size(), 2u);
    EXPECT_EQ(j["functions_not_inspected"], 0);
}

TEST(InspectTable, FunctionsLeftOutAreSaid) {
    measure::CodeInspection r = example();
    r.functions_not_inspected = 3;
    const std::string t = report::format_inspection_table(r);
    EXPECT_EQ(
        t.substr(0, t.find('\n', t.find('\n') + 1) + 1),
        "a.out: functions starting with 'kernel': 5 matching, 3 innermost loops\nonly the first 2 functions "
        "were inspected (3 more left out): a longer SYMBOL narrows the match\n");
    EXPECT_EQ(report::inspection_json(r)["functions_not_inspected"], 3);
}
