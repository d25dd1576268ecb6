// Static loop inspection: parse_objdump on objdump text fixtures (tests/measure/data/disasm/, real gcc 12
// output trimmed to one function, and hand-written AVX-512 text), with counts read off each fixture by
// hand; and inspect_function on a loop compiled into this test binary.
#include "core/io.hpp"
#include "core/process.hpp"
#include "measure/disasm.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace roofcast;
using namespace roofcast::measure;

namespace roofcast_disasm_test {

// A loop with FP arithmetic in this binary, kept out of line so that it has a symbol of its own.
__attribute__((noinline)) void daxpy(long n, double a, const double* x, double* y) {
    for (long i = 0; i < n; ++i)
        y[i] += a * x[i];
}

} // namespace roofcast_disasm_test

namespace {

std::string disasm_fixture(const std::string& name) {
    return core::read_file(std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/disasm/" + name);
}

// The shortest text that reads back as x: "2" for 2.0, never rounded.
std::string exact(double x) {
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
}

// Every field of a loop but its function, as the tests write what they expect: name=value, the addresses in
// hex, fp_by_width as width:count pairs, the flops per pass exactly.
std::string describe_loop(const LoopInspection& l) {
    std::ostringstream s;
    s << std::hex << "begin=0x" << l.begin << " end=0x" << l.end << std::dec
      << " instructions=" << l.instructions << " fp_by_width=";
    for (auto it = l.fp_by_width.begin(); it != l.fp_by_width.end(); ++it)
        s << (it == l.fp_by_width.begin() ? "" : ",") << it->first << ':' << it->second;
    s << " fma=" << l.fma << " add=" << l.add << " mul=" << l.mul << " div=" << l.div << " sqrt=" << l.sqrt
      << " fma_chains=" << l.fma_chains << " other_fp=" << l.other_fp << " loads=" << l.loads
      << " stores=" << l.stores << " gathers=" << l.gathers << " double_precision=" << l.double_precision
      << " single_precision=" << l.single_precision << " vector_bits()=" << l.vector_bits()
      << " flops_per_pass(false)=" << exact(l.flops_per_pass(false))
      << " flops_per_pass(true)=" << exact(l.flops_per_pass(true));
    return s.str();
}

// "a=1 b=2" as {a: 1, b: 2}.
std::map<std::string, std::string> fields(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    for (std::string item; in >> item;) {
        const std::size_t eq = item.find('=');
        out[item.substr(0, eq)] = eq == std::string::npos ? "(no value)" : item.substr(eq + 1);
    }
    return out;
}

// Checks each field that `want` names ("begin=0x18 fma=1 ...", as describe writes them) against the loop's;
// the fields it does not name are not checked.
void expect_loop(const LoopInspection& l, const std::string& want) {
    const std::map<std::string, std::string> got = fields(describe_loop(l));
    for (const auto& [name, value] : fields(want)) {
        const auto it = got.find(name);
        if (it == got.end())
            ADD_FAILURE() << "a loop has no field " << name;
        else
            EXPECT_EQ(it->second, value)
                << name << " of the loop at 0x" << std::hex << l.begin << " in " << l.function;
    }
}

// The one innermost loop parse_objdump finds in a fixture for a symbol; a failure, and an empty loop, when
// it finds none or more.
LoopInspection only_loop(const std::string& file, const std::string& symbol) {
    const CodeInspection r = parse_objdump(disasm_fixture(file), symbol);
    EXPECT_EQ(r.loops.size(), 1u) << "loops in " << file;
    return r.loops.size() == 1 ? r.loops[0] : LoopInspection{};
}

// The scalar daxpy of gcc -O2 -fno-tree-vectorize: movsd load, mulsd, addsd with a memory source, movsd
// store, add, cmp, jne.
TEST(Disasm, ScalarLoop) {
    const CodeInspection r = parse_objdump(disasm_fixture("scalar.objdump"), "daxpy");
    ASSERT_EQ(r.loops.size(), 1u);
    EXPECT_EQ(r.loops[0].function, "daxpy");
    expect_loop(r.loops[0],
                "begin=0x18 end=0x32 instructions=7 fp_by_width=0:2 add=1 mul=1 fma=0 div=0 sqrt=0 "
                "other_fp=0 loads=2 stores=1 gathers=0 vector_bits()=0 flops_per_pass(false)=2 "
                "flops_per_pass(true)=2 double_precision=2 single_precision=0");
    EXPECT_EQ(r.functions, (std::vector<std::string>{"daxpy"}));
    EXPECT_TRUE(r.unavailable.empty());
}

// gcc -O3 -mavx2 -mfma: a ymm FMA loop, its scalar remainder loop, and four backward jumps that reuse an
// epilogue (to code ending in ret) and are not loops.
TEST(Disasm, Avx2FmaLoopFirstThenScalarRemainder) {
    const CodeInspection r = parse_objdump(disasm_fixture("avx2.objdump"), "daxpy");
    ASSERT_EQ(r.loops.size(), 2u);
    // The vector loop: vmovupd, vfmadd213pd, vmovupd, add, cmp, jne; 4 lanes x 2 flops.
    expect_loop(r.loops[0],
                "begin=0x1b0 end=0x1c7 instructions=6 fp_by_width=256:1 fma=1 add=0 mul=0 loads=2 "
                "stores=1 vector_bits()=256 flops_per_pass(false)=8 flops_per_pass(true)=16");
    // The scalar remainder.
    expect_loop(r.loops[1],
                "begin=0x170 end=0x187 fp_by_width=0:1 fma=1 vector_bits()=0 flops_per_pass(false)=2");
}

// Hand-written: a 512-bit loop with 2 adds (16 flops a pass) and a scalar remainder unrolled into 4 adds
// (4 flops): the loop with the more arithmetic per pass comes first, not the one with more instructions.
TEST(Disasm, MoreFlopsPerPassFirstNotMoreInstructions) {
    const CodeInspection r = parse_objdump(disasm_fixture("remainder.objdump"), "two_rows");
    ASSERT_EQ(r.loops.size(), 2u);
    expect_loop(r.loops[0], "begin=0x3010 end=0x3035 fp_by_width=512:2 add=2 vector_bits()=512 "
                            "flops_per_pass(false)=16");
    expect_loop(r.loops[1], "begin=0x3037 end=0x305f fp_by_width=0:4 add=4 vector_bits()=0 "
                            "flops_per_pass(false)=4");
}

// Hand-written AVX-512 loop: masked loads and stores ({%k1}{z}), an embedded broadcast ({1to8}), a
// rounding operand ({rn-sae}), one instruction of every kind and a scalar subtraction.
TEST(Disasm, Avx512LoopWithMasks) {
    // add: vaddpd, vsubsd; other_fp: vmaxpd; loads: vmovupd, vfmadd213pd and vaddpd from memory; the store:
    // the masked vmovupd. Flops: zmm fma 2 + mul, add, div, sqrt 1 each = 6 ops x 8 doubles; the scalar
    // vsubsd 1; vmaxpd none.
    expect_loop(only_loop("avx512.objdump", "kernel_avx512"),
                "begin=0x1010 end=0x1053 instructions=13 fp_by_width=0:1,512:6 fma=1 add=2 mul=1 "
                "div=1 sqrt=1 other_fp=1 loads=3 stores=1 gathers=0 vector_bits()=512 "
                "flops_per_pass(false)=49 flops_per_pass(true)=97");
}

// A register-blocked micro-kernel: FMA accumulators carried from pass to pass, each counted once (zmm4 takes
// two FMAs, zmm7 a masked one); zmm8, zeroed in the pass, carries nothing; a compare that only reads zmm9
// leaves it carried. The FMAs of the daxpy loops update a register loaded in the same pass: none.
TEST(Disasm, FmaChainsAreTheAccumulatorsCarriedAcrossPasses) {
    expect_loop(only_loop("microkernel.objdump", "micro_kernel"),
                "begin=0x4010 end=0x406f fma=7 fma_chains=5 loads=5 stores=1 vector_bits()=512");
    expect_loop(only_loop("avx512.objdump", "kernel_avx512"), "fma=1 fma_chains=0");
    const CodeInspection r = parse_objdump(disasm_fixture("avx2.objdump"), "daxpy");
    ASSERT_EQ(r.loops.size(), 2u);
    expect_loop(r.loops[0], "fma=1 fma_chains=0");
}

// A gather and a scatter in one loop; names with spaces, commas and parentheses in headers and jump
// annotations.
TEST(Disasm, GatherLoop) {
    const LoopInspection l = only_loop("gather.objdump", "gather_sum");
    EXPECT_EQ(l.function, "gather_sum(int, int const*, double const*, double*)");
    // Loads: vmovdqu32, vgatherdpd; the store: vscatterdpd.
    expect_loop(l, "begin=0x2010 end=0x203a instructions=9 gathers=2 loads=2 stores=1 fp_by_width=512:1 "
                   "add=1 flops_per_pass(false)=8");
}

// The i-j-k matrix product at -O2: three nested loops, of which only the k loop is reported.
TEST(Disasm, NestedLoopsReportOnlyTheInnermost) {
    expect_loop(only_loop("nested.objdump", "mm"),
                "begin=0xb8 end=0xce instructions=7 fp_by_width=0:2 mul=1 add=1 loads=2 stores=0");
}

// The daxpy of this file built with -fsanitize=address,undefined: the calls to the sanitizers' abort handlers
// never return, so the checks before them (backward branches into blocks that end in such a call) are not
// loops. The one loop has two latches (js fdb58 and jae fdb61, overlapping ranges): it is counted once, from
// the first target to the last branch.
TEST(Disasm, NoreturnCallsEndPathsAndTwoLatchesMakeOneLoop) {
    // Loads: two shadow-byte compares, movsd, mulsd from memory.
    expect_loop(only_loop("sanitized.objdump", "roofcast_disasm_test::daxpy"),
                "begin=0xfdb58 end=0xfdc46 instructions=65 fp_by_width=0:2 mul=1 add=1 loads=4 stores=1");
}

// OpenMP outlined bodies: the C clone "par._omp_fn.0", the C++ clone "[clone ._omp_fn.0]" and a lambda of
// ns::run outlined inside a template; an unrelated function with a loop is not reported.
TEST(Disasm, OpenMpClones) {
    const CodeInspection cpp = parse_objdump(disasm_fixture("openmp.objdump"), "ns::run");
    EXPECT_EQ(cpp.functions.size(), 3u);
    ASSERT_EQ(cpp.loops.size(), 2u);
    // Two FP instructions: first.
    expect_loop(cpp.loops[0], "begin=0x3202 fp_by_width=256:2 loads=1 flops_per_pass(false)=8");
    EXPECT_NE(cpp.loops[0].function.find("[clone ._omp_fn.1]"), std::string::npos);
    EXPECT_EQ(cpp.loops[1].function, "ns::run(int) [clone ._omp_fn.0]");
    expect_loop(cpp.loops[1], "begin=0x3108 instructions=3 mul=1");

    const LoopInspection par = only_loop("openmp.objdump", "par");
    EXPECT_EQ(par.function, "par._omp_fn.0");
    expect_loop(par, "begin=0x80 end=0x95 instructions=6 fma=1 fp_by_width=256:1 loads=1 stores=1");
}

TEST(Disasm, SymbolMatching) {
    EXPECT_TRUE(symbol_matches("ns::run(int)", "ns::run"));
    EXPECT_TRUE(symbol_matches("void ns::body<4, double>(double*)", "ns::body<"));
    EXPECT_FALSE(symbol_matches("void ns::other(ns::body<4, double>)", "ns::body<"));
    // A prefix ending in '(' names exactly one function, directly or as the caller of an OpenMP body.
    EXPECT_TRUE(symbol_matches("ns::run(int)", "ns::run("));
    EXPECT_FALSE(symbol_matches("ns::run_packed(int)", "ns::run("));
    EXPECT_TRUE(symbol_matches("void t<ns::run(int)::{lambda()#1}>(int) [clone ._omp_fn.0]", "ns::run("));
    EXPECT_FALSE(
        symbol_matches("void t<ns::run_packed(int)::{lambda()#1}>(int) [clone ._omp_fn.0]", "ns::run("));
    EXPECT_TRUE(symbol_matches("par._omp_fn.3", "par"));
    EXPECT_TRUE(symbol_matches("void t<ns::run(int)::{lambda()#1}>(int) [clone ._omp_fn.0]", "ns::run"));
    EXPECT_FALSE(symbol_matches("void t<ns::run(int)::{lambda()#1}>(int)", "ns::run")); // not outlined
    EXPECT_FALSE(symbol_matches("void t<xns::run(int)>(int) [clone ._omp_fn.0]", "ns::run"));
    EXPECT_FALSE(symbol_matches("other::helper(int)", "ns::run"));
    EXPECT_FALSE(symbol_matches("ns::run(int)", ""));
}

TEST(Disasm, NoMatchingFunction) {
    const CodeInspection r = parse_objdump(disasm_fixture("openmp.objdump"), "nothing::here");
    EXPECT_TRUE(r.loops.empty());
    EXPECT_TRUE(r.functions.empty());
    EXPECT_TRUE(parse_objdump(disasm_fixture("scalar.objdump"), "").loops.empty());
}

// Malformed and hostile text: no crash, no loop invented.
TEST(Disasm, GarbageInput) {
    const std::string cases[] = {
        "",
        "\n\n\n",
        "0000 <f>:\n",
        "0000 <f>:\n  :\tjne 0\n  zz:\tjne 0\n 10:\tjne\n 12:\tjne zzz <f>\n 14:\t\n",
        "0000 <f>:\n ffffffffffffffffffffffff:\tjne 0\n 8:\tjmp *%rax\n 9:\tjne 8 <f+0x8>\n",
        "0000 <f>:\n 8:\tvaddpd ((((,,,{{{,%zmm1\n 4:\tjne 8\n c:\tjne 4\n", // unsorted, unbalanced
        "0000 <f>:\n 4:\tjne 4 <f+0x4>\n",                                   // a jump to itself is a loop
        "<f>:\n  4:\tjne 0\n",
        "0000000000000000 <>:\n 0:\tret\n",
        std::string("0000 <f>:\n 0:\t\0\x01\xff", 13),
    };
    for (const std::string& text : cases) {
        const CodeInspection r = parse_objdump(text, "f");
        for (const LoopInspection& l : r.loops)
            EXPECT_LE(l.begin, l.end);
    }
    EXPECT_EQ(parse_objdump(cases[6], "f").loops.size(), 1u);
    std::mt19937 rng(13);
    const std::string alphabet = "0123456789abcdefjne<>:()%,{}$ \t\nxmzyjmp";
    for (int round = 0; round < 2000; ++round) {
        std::string text = "0000 <f>:\n";
        const int n = static_cast<int>(rng() % 200);
        for (int i = 0; i < n; ++i)
            text += alphabet[rng() % alphabet.size()];
        parse_objdump(text, "f");
    }
}

// ---- the real tool on this test binary ----

bool have_binutils() {
    return core::find_in_path("objdump") && core::find_in_path("nm");
}

TEST(DisasmTool, FindsTheFpLoopOfAFunctionInThisBinary) {
    if (!have_binutils())
        GTEST_SKIP() << "objdump/nm (binutils) not installed: cannot disassemble";
    std::vector<double> x(64, 1.0), y(64, 2.0);
    roofcast_disasm_test::daxpy(static_cast<long>(x.size()), 0.5, x.data(), y.data());
    ASSERT_EQ(y[63], 2.5);
    const CodeInspection r = inspect_function(self_binary(), "roofcast_disasm_test::daxpy");
    ASSERT_TRUE(r.unavailable.empty()) << r.unavailable;
    ASSERT_FALSE(r.loops.empty());
    const LoopInspection& l = r.loops[0];
    EXPECT_EQ(l.function.rfind("roofcast_disasm_test::daxpy(", 0), 0u) << l.function;
    EXPECT_GT(l.fp_arithmetic(), 0);
    EXPECT_GT(l.fma + l.add + l.mul, 0);
    EXPECT_GE(l.loads, 1);
    EXPECT_GE(l.stores, 1);
    EXPECT_GT(l.flops_per_pass(false), 0.0);
}

TEST(DisasmTool, BadInputIsNamedNotThrown) {
    const CodeInspection missing = inspect_function("/nonexistent/binary", "main");
    EXPECT_EQ(missing.bad_input, "binary");
    EXPECT_NE(missing.unavailable.find("no such file"), std::string::npos);
    const CodeInspection text = inspect_function(
        std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/disasm/scalar.objdump", "daxpy");
    EXPECT_EQ(text.bad_input, "binary");
    EXPECT_NE(text.unavailable.find("not an ELF file"), std::string::npos);
    EXPECT_EQ(inspect_function(self_binary(), "").bad_input, "symbol");
    if (!have_binutils())
        GTEST_SKIP() << "objdump/nm (binutils) not installed: the symbol lookup is not checked";
    const CodeInspection none = inspect_function(self_binary(), "no_such_function_anywhere");
    EXPECT_EQ(none.bad_input, "symbol");
    EXPECT_NE(none.unavailable.find("no function"), std::string::npos);
    EXPECT_TRUE(none.loops.empty());
}

// GoogleTest's own functions (over a thousand "testing::..." in this binary): the first 64 are inspected and
// the rest counted, so a short prefix stays quick.
TEST(DisasmTool, ManyMatchesAreBounded) {
    if (!have_binutils())
        GTEST_SKIP() << "objdump/nm (binutils) not installed: cannot disassemble";
    const CodeInspection r = inspect_function(self_binary(), "testing::");
    ASSERT_TRUE(r.unavailable.empty()) << r.unavailable;
    EXPECT_EQ(r.functions.size(), 64u);
    EXPECT_GT(r.functions_not_inspected, 0u);
}

TEST(DisasmTool, SelfBinaryIsThisExecutable) {
    const std::string self = self_binary();
    ASSERT_FALSE(self.empty());
    EXPECT_NE(self.find("test_measure"), std::string::npos);
}

} // namespace
