// parse_callgrind on a hand-written file whose every expected figure is worked out below, on a real
// callgrind output (tests/measure/data/callgrind/triad.callgrind, made by make-fixture.sh from triad.c),
// checked against what triad.c's source fixes, and on malformed files, each refused with its line.
#include "core/error.hpp"
#include "core/io.hpp"
#include "measure/profile/callgrind.hpp"
#include "test_inputs.hpp"

#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace roofcast::measure::profile {
namespace {

// Two parts. Compressed names reuse the id 1 for an object, a file and a function; `cfn=` and `jfi=`
// define ids that `fn=` and `fi=` use later; subpositions are absolute (hex and decimal), relative and `*`.
const char* k_hand = R"(# callgrind format
version: 1
creator: hand-written for test_callgrind.cpp
pid: 42
cmd:  ./prog --n 8
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: Trigger: Program termination

positions: instr line
event: Ir : Instruction Fetches
events: Ir Dr Dw
summary: 100 30 20

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) main
0x1000 10 5 1
+4 * 2
+2 +1 3 1 1
cob=(2) /lib/libm.so
cfi=(2) s_sin.c
cfn=(2) sin
calls=2 0x9000 100
* * 40 8 4
+3 -1 1
cfn=(3) _Z4workPdl
calls=1 +4087 +10
* * 30 6 2
jump=1 -9 *
* *
+1 * 1 0 1

fn=(3)
0x2000 20 3 1
+2 +1 4 2 1
fi=(3) vec.h
+3 5 6 2
jfi=(4) other.c
jcnd=5/6 -3 +16
* *
fe=(1)
+1 +17 2

ob=(2)
fl=(2)
fn=(2)
0x9000 100 30 6 3
fn=(4) helper
0x9100 200 2

totals: 59 13 6
part: 2
positions: instr line
events: Ir Dr Dw

ob=(1)
fl=(1)
# 12288 = 0x3000
fn=(5) helper
12288 30 7 0 2
cob=(2)
cfl=(2)
cfn=(4)
calls=1 0x9100 200
* * 2
fn=(3)
fi=(3)
0x2005 5 1 1
# the manual's spelling: executed, then taken
jcnd=2 1 -3 +16
* *
fi=(4)
+2 7 0 0 1
fe=(1)
fn=(6) _Z3fibi'2
0x4000 40 1
fn=(7) _Z3fibi
* * 2
totals: 11 1 3
)";

const CallgrindFunction& find(const CallgrindData& d, const std::string& object, const std::string& name) {
    for (const auto& f : d.functions)
        if (f.object == object && f.name == name)
            return f;
    throw std::runtime_error("no function " + object + " " + name);
}

std::size_t index_of(const CallgrindData& d, const std::string& object, const std::string& name) {
    return static_cast<std::size_t>(&find(d, object, name) - d.functions.data());
}

void expect_instruction(const CallgrindData& d, const CallgrindInstruction& i, std::uint64_t address,
                        std::int64_t line, const std::string& file, std::vector<double> events) {
    EXPECT_EQ(i.address, address);
    EXPECT_EQ(i.line, line) << std::hex << address;
    ASSERT_LT(i.file, d.files.size());
    EXPECT_EQ(d.files[i.file], file) << std::hex << address;
    EXPECT_EQ(i.events, events) << std::hex << address;
}

TEST(Callgrind, ReadsEveryCompressionFormCallsJumpsAndParts) {
    const auto d = parse_callgrind(k_hand, "hand");
    EXPECT_EQ(d.command, "./prog --n 8");
    EXPECT_EQ(d.events, (std::vector<std::string>{"Ir", "Dr", "Dw"}));
    EXPECT_TRUE(d.has_instructions);
    EXPECT_EQ(d.parts, 2u);
    EXPECT_EQ(d.files, (std::vector<std::string>{"", "prog.c", "s_sin.c", "vec.h", "other.c"}));
    // Part 1's summary: line, part 2's totals: line (it has no summary:).
    EXPECT_EQ(d.summary, (std::vector<double>{100 + 11, 30 + 1, 20 + 3}));
    EXPECT_EQ(d.totals, (std::vector<double>{59 + 11, 13 + 1, 6 + 3}));
    // main, then the callees sin and work as their calls= name them, then libm's helper, the program's
    // helper (same name, other object) and fib (two recursion levels, mangled).
    ASSERT_EQ(d.functions.size(), 6u);
    EXPECT_EQ(d.functions[0].name, "main");
    EXPECT_EQ(d.functions[1].name, "sin");
    EXPECT_EQ(d.functions[2].name, "work(double*, long)");

    const auto& main = find(d, "/bin/prog", "main");
    EXPECT_EQ(d.files[main.file], "prog.c");
    ASSERT_EQ(main.instructions.size(), 5u);
    expect_instruction(d, main.instructions[0], 0x1000, 10, "prog.c", {5, 1, 0}); // missing counts are 0
    expect_instruction(d, main.instructions[1], 0x1004, 10, "prog.c", {2, 0, 0});
    expect_instruction(d, main.instructions[2], 0x1006, 11, "prog.c", {3, 1, 1});
    expect_instruction(d, main.instructions[3], 0x1009, 10, "prog.c", {1, 0, 0}); // not + the calls' 40, 30
    expect_instruction(d, main.instructions[4], 0x100a, 10, "prog.c", {1, 0, 1}); // the jump's line: no cost
    ASSERT_EQ(main.calls.size(), 2u);
    EXPECT_EQ(main.calls[0].from, 0x1006u);
    EXPECT_EQ(main.calls[0].line, 11);
    EXPECT_EQ(main.calls[0].callee, index_of(d, "/lib/libm.so", "sin"));
    EXPECT_EQ(main.calls[0].count, 2);
    EXPECT_EQ(main.calls[0].inclusive, (std::vector<double>{40, 8, 4}));
    EXPECT_EQ(main.calls[1].from, 0x1009u); // the target 0x2000 did not move the base of "* *"
    EXPECT_EQ(main.calls[1].callee, index_of(d, "/bin/prog", "work(double*, long)")); // no cob=: caller's
    EXPECT_EQ(main.calls[1].count, 1);
    EXPECT_EQ(main.calls[1].inclusive, (std::vector<double>{30, 6, 2}));
    ASSERT_EQ(main.jumps.size(), 1u);
    EXPECT_EQ(main.jumps[0].from, 0x1009u);
    EXPECT_EQ(main.jumps[0].to, 0x1000u);
    EXPECT_EQ(main.jumps[0].to_line, 10);
    EXPECT_FALSE(main.jumps[0].conditional);
    EXPECT_EQ(main.jumps[0].executed, 1);
    EXPECT_EQ(main.jumps[0].taken, 1);

    const auto& work = find(d, "/bin/prog", "work(double*, long)");
    EXPECT_EQ(d.files[work.file], "prog.c"); // the caller's file, no cfi= naming another
    ASSERT_EQ(work.instructions.size(), 5u);
    expect_instruction(d, work.instructions[0], 0x2000, 20, "prog.c", {3, 1, 0});
    expect_instruction(d, work.instructions[1], 0x2002, 21, "prog.c", {4, 2, 1});
    expect_instruction(d, work.instructions[2], 0x2005, 5, "vec.h", {6 + 1, 2 + 1, 0}); // both parts
    expect_instruction(d, work.instructions[3], 0x2006, 22, "prog.c", {2, 0, 0});       // after fe=
    expect_instruction(d, work.instructions[4], 0x2007, 7, "other.c", {0, 0, 1});       // jfi='s id
    ASSERT_EQ(work.jumps.size(), 1u);
    EXPECT_EQ(work.jumps[0].from, 0x2005u);
    EXPECT_EQ(work.jumps[0].to, 0x2002u);
    EXPECT_EQ(work.jumps[0].from_line, 5);
    EXPECT_EQ(work.jumps[0].to_line, 21);
    EXPECT_TRUE(work.jumps[0].conditional);
    EXPECT_EQ(work.jumps[0].executed, 6 + 2); // "5/6" is taken/executed, "2 1" executed then taken
    EXPECT_EQ(work.jumps[0].taken, 5 + 1);

    const auto& sin = find(d, "/lib/libm.so", "sin");
    EXPECT_EQ(d.files[sin.file], "s_sin.c");
    ASSERT_EQ(sin.instructions.size(), 1u);
    expect_instruction(d, sin.instructions[0], 0x9000, 100, "s_sin.c", {30, 6, 3});
    const auto& lib_helper = find(d, "/lib/libm.so", "helper");
    ASSERT_EQ(lib_helper.instructions.size(), 1u);
    expect_instruction(d, lib_helper.instructions[0], 0x9100, 200, "s_sin.c", {2, 0, 0});
    const auto& prog_helper = find(d, "/bin/prog", "helper");
    ASSERT_EQ(prog_helper.instructions.size(), 1u);
    expect_instruction(d, prog_helper.instructions[0], 0x3000, 30, "prog.c", {7, 0, 2});
    ASSERT_EQ(prog_helper.calls.size(), 1u); // cob=(2) cfl=(2): libm's helper
    EXPECT_EQ(prog_helper.calls[0].callee, index_of(d, "/lib/libm.so", "helper"));
    EXPECT_EQ(prog_helper.calls[0].inclusive, (std::vector<double>{2, 0, 0}));
    const auto& fib = find(d, "/bin/prog", "fib(int)"); // fib'2 and fib: one function
    ASSERT_EQ(fib.instructions.size(), 1u);
    expect_instruction(d, fib.instructions[0], 0x4000, 40, "prog.c", {1 + 2, 0, 0});

    // Every self cost is in exactly one function: the totals: lines.
    std::vector<double> self(3, 0.0);
    for (const auto& f : d.functions)
        for (const auto& i : f.instructions)
            for (std::size_t e = 0; e < 3; ++e)
                self[e] += i.events[e];
    EXPECT_EQ(self, d.totals);
}

TEST(Callgrind, ReadsLinePositionsAndSumsWithoutSummary) {
    // Cachegrind's subset: positions default to `line`; one entry per (file, line), address 0.
    const auto d = parse_callgrind("events: Ir Dr\nfl=a.c\nfn=f\n3 5 1\n+1 2\n-1 1\nfi=b.h\n* 4\n", "l");
    EXPECT_FALSE(d.has_instructions);
    ASSERT_EQ(d.functions.size(), 1u);
    const auto& f = d.functions[0];
    ASSERT_EQ(f.instructions.size(), 3u);
    expect_instruction(d, f.instructions[0], 0, 3, "a.c", {5 + 1, 1});
    expect_instruction(d, f.instructions[1], 0, 3, "b.h", {4, 0});
    expect_instruction(d, f.instructions[2], 0, 4, "a.c", {2, 0});
    EXPECT_EQ(d.summary, (std::vector<double>{12, 1})); // no summary:, no totals: the sum
    EXPECT_TRUE(d.totals.empty());
    // `instr` alone: line 0.
    const auto i = parse_callgrind("positions: instr\nevents: Ir\nfn=g\n0x10 1\n+2 3\n*\n", "i");
    ASSERT_EQ(i.functions.at(0).instructions.size(), 2u);
    expect_instruction(i, i.functions[0].instructions[1], 0x12, 0, "", {3});
}

// --- the real file ---------------------------------------------------------------------------------------

const std::string k_data = std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/callgrind/";

// The value of `#define NAME value` in triad.c, and the line numbers holding `text`.
long define_of(const std::string& source, const std::string& name) {
    const auto at = source.find("#define " + name + " ");
    return at == std::string::npos ? -1 : std::strtol(source.c_str() + at + name.size() + 9, nullptr, 10);
}
std::int64_t line_of(const std::string& source, const std::string& text) {
    const auto at = source.find(text);
    return at == std::string::npos ? -1 : 1 + std::count(source.begin(), source.begin() + at, '\n');
}

TEST(Callgrind, RealTriadRunAgreesWithItsSource) {
    const std::string source = core::read_file(k_data + "triad.c");
    const long n = define_of(source, "N"), calls = define_of(source, "CALLS");
    ASSERT_GT(n, 0);
    ASSERT_GT(calls, 0);
    const double iterations = static_cast<double>(calls * (n / 4)); // 4 doubles per AVX2 vector
    const auto d = parse_callgrind(core::read_file(k_data + "triad.callgrind"), "triad.callgrind");
    ASSERT_TRUE(d.has_instructions);
    ASSERT_GE(d.events.size(), 3u);
    ASSERT_EQ(d.events[0], "Ir");
    ASSERT_EQ(d.events[2], "Dw");
    EXPECT_EQ(d.parts, 1u);

    const CallgrindFunction* triad = nullptr;
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& f : d.functions) {
        EXPECT_TRUE(keys.emplace(f.object, f.name).second) << f.object << " " << f.name; // one per key
        for (std::size_t i = 1; i < f.instructions.size(); ++i) // sorted, one entry per address
            EXPECT_LT(f.instructions[i - 1].address, f.instructions[i].address) << f.name;
        if (f.name == "triad" && f.object.size() >= 6 && f.object.substr(f.object.size() - 6) == "/triad")
            triad = &f;
    }
    ASSERT_NE(triad, nullptr);
    ASSERT_FALSE(triad->instructions.empty());
    EXPECT_EQ(triad->instructions.front().events[0], calls); // the entry runs once per call

    // The loop's back edge: the one conditional jump backwards. callgrind splits it over two blocks (the
    // entry block falls into the first iteration), which the parser sums per address pair.
    std::vector<CallgrindJump> back;
    for (const auto& j : triad->jumps)
        if (j.conditional && j.to < j.from)
            back.push_back(j);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].executed, iterations);
    EXPECT_EQ(back[0].taken, iterations - calls); // every call leaves the loop once

    // The loop body, from the back edge's target to the jump: each instruction once per iteration, one
    // 256-bit store per iteration, every line one of the loop's two source lines in triad.c.
    const std::set<std::int64_t> loop_lines{line_of(source, "for (long i = 0; i < n; ++i)"),
                                            line_of(source, "x[i] = y[i] + s * z[i];")};
    std::size_t body = 0;
    double stores = 0;
    for (const auto& i : triad->instructions) {
        if (i.address < back[0].to || i.address > back[0].from)
            continue;
        ++body;
        stores += i.events[2];
        EXPECT_EQ(i.events[0], iterations) << std::hex << i.address;
        EXPECT_TRUE(loop_lines.count(i.line)) << std::hex << i.address << " line " << i.line;
        EXPECT_TRUE(d.files.at(i.file).ends_with("/triad.c")) << d.files.at(i.file);
    }
    EXPECT_GE(body, 4u); // load, FMA, store, the jump at least
    EXPECT_EQ(stores, iterations);

    // main calls triad CALLS times; the cost lines after its calls= lines are triad's inclusive cost, which
    // is triad's self cost (it calls nothing), and none of it is main's.
    const auto triad_index = static_cast<std::size_t>(triad - d.functions.data());
    double call_count = 0, inclusive_ir = 0, self_ir = 0;
    for (const auto& f : d.functions)
        for (const auto& c : f.calls)
            if (c.callee == triad_index) {
                EXPECT_EQ(f.name, "main");
                call_count += c.count;
                inclusive_ir += c.inclusive[0];
            }
    for (const auto& i : triad->instructions)
        self_ir += i.events[0];
    EXPECT_EQ(call_count, calls);
    EXPECT_EQ(inclusive_ir, self_ir);

    // totals: is the sum of every cost line: exactly the self costs read, so no call's inclusive cost was
    // taken for self cost and none was lost. summary: (the whole run) is at least that.
    std::vector<double> self(d.events.size(), 0.0);
    for (const auto& f : d.functions)
        for (const auto& i : f.instructions)
            for (std::size_t e = 0; e < self.size(); ++e)
                self[e] += i.events[e];
    ASSERT_EQ(d.totals.size(), self.size());
    EXPECT_EQ(self, d.totals);
    for (std::size_t e = 0; e < self.size(); ++e)
        EXPECT_GE(d.summary[e], d.totals[e]) << d.events[e];
}

// --- malformed input -------------------------------------------------------------------------------------

std::string error_of(const std::string& text, const CallgrindLimits& limits = {}) {
    return test::input_error_of([&] { (void)parse_callgrind(text, "f.cg", limits); });
}

TEST(Callgrind, RefusesBadLinesNamingTheLine) {
    const std::string h = "events: Ir Dr\nfn=f\n"; // lines 1-2
    const auto expect = [](const std::string& err, const std::string& line, const std::string& what) {
        EXPECT_NE(err.find("f.cg: field '" + line + "'"), std::string::npos) << err;
        EXPECT_NE(err.find(what), std::string::npos) << err;
    };
    EXPECT_NE(error_of("fn=f\n").find("missing required 'events:'"), std::string::npos);
    expect(error_of("1 2\n"), "line 1", "expected an 'events:' line before");
    expect(error_of("events: Ir\n1 2\n"), "line 2", "expected 'fn=' before");
    expect(error_of(h + "1 2 3 4\n"), "line 3", "expected at most 2 counts");
    expect(error_of(h + "1 x\n"), "line 3", "expected non-negative integer counts");
    expect(error_of(h + "1 -2\n"), "line 3", "expected non-negative integer counts");
    expect(error_of(h + "+x 1\n"), "line 3", "expected the subpositions 'line'");
    expect(error_of(h + "5 1\n-6 1\n"), "line 4", "expected a line number from 0");
    expect(error_of(h + "99999999999999999999 1\n"), "line 3", "expected the subpositions 'line'");
    expect(error_of("positions: instr\n" + h + "0x10 1\n-0x11 1\n"), "line 5", "expected a relative address");
    expect(error_of("positions: instr\n" + h + "0xffffffffffffffff 1\n+1 1\n"), "line 5",
           "expected a relative address");
    expect(error_of("positions: instr line\n" + h + "0x10\n"), "line 4",
           "expected the subpositions 'instr line'");
    expect(error_of("positions: line instr\n"), "line 1", "in that order");
    expect(error_of("positions: bogus\n"), "line 1", "in that order");
    expect(error_of(h + "fn=(7)\n"), "line 3", "expected 'fn=(7)' to be defined");
    expect(error_of(h + "fn=(7 name\n"), "line 3", "expected 'fn=(id) name'");
    expect(error_of("events: Ir\nfn=\n"), "line 2", "expected a function name");
    expect(error_of(h + "calls=1 5\n1 1\n"), "line 3", "expected 'cfn=' before 'calls='");
    expect(error_of(h + "cfn=g\ncalls=x 5\n"), "line 4", "expected 'calls=COUNT TARGET'");
    expect(error_of(h + "cfn=g\ncalls=1 5 6\n"), "line 4", "expected nothing after the target");
    expect(error_of(h + "cfn=g\ncalls=1 5\nfn=h\n"), "line 5", "needs after it");
    expect(error_of(h + "cfn=g\ncalls=1 5\n"), "line 4", "(the file ends)");
    expect(error_of(h + "jump=1 5\nfn=h\n"), "line 4", "needs after it");
    expect(error_of(h + "jcnd=3/x 5\n1\n"), "line 3", "expected 'jcnd=TAKEN/EXECUTED TARGET'");
    expect(error_of(h + "jump=-1 5\n1\n"), "line 3", "expected 'jump=COUNT TARGET'");
    expect(error_of(h + "hello world\n"), "line 3", "expected a cost line, a 'key: value' header");
    expect(error_of("version: 2\n"), "line 1", "expected 'version: 1'");
    expect(error_of("summary: 1\n"), "line 1", "expected an 'events:' line before 'summary:'");
    expect(error_of("events: Ir\nsummary: 1 2\n"), "line 2", "expected at most 1 counts");
    expect(error_of(h + "1 1\npart: 2\nevents: Ir\n"), "line 5", "expected the same 'events:' in every part");
    expect(error_of(h + "1 1\npart: 2\npositions: instr\nevents: Ir Dr\n1 1\n"), "line 7",
           "expected the same 'positions:' in every part");
    expect(error_of(h + "1 1\npositions: instr\n"), "line 4",
           "expected 'positions:' before the first cost line");
}

TEST(Callgrind, RefusesInputPastEachBound) {
    const auto expect = [](const std::string& err, const std::string& line, const std::string& what) {
        EXPECT_NE(err.find("f.cg: field '" + line + "'"), std::string::npos) << err;
        EXPECT_NE(err.find(what), std::string::npos) << err;
    };
    // The shipped bounds where a test can reach them: the line length and the number of functions.
    expect(error_of("events: Ir\nfn=f\n1 " + std::string(k_callgrind_max_line, '1') + "\n"), "line 3",
           "expected lines under");
    std::string many = "events: Ir\n";
    for (std::size_t i = 0; i <= k_callgrind_max_functions; ++i)
        many += "fn=f" + std::to_string(i) + "\n1 1\n";
    expect(error_of(many), "line " + std::to_string(2 * k_callgrind_max_functions + 3), "expected at most");
    std::string events = "events:";
    for (std::size_t i = 0; i <= k_callgrind_max_events; ++i)
        events += " e" + std::to_string(i);
    expect(error_of(events + "\n"), "line 1", "expected 1 to 64 event names");

    // Every bound, each just reached by a file one past it (smaller bounds, the same checks).
    CallgrindLimits small;
    small.functions = 2;
    small.instructions = 3;
    small.arcs = 2;
    small.events = 2;
    small.line = 40;
    const std::string h = "positions: instr\nevents: Ir\nfn=f\n"; // lines 1-3
    expect(error_of(h + "1 1\n2 1\n1 1\n3 1\nfn=g\n4 1\n", small), "line 9",
           "expected at most 3 instruction");
    expect(error_of(h + "1 1\nfn=g\n1 1\nfn=h\n1 1\n", small), "line 8", "expected at most 2 functions");
    expect(error_of(h + "fn=(1) a\nfn=(2) b\nfn=(3) c\n", small), "line 6", "compressed names");
    expect(error_of(h + "fl=a\nfl=b\nfl=c\n", small), "line 6", "expected at most 2 source files");
    expect(error_of(h + "1 1\njump=1 2\n1\njump=1 3\n1\njcnd=1/1 4\n1\n", small), "line 10",
           "expected at most 2 jumps and calls");
    EXPECT_EQ(error_of(h + "1 1\njump=1 2\n1\njump=1 2\n1\njump=1 2\n1\n", small), "(no error)"); // merged
    expect(error_of("events: a b c\n", small), "line 1", "expected 1 to 2 event names");
    expect(error_of(h + "1 " + std::string(40, '1') + "\n", small), "line 4", "expected lines under 40");
}

} // namespace
} // namespace roofcast::measure::profile
