// The join behind the callgrind backend on hand-made inputs: executed counts x each instruction's work per
// function and innermost loop, and the native run's perf samples placed in those loops by address.
#include "core/error.hpp"
#include "measure/instruction_work.hpp"
#include "measure/profile/counted_work.hpp"
#include "measure/profile/perf_report.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace roofcast::measure::profile {
namespace {

// One function "triad" in /bin/prog: a preamble at 0x1000, a loop 0x1010..0x1020 (an FMA with a 32-byte
// load, a 32-byte store, the back edge at 0x1020 taken 99 of 100 executions) and a return at 0x1030.
CallgrindData triad_run() {
    CallgrindData d;
    d.events = {"Ir"};
    d.files = {"", "triad.c"};
    d.has_instructions = true;
    CallgrindFunction f;
    f.object = "/bin/prog";
    f.name = "triad";
    f.file = 1;
    const auto ins = [](std::uint64_t a, std::int64_t line, double count) {
        return CallgrindInstruction{a, line, 1, {count}};
    };
    f.instructions = {ins(0x1000, 3, 1), ins(0x1010, 5, 100), ins(0x1018, 5, 100), ins(0x1020, 4, 100),
                      ins(0x1030, 7, 1)};
    CallgrindJump back;
    back.from = 0x1020;
    back.to = 0x1010;
    back.from_line = 4;
    back.to_line = 5;
    back.executed = 100;
    back.taken = 99;
    f.jumps = {back};
    d.functions = {f};
    return d;
}

std::map<std::string, WorkTable> triad_work() {
    InstructionWork fma;
    fma.flops_dp = 8; // 4 lanes x 2
    fma.fp_arithmetic = true;
    fma.memory = true;
    fma.load_bytes = 32;
    fma.vector_bits = 256;
    InstructionWork store;
    store.memory = true;
    store.store_bytes = 32;
    return {{"/bin/prog", {{0x1000, {}}, {0x1010, fma}, {0x1018, store}, {0x1020, {}}, {0x1030, {}}}}};
}

TEST(CountedWork, CountsFlopsBytesAndTheInnermostLoop) {
    const CountedProgram p = count_work(triad_run(), triad_work());
    ASSERT_EQ(p.functions.size(), 1u);
    const CountedWork& w = p.functions[0].work;
    EXPECT_EQ(w.instructions, 302);
    EXPECT_EQ(w.flops_dp, 800);
    EXPECT_EQ(w.flops_sp, 0);
    EXPECT_EQ(w.bytes_l1(), 6400);
    EXPECT_EQ(w.vector_bits, 256);
    ASSERT_EQ(p.loops.size(), 1u);
    const CountedLoop& l = p.loops[0];
    EXPECT_EQ(l.begin, 0x1010u);
    EXPECT_EQ(l.end, 0x1020u);
    EXPECT_EQ(l.iterations, 100);
    EXPECT_EQ(l.entries, 1);
    EXPECT_EQ(l.work.flops_dp, 800);
    EXPECT_EQ(l.work.instructions, 300);
    EXPECT_EQ(p.unmatched, 0);
    EXPECT_EQ(p.executed, 302);
}

TEST(CountedWork, CountsUndecodedAddressesAsUnmatched) {
    auto work = triad_work();
    work["/bin/prog"].erase(0x1030);
    const CountedProgram p = count_work(triad_run(), work);
    EXPECT_EQ(p.unmatched, 1);
    EXPECT_EQ(p.functions[0].work.flops_dp, 800);
}

TEST(PerfScript, SumsSamplesPerSymbolAndOffset) {
    const std::string text = "    250000      55d4a2c0f1a9 triad+0x12 (/bin/prog)\n"
                             "    250000      55d4a2c0f1a9 triad+0x12 (/bin/prog)\n"
                             "    125000      55d4a2c0f1b9 ns::f(double*, int)+0x3 (/usr/lib/libx.so.1)\n"
                             "    250000  ffffffff816aa779 clear_page_erms+0x7 ([kernel.kallsyms])\n"
                             "    250000      7f5d9854b1f9 [unknown] (/bin/prog)\n"
                             "\n";
    const auto places = parse_perf_script(text, "perf.script");
    ASSERT_EQ(places.size(), 3u);
    const auto find = [&](const std::string& sym) {
        for (const auto& p : places)
            if (p.symbol == sym)
                return p;
        ADD_FAILURE() << sym;
        return PerfSamplePlace{};
    };
    EXPECT_EQ(find("triad").period, 500000);
    EXPECT_EQ(find("triad").samples, 2);
    EXPECT_EQ(find("triad").offset, 0x12u);
    EXPECT_EQ(find("ns::f(double*, int)").dso, "/usr/lib/libx.so.1");
    EXPECT_EQ(find("ns::f(double*, int)").offset, 3u);
    EXPECT_EQ(find("clear_page_erms").dso, "[kernel.kallsyms]");
}

TEST(PerfScript, SumsThePlacesPerFunctionAsPerfReportDoes) {
    const std::vector<PerfSamplePlace> places{{"/bin/prog", "triad", 0x12, 500000, 2},
                                              {"/bin/prog", "triad", 0x30, 250000, 1},
                                              {"/usr/lib/libc.so.6", "memcpy", 0x10, 750000, 3},
                                              {"[kernel.kallsyms]", "clear_page_erms", 0x7, 500000, 2}};
    const PerfEventReport r = cpu_clock_report(places);
    EXPECT_EQ(r.event, "cpu-clock");
    EXPECT_EQ(r.total_samples, 8);
    ASSERT_EQ(r.symbols.size(), 3u);
    EXPECT_EQ(r.symbols[0].name, "triad");
    EXPECT_EQ(r.symbols[0].period, 750000);
    EXPECT_EQ(r.symbols[0].samples, 3);
    EXPECT_DOUBLE_EQ(r.symbols[0].percent, 37.5);
    EXPECT_FALSE(r.symbols[0].kernel);
    EXPECT_EQ(r.symbols[1].dso, "/usr/lib/libc.so.6");
    EXPECT_TRUE(r.symbols[2].kernel);
    EXPECT_DOUBLE_EQ(r.symbols[2].percent, 25.0);
    EXPECT_TRUE(cpu_clock_report({}).symbols.empty());
}

TEST(PerfScript, RefusesLinesItCannotReadNamingTheLine) {
    for (const std::string bad : {"abc 55d4 triad+0x12 (/bin/prog)\n", "250000 55d4 triad+0x12\n",
                                  "250000 55d4 triad+0xzz (/bin/prog)\n", "inf 55d4 triad+0x1 (/bin/prog)\n",
                                  "-5 55d4 triad+0x1 (/bin/prog)\n", "250000\n"}) {
        try {
            parse_perf_script("250000 55d4 ok+0x1 (/bin/prog)\n" + bad, "perf.script");
            ADD_FAILURE() << bad;
        } catch (const core::InputError& e) {
            EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
        }
    }
}

TEST(SymbolAddresses, ReadsNmAndDropsNamesDefinedTwice) {
    const auto s = parse_symbol_addresses("0000000000001150 T triad\n"
                                          "0000000000001200 t helper\n"
                                          "0000000000001300 t helper\n"
                                          "0000000000001400 T ns::f(double*, int)\n"
                                          "                 U memcpy\n"
                                          "0000000000001500 t helper\n");
    EXPECT_EQ(s.at("triad"), 0x1150u);
    EXPECT_EQ(s.at("ns::f(double*, int)"), 0x1400u);
    EXPECT_EQ(s.count("helper"), 0u);
    EXPECT_EQ(s.count("memcpy"), 0u);
}

TEST(LoopTime, PlacesSamplesInTheLoopHoldingTheirAddress) {
    const CountedProgram p = count_work(triad_run(), triad_work());
    const std::map<std::string, std::map<std::string, std::uint64_t>> symbols{
        {"/bin/prog", {{"triad", 0x1000}}}};
    std::vector<PerfSamplePlace> samples{
        {"/bin/prog", "triad", 0x10, 2e8, 800},     // the loop's first instruction
        {"/bin/prog", "triad", 0x20, 1e8, 400},     // its back edge
        {"/bin/prog", "triad", 0x30, 5e8, 2000},    // after the loop: the function alone
        {"prog", "triad", 0x18, 1e8, 400},          // the same object named by its file name
        {"/bin/other", "triad", 0x18, 7e8, 2800},   // another object
        {"/bin/prog", "unknown_fn", 0x18, 9e8, 1}}; // a symbol nm did not list
    const std::vector<SampledTime> s = loop_sampled_time(p, samples, symbols);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_DOUBLE_EQ(s[0].seconds, 0.4);
    EXPECT_DOUBLE_EQ(s[0].samples, 1600); // 800 + 400 + 400
}

// glibc's memcpy as callgrind 3.19 records it: `rep movsb` at 0x2000 run by 20 calls of 50 bytes (each
// visit one iteration, and one last visit per call with %rcx zero: 1020 executions, its jump to itself
// taken 1000 times), and a `repz cmpsb` at 0x2002 that stops on a difference.
TEST(CountedWork, CountsRepMovsIterationsFromTheJumpToItselfAndLeavesRepzCmpsUnknown) {
    CallgrindData d;
    d.events = {"Ir"};
    d.files = {""};
    d.has_instructions = true;
    CallgrindFunction f;
    f.object = "/lib/libc.so.6";
    f.name = "__memcpy_avx_unaligned_erms";
    f.instructions = {CallgrindInstruction{0x2000, 0, 0, {1020}}, CallgrindInstruction{0x2002, 0, 0, {70}}};
    CallgrindJump self;
    self.from = self.to = 0x2000;
    self.executed = 1020;
    self.taken = 1000;
    CallgrindJump cmps = self;
    cmps.from = cmps.to = 0x2002;
    cmps.executed = 70;
    cmps.taken = 45;
    f.jumps = {self, cmps};
    d.functions = {f};
    WorkTable table;
    for (const DecodedInstruction& ins :
         parse_objdump_instructions("  2000:\trep movsb %ds:(%rsi),%es:(%rdi)\n"
                                    "  2002:\trepz cmpsb %es:(%rdi),%ds:(%rsi)\n"))
        table.emplace(ins.address, instruction_work(ins));
    ASSERT_EQ(table.size(), 2u);
    const CountedProgram p = count_work(d, {{"/lib/libc.so.6", table}});
    ASSERT_EQ(p.functions.size(), 1u);
    const CountedWork& w = p.functions[0].work;
    EXPECT_EQ(w.bytes_loaded, 1000);
    EXPECT_EQ(w.bytes_stored, 1000);
    EXPECT_EQ(w.unknown_width, 70); // the cmpsb's executions: its iterations are not known
    // The jump to itself is also the one-instruction loop the rep runs.
    ASSERT_EQ(p.loops.size(), 2u);
    EXPECT_EQ(p.loops[0].work.bytes_stored, 1000);
    // Without the jumps (a run without --collect-jumps) the bytes stay unknown.
    d.functions[0].jumps.clear();
    const CountedProgram q = count_work(d, {{"/lib/libc.so.6", table}});
    EXPECT_EQ(q.functions[0].work.bytes_loaded, 0);
    EXPECT_EQ(q.functions[0].work.unknown_width, 1090);
}

TEST(CountedName, GivesTheCountedRunsNameOfTheSameAddress) {
    CountedProgram p;
    p.functions.push_back(CountedFunction{"/usr/lib/libc.so.6", "__memcpy_avx_unaligned_erms", "", {}, {}});
    p.functions.push_back(CountedFunction{"/usr/lib/libc.so.6", "strlen", "", {}, {}});
    p.functions.push_back(CountedFunction{"/bin/prog", "main", "", {}, {}});
    const std::map<std::string, std::map<std::string, std::uint64_t>> symbols{
        {"/usr/lib/libc.so.6",
         {{"__memcpy_avx_unaligned_erms", 0x152a80},
          {"__memmove_avx_unaligned_erms", 0x152a80},
          {"strlen", 0x1000},
          {"__strlen_avx2", 0x2000}}},
        {"/bin/prog", {{"main", 0x1100}, {"alias_of_main", 0x1100}}}};
    // perf names the object by its file name, the function by the alias it chose.
    EXPECT_EQ(counted_name_of(p, symbols, "libc.so.6", "__memmove_avx_unaligned_erms"),
              "__memcpy_avx_unaligned_erms");
    EXPECT_EQ(counted_name_of(p, symbols, "libc.so.6", "strlen"), "strlen");
    EXPECT_EQ(counted_name_of(p, symbols, "libc.so.6", "__strlen_avx2"), "__strlen_avx2"); // another address
    EXPECT_EQ(counted_name_of(p, symbols, "prog", "alias_of_main"), "main");
    EXPECT_EQ(counted_name_of(p, symbols, "[kernel.kallsyms]", "clear_page_erms"), "clear_page_erms");
    EXPECT_EQ(counted_name_of(p, symbols, "libc.so.6", "not_in_the_table"), "not_in_the_table");
}

TEST(DisassemblyRanges, SplitsWhereUnexecutedCodeIsWideAndBoundsTheCalls) {
    EXPECT_TRUE(disassembly_ranges({}).empty());
    // Unsorted, repeated addresses; a gap of exactly 4 KiB stays inside one range, a wider one splits it.
    using R = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
    EXPECT_EQ(disassembly_ranges({0x2000, 0x1000, 0x1010, 0x1010, 0x3001, 0x9000}),
              (R{{0x1000, 0x2000}, {0x3001, 0x3001}, {0x9000, 0x9000}}));
    // 100 runs of code, the gap after run i (i + 1) pages wide: the 63 widest gaps split, the 36 narrowest
    // are read through, so the first range holds the first 37 runs.
    std::vector<std::uint64_t> a;
    std::uint64_t at = 0x10000;
    for (int i = 0; i < 100; ++i) {
        a.push_back(at);
        a.push_back(at + 0x40);
        at += 0x40 + 0x1000 * static_cast<std::uint64_t>(i + 2);
    }
    const R r = disassembly_ranges(a);
    ASSERT_EQ(r.size(), 64u);
    EXPECT_EQ(r.front().first, a.front());
    EXPECT_EQ(r.front().second, a[2 * 36 + 1]);
    EXPECT_EQ(r[1].first, a[2 * 37]);
    EXPECT_EQ(r.back().second, a.back());
    for (std::size_t k = 1; k < r.size(); ++k)
        EXPECT_GT(r[k].first, r[k - 1].second);
}

} // namespace
} // namespace roofcast::measure::profile
