// likwid-perfctr's marker CSV (measure/profile/likwid.hpp) on files written by likwid's own output routine
// (tests/measure/data/likwid/make-fixtures.lua, which sets the counter values checked here).
#include "core/io.hpp"
#include "measure/profile/likwid.hpp"
#include "test_inputs.hpp"

#include <gtest/gtest.h>

namespace roofcast::measure::profile {
namespace {

using roofcast::test::input_error_of;

std::string likwid_fixture(const char* name) {
    return core::read_file(std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/likwid/" + name);
}

const core::ProfileFunction& region(const core::Profile& p, const std::string& name) {
    for (const auto& f : p.functions)
        if (f.name == name)
            return f;
    throw std::runtime_error("no region " + name);
}

TEST(Likwid, RegionsEventsAndThreads) {
    const core::Profile p = parse_likwid_csv(likwid_fixture("flops-dp.csv"), "flops-dp.csv");
    EXPECT_EQ(p.backend, "likwid");
    EXPECT_EQ(p.threads, 2);
    EXPECT_EQ(p.settings.at("likwid.hwthreads"), "HWThread 0,HWThread 2");
    ASSERT_EQ(p.functions.size(), 2u);
    EXPECT_EQ(p.functions[0].name, "sum");
    EXPECT_EQ(p.functions[1].name, "copy, then scale"); // a tag with a comma, which likwid does not quote
    const auto& sum = region(p, "sum");
    EXPECT_EQ(sum.kind, "region");
    // Region Info: RDTSC time and call count per thread, as the fixture set them.
    EXPECT_EQ(sum.metrics.at("time").per_rank, (std::vector<std::vector<double>>{{0.001234, 0.0011}}));
    EXPECT_EQ(sum.metrics.at("time").aggregate, "max");
    EXPECT_EQ(sum.metrics.at("calls").per_rank, (std::vector<std::vector<double>>{{3, 3}}));
    EXPECT_EQ(sum.metrics.at("INSTR_RETIRED_ANY").per_rank,
              (std::vector<std::vector<double>>{{2000000, 2100000}}));
    EXPECT_EQ(sum.metrics.at("INSTR_RETIRED_ANY").aggregate, "sum");
    // likwid prints 2999999.5 as 3.000000e+06: the file's precision, not the counter's.
    EXPECT_EQ(sum.metrics.at("RETIRED_SSE_AVX_FLOPS_ALL").per_rank,
              (std::vector<std::vector<double>>{{3000000, 3000000}}));
    EXPECT_EQ(sum.metrics.size(), 6u); // time, calls and the four events; STAT and Metric tables skipped
    const auto& copy = region(p, "copy, then scale");
    EXPECT_EQ(copy.metrics.at("INSTR_RETIRED_ANY").per_rank,
              (std::vector<std::vector<double>>{{123456789012.0, 1.5e12}}));
    EXPECT_EQ(copy.metrics.at("RETIRED_SSE_AVX_FLOPS_ALL").per_rank,
              (std::vector<std::vector<double>>{{0.125, 1e-7}}));
    EXPECT_EQ(copy.metrics.at("time").reduced_mean(), 0.5);
}

TEST(Likwid, CustomEventSetWithoutMetrics) {
    const core::Profile p = parse_likwid_csv(likwid_fixture("custom-events.csv"), "c.csv");
    ASSERT_EQ(p.functions.size(), 1u);
    const auto& f = p.functions[0];
    EXPECT_EQ(f.metrics.at("time").per_rank, (std::vector<std::vector<double>>{{2.0}}));
    EXPECT_EQ(f.metrics.at("calls").per_rank, (std::vector<std::vector<double>>{{10}}));
    EXPECT_EQ(f.metrics.at("L1D_REPLACEMENT").per_rank, (std::vector<std::vector<double>>{{12345}}));
    EXPECT_FALSE(f.metrics.count("Runtime (RDTSC) [s]"));
    EXPECT_EQ(p.settings.at("likwid.cpu"), "AMD EPYC");
}

TEST(Likwid, SurroundingOutputIsIgnoredAndNanIsLeftOut) {
    const std::string text = "-----------\nprogram output\n"
                             "TABLE,Region r,Group 1 Raw,G,2,\n"
                             "Region Info,HWThread 0\nRDTSC Runtime [s],1.000000\ncall count,1\n"
                             "Event,Counter,HWThread 0\nA,PMC0,5\nB,PMC1,nan\n-----------\n";
    const core::Profile p = parse_likwid_csv(text, "x.csv");
    ASSERT_EQ(p.functions.size(), 1u);
    EXPECT_EQ(p.functions[0].metrics.at("A").per_rank[0][0], 5.0);
    EXPECT_FALSE(p.functions[0].metrics.count("B"));
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_TRUE(looks_like_likwid_csv(text));
    EXPECT_FALSE(looks_like_likwid_csv("function,metric,p,value\n"));
}

TEST(Likwid, MalformedTablesAreOneLineErrors) {
    const std::string head = "TABLE,Region r,Group 1 Raw,G,1\n";
    const std::pair<std::string, std::string> cases[] = {
        {"no tables here\n", "x.csv: no likwid marker region table ('TABLE,Region <tag>,Group <n> Raw,...'): "
                             "expected the CSV output of likwid-perfctr -m -O"},
        {head, "x.csv: field 'end of file': the file ends inside a region table: expected 'Region "
               "Info,HWThread ...'"},
        {head + "Region Info,HWThread 0\nRDTSC Runtime [s],x\n",
         "x.csv: field 'line 3': expected a count or time (a number >= 0 or nan), got 'x'"},
        {head + "Region Info,HWThread 0\nRDTSC Runtime [s],1,2\n",
         "x.csv: field 'line 3': expected 1 values, one per hardware thread, got 2"},
        {head + "Region Info,HWThread 0\nRDTSC Runtime [s],1\ncall count,1\nEvent,Counter,HWThread 1\n",
         "x.csv: field 'line 5': expected 'Event,Counter,' and the hardware threads of 'Region Info'"},
        {head + "Region Info,HWThread 0\nRDTSC Runtime [s],1\ncall count,1\nEvent,Counter,HWThread 0\n",
         "x.csv: field 'end of file': the file ends inside a region table: expected one row per event"},
        {"TABLE,Region r,Group 1 Raw,G,many\n",
         "x.csv: field 'line 1': expected 'TABLE,Region <tag>,Group <n> Raw,<group>,<number of events>'"},
    };
    for (const auto& [text, message] : cases)
        EXPECT_EQ(input_error_of([&] { (void)parse_likwid_csv(text, "x.csv"); }), message) << text;
}

} // namespace
} // namespace roofcast::measure::profile
