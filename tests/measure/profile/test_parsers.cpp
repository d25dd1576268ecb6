// The pure parsers of `roofcast profile` on small fixtures written for these tests: cachegrind output,
// `perf report --stdio`, TAU profile files and directories, marker files; and valgrind's cache geometry.
#include "core/error.hpp"
#include "measure/profile/cachegrind.hpp"
#include "measure/profile/marker_file.hpp"
#include "measure/profile/perf_report.hpp"
#include "measure/profile/tau.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace roofcast::measure::profile {
namespace {

const char* k_cachegrind = R"(desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         49152 B, 64 B, 12-way associative
desc: LL cache:         8388608 B, 64 B, 16-way associative
cmd: ./t
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=t.cpp
fn=main
10 5 1 1 2 0 0 1
11 3
fn=_ZN2ns9heavy_sumERSt6vectorIdSaIdEE
3 100 0 0 40 10 2 20 5 1
fl=other.cpp
fn=main
20 2 0 0 1 1 1
summary: 110 1 1 43 11 3 21 5 1
)";

TEST(Cachegrind, ParsesEventsFunctionsAndShortCostLines) {
    const auto cg = parse_cachegrind(k_cachegrind, "fixture");
    ASSERT_EQ(cg.events.size(), 9u);
    ASSERT_EQ(cg.by_function.size(), 2u);
    const auto& main = cg.by_function.at("main"); // two files' "main" are summed
    EXPECT_EQ(main.at("Ir"), 5 + 3 + 2);
    EXPECT_EQ(main.at("Dr"), 2 + 1);
    EXPECT_EQ(main.at("D1mr"), 0 + 1);
    EXPECT_EQ(main.at("Dw"), 1.0);
    EXPECT_EQ(main.count("D1mw"), 0u); // omitted trailing counts are zero
    const auto& heavy = cg.by_function.at("ns::heavy_sum(std::vector<double, std::allocator<double> >&)");
    const auto m = cachegrind_metrics(heavy, 64);
    EXPECT_EQ(m.at("INS"), 100);
    EXPECT_EQ(m.at("L1_DCM"), 10 + 5);
    EXPECT_EQ(m.at("L1_DCM_read"), 10);
    EXPECT_EQ(m.at("L1_DCM_write"), 5);
    EXPECT_EQ(m.at("LL_MISS"), 2 + 1);
    EXPECT_EQ(m.at("LL_MISS_BYTES"), 3 * 64);
    EXPECT_EQ(m.at("L1_DCA"), 40 + 20);
    EXPECT_EQ(cg.summary.at("Ir"), 110);
}

TEST(Cachegrind, RejectsMalformedInput) {
    EXPECT_THROW(parse_cachegrind("fn=main\n1 2\n", "f"), core::InputError);            // no events line
    EXPECT_THROW(parse_cachegrind("events: Ir\n1 2\n", "f"), core::InputError);         // cost before fn=
    EXPECT_THROW(parse_cachegrind("events: Ir\nfn=a\n1 2 3\n", "f"), core::InputError); // too many counts
    EXPECT_THROW(parse_cachegrind("events: Ir\nfn=a\n1 x\n", "f"), core::InputError);
    EXPECT_THROW(parse_cachegrind("events: Ir\nfn=a\n" + std::string(k_cachegrind_max_line + 1, '1'), "f"),
                 core::InputError);
}

TEST(Cachegrind, GeometryKeepsValidAndRoundsOthers) {
    const auto l1 = cache_geometry("D1", 48 * 1024, 12, 64); // 64 sets: valid
    EXPECT_EQ(l1.size_bytes, 48u * 1024);
    EXPECT_EQ(l1.associativity, 12);
    EXPECT_TRUE(l1.note.empty());
    const auto ll = cache_geometry("LL", 25u << 20, 16, 64); // 25600 sets: not a power of two
    const std::uint64_t sets = ll.size_bytes / (static_cast<std::uint64_t>(ll.associativity) * ll.line_bytes);
    EXPECT_EQ(sets & (sets - 1), 0u);
    EXPECT_EQ(ll.size_bytes % (static_cast<std::uint64_t>(ll.associativity) * 64), 0u);
    EXPECT_EQ(ll.size_bytes, 25u << 20); // an associativity of 25 with 16384 sets fits exactly
    EXPECT_FALSE(ll.note.empty());
    EXPECT_EQ(ll.valgrind_arg(), fmt::format("{},{},64", ll.size_bytes, ll.associativity));
}

TEST(Cachegrind, RecognisesValgrindsDecodeFailure) {
    // The shape of valgrind 3.19's log on an AVX-512 instruction (EVEX prefix 0x62).
    const std::string log = "==123== Cachegrind, a cache and branch-prediction profiler\n"
                            "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48 0x58 0xC0\n"
                            "==123== valgrind: Unrecognised instruction at address 0x401136.\n"
                            "==123== Process terminating with default action of signal 4 (SIGILL)\n";
    EXPECT_TRUE(valgrind_decode_failure(log));
    EXPECT_FALSE(valgrind_decode_failure("==1== I refs: 100\n==1== D1 misses: 3\n"));
}

TEST(Demangle, DemanglesOnlyMangledNames) {
    EXPECT_EQ(demangle("_Z3fooi"), "foo(int)");
    EXPECT_EQ(demangle("dot_product_"), "dot_product_"); // a Fortran name as gfortran emits it
    EXPECT_EQ(demangle("_Znotvalid!"), "_Znotvalid!");
}

const char* k_perf = R"(# To display the perf.data header info, please use --header/--header-only options.
#
# Total Lost Samples: 0
#
# Samples: 109  of event 'cpu-clock'
# Event count (approx.): 27250000
#
# Overhead       Samples        Period  Shared Object         Symbol
# ........  ............  ............  ....................  .......................
#
    76.15%            83      20750000  t                     [.] ns::heavy_sum
     9.17%            10       2500000  [kernel.kallsyms]     [k] clear_page_erms
     7.34%             8       2000000  t                     [.] light_loop
     0.92%             1        250000  libgcc_s.so.1         [.] 0x00000000000038b7
     0.92%             1        250000  libfoo.so             [.] _Z3bari

# Samples: 2K  of event 'instructions'
# Event count (approx.): 1000000
#
    90.00%          1800        900000  t                     [.] ns::heavy_sum
    10.00%           200        100000  t                     [.] light_loop
)";

TEST(PerfReport, ParsesSectionsSymbolsAndPeriods) {
    const auto r = parse_perf_report(k_perf, "fixture");
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].event, "cpu-clock");
    EXPECT_EQ(r[0].total_samples, 109);
    ASSERT_EQ(r[0].symbols.size(), 5u);
    EXPECT_EQ(r[0].symbols[0].name, "ns::heavy_sum");
    EXPECT_EQ(r[0].symbols[0].dso, "t");
    EXPECT_DOUBLE_EQ(r[0].symbols[0].percent, 76.15);
    EXPECT_EQ(r[0].symbols[0].samples, 83);
    EXPECT_EQ(r[0].symbols[0].period, 20750000);
    EXPECT_TRUE(r[0].symbols[1].kernel);
    EXPECT_EQ(r[0].symbols[1].dso, "[kernel.kallsyms]");
    EXPECT_EQ(r[0].symbols[3].name, "[unknown] libgcc_s.so.1");
    EXPECT_EQ(r[0].symbols[4].name, "bar(int)");
    EXPECT_EQ(r[1].event, "instructions");
    EXPECT_EQ(r[1].total_samples, 2000);
    EXPECT_EQ(r[1].symbols[1].period, 100000);
}

TEST(PerfReport, RejectsRowsItCannotRead) {
    EXPECT_THROW(parse_perf_report("    10.0%  1 2 t [.] f\n", "f"), core::InputError); // no header
    EXPECT_THROW(parse_perf_report("# Samples: 1  of event 'x'\n  abc\n", "f"), core::InputError);
    EXPECT_THROW(parse_perf_report("# Samples: 1  of event 'x'\n  10% 1 2 t f\n", "f"), core::InputError);
    EXPECT_TRUE(parse_perf_report("", "f").empty());
}

const char* k_tau0 = R"(3 templated_functions_MULTI_TIME
# Name Calls Subrs Excl Incl ProfileCalls #<metadata><attribute><name>Node</name><value>0</value></attribute></metadata>
".TAU application" 1 1 1000 3000000 0 GROUP="TAU_DEFAULT"
"main => solve" 1 10 2000000 2999000 0 GROUP="TAU_CALLPATH"
"dot(double const*, double const*, int) [{cg.cpp} {10,1}-{20,1}]" 10 0 999000 999000 0 GROUP="TAU_USER"
0 aggregates
1 userevents
# eventname numevents max min mean sumsqr
"Message size" 4 8 8 8 256
)";

TEST(Tau, ParsesHeaderAndFunctionLines) {
    const auto f = parse_tau_profile(k_tau0, "fixture");
    EXPECT_EQ(f.metric, "TIME");
    ASSERT_EQ(f.functions.size(), 3u);
    EXPECT_EQ(f.functions[1].name, "main->solve");
    EXPECT_EQ(f.functions[2].name, "dot(double const*, double const*, int) [{cg.cpp} {10,1}-{20,1}]");
    EXPECT_EQ(f.functions[2].calls, 10);
    EXPECT_EQ(f.functions[2].exclusive, 999000);
    EXPECT_EQ(f.functions[0].inclusive, 3000000);
    EXPECT_EQ(
        parse_tau_profile("0 templated_functions\n# Name Calls Subrs Excl Incl ProfileCalls\n", "f").metric,
        "TIME");
}

TEST(Tau, RejectsMalformedFiles) {
    EXPECT_THROW(parse_tau_profile("", "f"), core::InputError);
    EXPECT_THROW(parse_tau_profile("x templated_functions\n", "f"), core::InputError);
    EXPECT_THROW(
        parse_tau_profile("2 templated_functions\n# Name Calls Subrs Excl Incl\n\"a\" 1 0 1 1 0\n", "f"),
        core::InputError); // fewer lines than announced
    EXPECT_THROW(
        parse_tau_profile("1 templated_functions\n# Name Calls Subrs Excl Incl\nnoquote 1 0 1 1\n", "f"),
        core::InputError);
    EXPECT_THROW(
        parse_tau_profile("1 templated_functions\n# Name Calls Subrs Excl Incl\n\"a\" 1 0 x 1\n", "f"),
        core::InputError);
    EXPECT_THROW(parse_tau_profile("999999999 templated_functions\n", "f"), core::InputError);
}

class TempDirTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string t = (std::filesystem::temp_directory_path() / "roofcast-test-XXXXXX").string();
        ASSERT_NE(::mkdtemp(t.data()), nullptr);
        dir = t;
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    void write(const std::string& rel, const std::string& text) {
        std::filesystem::create_directories((dir / rel).parent_path());
        std::ofstream(dir / rel) << text;
    }
    std::filesystem::path dir;
};

using TauDir = TempDirTest;

TEST_F(TauDir, MultiMetricDirectoryBecomesPerRankProfile) {
    const std::string head = "# Name Calls Subrs Excl Incl ProfileCalls\n";
    write("MULTI__TIME/profile.0.0.0",
          "2 templated_functions_MULTI_TIME\n" + head +
              "\"main\" 1 1 1000000 3000000 0\n\"dot\" 10 0 2000000 2000000 0\n");
    write("MULTI__TIME/profile.1.0.0", "2 templated_functions_MULTI_TIME\n" + head +
                                           "\"main\" 1 1 500000 2500000 0\n\"dot\" 10 0 2000000 2000000 0\n");
    write("MULTI__PAPI_L1_DCM/profile.0.0.0",
          "1 templated_functions_MULTI_PAPI_L1_DCM\n" + head + "\"dot\" 10 0 700 700 0\n");
    write("MULTI__PAPI_L1_DCM/profile.1.0.0",
          "1 templated_functions_MULTI_PAPI_L1_DCM\n" + head + "\"dot\" 10 0 300 300 0\n");
    write("MULTI__PAPI_L1_DCM/profile.1.0.1", "1 templated_functions_MULTI_PAPI_L1_DCM\n" + head +
                                                  "\"dot\" 5 0 50 50 0\n"); // a second thread of rank 1
    const core::Profile p = import_tau_directory(dir.string());
    EXPECT_EQ(p.backend, "tau");
    EXPECT_EQ(p.ranks, 2);
    ASSERT_EQ(p.parameters.size(), 1u);
    EXPECT_EQ(p.parameters[0].second, 2);
    ASSERT_TRUE(p.wall_seconds);
    EXPECT_DOUBLE_EQ(*p.wall_seconds, 3.0); // the largest inclusive time, microseconds -> seconds
    const auto dot =
        std::find_if(p.functions.begin(), p.functions.end(), [](auto& f) { return f.name == "dot"; });
    ASSERT_NE(dot, p.functions.end());
    const auto& dcm = dot->metrics.at("PAPI_L1_DCM");
    EXPECT_EQ(dcm.per_rank.at(0), (std::vector<double>{700, 350}));
    EXPECT_EQ(dcm.aggregate, "sum");
    EXPECT_DOUBLE_EQ(dot->metrics.at("time").per_rank.at(0).at(1), 2.0);
    // "main" has no PAPI_L1_DCM on any rank: only time; no rank lacks it.
    EXPECT_TRUE(p.warnings.empty());
}

TEST_F(TauDir, EmptyDirectoryIsAnError) {
    EXPECT_THROW(import_tau_directory(dir.string()), core::InputError);
    EXPECT_THROW(import_tau_directory((dir / "missing").string()), core::InputError);
}

using MarkerDir = TempDirTest;

TEST_F(MarkerDir, ReadsRanksRegionsAndWarnings) {
    write("marker.1.200.json", R"({"format":"roofcast-marker","format_version":1,"rank":1,"ranks":2,"pid":200,
      "wall_seconds":1.5,"threads":2,"papi_events":[],"regions":[{"path":"main->dot","name":"dot","calls":10,
      "seconds":0.5,"thread_seconds":[0.5,0.4],"flops":1e9,"bytes":8e9}],
      "warnings":["region 'x' ended but the innermost open region is 'y'"]})");
    write("marker.0.100.json", R"({"format":"roofcast-marker","format_version":1,"rank":0,"ranks":2,"pid":100,
      "regions":[{"path":"main","name":"main","calls":1,"seconds":1.0,"counters":{"PAPI_TOT_INS":5}}]})");
    write("unrelated.txt", "x");
    std::vector<std::string> warnings;
    const auto m = read_marker_dir(dir.string(), warnings);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m.at(1).threads, 2);
    ASSERT_EQ(m.at(1).regions.size(), 1u);
    EXPECT_EQ(m.at(1).regions[0].path, "main->dot");
    EXPECT_EQ(*m.at(1).regions[0].flops, 1e9);
    EXPECT_EQ(m.at(1).warnings.size(), 1u);
    EXPECT_EQ(m.at(0).regions[0].counters.at("PAPI_TOT_INS"), 5);
    EXPECT_FALSE(m.at(0).regions[0].flops);
}

TEST(MarkerFile, RejectsBadFiles) {
    EXPECT_THROW(parse_marker_file("{", "f"), core::InputError);
    EXPECT_THROW(parse_marker_file(R"({"format":"other","format_version":1,"rank":0,"regions":[]})", "f"),
                 core::InputError);
    EXPECT_THROW(parse_marker_file(R"({"format":"roofcast-marker","format_version":1,"rank":0,
      "regions":[{"path":"a","seconds":-1}]})",
                                   "f"),
                 core::InputError);
    EXPECT_THROW(parse_marker_file(R"({"format":"roofcast-marker","format_version":1,"rank":0})", "f"),
                 core::InputError);
    // Counts past an int are refused, not wrapped (a rank of 1e10 read as -2147483648).
    for (const char* counts : {R"("rank":1e10)", R"("rank":0,"ranks":1e10)", R"("rank":0,"threads":1e10)"}) {
        const std::string text =
            std::string(R"({"format":"roofcast-marker","format_version":1,"regions":[],)") + counts + "}";
        EXPECT_THROW(parse_marker_file(text, "f"), core::InputError) << counts;
    }
}

} // namespace
} // namespace roofcast::measure::profile
