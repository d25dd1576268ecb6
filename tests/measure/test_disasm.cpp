// Static loop inspection: parse_objdump on objdump text fixtures (tests/measure/data/disasm/, real gcc 12
// output trimmed to one function, and hand-written AVX-512 text), with counts read off each fixture by
// hand; and inspect_function on a loop compiled into this test binary.
#include "core/io.hpp"
#include "core/process.hpp"
#include "measure/disasm.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

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

std::string fixture(const std::string& name) {
    return core::read_file(std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/disasm/" + name);
}

// The scalar daxpy of gcc -O2 -fno-tree-vectorize: movsd load, mulsd, addsd with a memory source, movsd
// store, add, cmp, jne.
TEST(Disasm, ScalarLoop) {
    const CodeInspection r = parse_objdump(fixture("scalar.objdump"), "daxpy");
    ASSERT_EQ(r.loops.size(), 1u);
    const LoopInspection& l = r.loops[0];
    EXPECT_EQ(l.function, "daxpy");
    EXPECT_EQ(l.begin, 0x18u);
    EXPECT_EQ(l.end, 0x32u);
    EXPECT_EQ(l.instructions, 7);
    EXPECT_EQ(l.fp_by_width, (std::map<int, int>{{0, 2}}));
    EXPECT_EQ(l.add, 1);
    EXPECT_EQ(l.mul, 1);
    EXPECT_EQ(l.fma + l.div + l.sqrt + l.other_fp, 0);
    EXPECT_EQ(l.loads, 2);
    EXPECT_EQ(l.stores, 1);
    EXPECT_EQ(l.gathers, 0);
    EXPECT_EQ(l.vector_bits(), 0);
    EXPECT_EQ(l.flops_per_pass(false), 2.0);
    EXPECT_EQ(l.flops_per_pass(true), 2.0);
    EXPECT_EQ(l.double_precision, 2);
    EXPECT_EQ(l.single_precision, 0);
    EXPECT_EQ(r.functions, (std::vector<std::string>{"daxpy"}));
    EXPECT_TRUE(r.unavailable.empty());
}

// gcc -O3 -mavx2 -mfma: a ymm FMA loop, its scalar remainder loop, and four backward jumps that reuse an
// epilogue (to code ending in ret) and are not loops.
TEST(Disasm, Avx2FmaLoopFirstThenScalarRemainder) {
    const CodeInspection r = parse_objdump(fixture("avx2.objdump"), "daxpy");
    ASSERT_EQ(r.loops.size(), 2u);
    const LoopInspection& v = r.loops[0];
    EXPECT_EQ(v.begin, 0x1b0u);
    EXPECT_EQ(v.end, 0x1c7u);
    EXPECT_EQ(v.instructions, 6); // vmovupd, vfmadd213pd, vmovupd, add, cmp, jne
    EXPECT_EQ(v.fp_by_width, (std::map<int, int>{{256, 1}}));
    EXPECT_EQ(v.fma, 1);
    EXPECT_EQ(v.add + v.mul, 0);
    EXPECT_EQ(v.loads, 2);
    EXPECT_EQ(v.stores, 1);
    EXPECT_EQ(v.vector_bits(), 256);
    EXPECT_EQ(v.flops_per_pass(false), 8.0); // 4 lanes x 2
    EXPECT_EQ(v.flops_per_pass(true), 16.0);
    const LoopInspection& s = r.loops[1];
    EXPECT_EQ(s.begin, 0x170u);
    EXPECT_EQ(s.end, 0x187u);
    EXPECT_EQ(s.fp_by_width, (std::map<int, int>{{0, 1}}));
    EXPECT_EQ(s.fma, 1);
    EXPECT_EQ(s.vector_bits(), 0);
    EXPECT_EQ(s.flops_per_pass(false), 2.0);
}

// Hand-written AVX-512 loop: masked loads and stores ({%k1}{z}), an embedded broadcast ({1to8}), a
// rounding operand ({rn-sae}), one instruction of every kind and a scalar subtraction.
TEST(Disasm, Avx512LoopWithMasks) {
    const CodeInspection r = parse_objdump(fixture("avx512.objdump"), "kernel_avx512");
    ASSERT_EQ(r.loops.size(), 1u);
    const LoopInspection& l = r.loops[0];
    EXPECT_EQ(l.begin, 0x1010u);
    EXPECT_EQ(l.end, 0x1053u);
    EXPECT_EQ(l.instructions, 13);
    EXPECT_EQ(l.fp_by_width, (std::map<int, int>{{0, 1}, {512, 6}}));
    EXPECT_EQ(l.fma, 1);
    EXPECT_EQ(l.add, 2); // vaddpd, vsubsd
    EXPECT_EQ(l.mul, 1);
    EXPECT_EQ(l.div, 1);
    EXPECT_EQ(l.sqrt, 1);
    EXPECT_EQ(l.other_fp, 1); // vmaxpd
    EXPECT_EQ(l.loads, 3);    // vmovupd, vfmadd213pd and vaddpd from memory
    EXPECT_EQ(l.stores, 1);   // the masked vmovupd
    EXPECT_EQ(l.gathers, 0);
    EXPECT_EQ(l.vector_bits(), 512);
    // zmm: fma 2 + mul, add, div, sqrt 1 each = 6 ops x 8 doubles; the scalar vsubsd 1; vmaxpd none.
    EXPECT_EQ(l.flops_per_pass(false), 49.0);
    EXPECT_EQ(l.flops_per_pass(true), 97.0);
}

// A gather and a scatter in one loop; names with spaces, commas and parentheses in headers and jump
// annotations.
TEST(Disasm, GatherLoop) {
    const CodeInspection r = parse_objdump(fixture("gather.objdump"), "gather_sum");
    ASSERT_EQ(r.loops.size(), 1u);
    const LoopInspection& l = r.loops[0];
    EXPECT_EQ(l.function, "gather_sum(int, int const*, double const*, double*)");
    EXPECT_EQ(l.begin, 0x2010u);
    EXPECT_EQ(l.end, 0x203au);
    EXPECT_EQ(l.instructions, 9);
    EXPECT_EQ(l.gathers, 2);
    EXPECT_EQ(l.loads, 2);  // vmovdqu32, vgatherdpd
    EXPECT_EQ(l.stores, 1); // vscatterdpd
    EXPECT_EQ(l.fp_by_width, (std::map<int, int>{{512, 1}}));
    EXPECT_EQ(l.add, 1);
    EXPECT_EQ(l.flops_per_pass(false), 8.0);
}

// The i-j-k matrix product at -O2: three nested loops, of which only the k loop is reported.
TEST(Disasm, NestedLoopsReportOnlyTheInnermost) {
    const CodeInspection r = parse_objdump(fixture("nested.objdump"), "mm");
    ASSERT_EQ(r.loops.size(), 1u);
    const LoopInspection& l = r.loops[0];
    EXPECT_EQ(l.begin, 0xb8u);
    EXPECT_EQ(l.end, 0xceu);
    EXPECT_EQ(l.instructions, 7);
    EXPECT_EQ(l.fp_by_width, (std::map<int, int>{{0, 2}}));
    EXPECT_EQ(l.mul, 1);
    EXPECT_EQ(l.add, 1);
    EXPECT_EQ(l.loads, 2);
    EXPECT_EQ(l.stores, 0);
}

// The daxpy of this file built with -fsanitize=address,undefined: the calls to the sanitizers' abort handlers
// never return, so the checks before them (backward branches into blocks that end in such a call) are not
// loops. The one loop has two latches (js fdb58 and jae fdb61, overlapping ranges): it is counted once, from
// the first target to the last branch.
TEST(Disasm, NoreturnCallsEndPathsAndTwoLatchesMakeOneLoop) {
    const CodeInspection r = parse_objdump(fixture("sanitized.objdump"), "roofcast_disasm_test::daxpy");
    ASSERT_EQ(r.loops.size(), 1u);
    const LoopInspection& l = r.loops[0];
    EXPECT_EQ(l.begin, 0xfdb58u);
    EXPECT_EQ(l.end, 0xfdc46u);
    EXPECT_EQ(l.instructions, 65);
    EXPECT_EQ(l.fp_by_width, (std::map<int, int>{{0, 2}}));
    EXPECT_EQ(l.mul, 1);
    EXPECT_EQ(l.add, 1);
    EXPECT_EQ(l.loads, 4); // two shadow-byte compares, movsd, mulsd from memory
    EXPECT_EQ(l.stores, 1);
}

// OpenMP outlined bodies: the C clone "par._omp_fn.0", the C++ clone "[clone ._omp_fn.0]" and a lambda of
// ns::run outlined inside a template; an unrelated function with a loop is not reported.
TEST(Disasm, OpenMpClones) {
    const CodeInspection cpp = parse_objdump(fixture("openmp.objdump"), "ns::run");
    EXPECT_EQ(cpp.functions.size(), 3u);
    ASSERT_EQ(cpp.loops.size(), 2u);
    EXPECT_EQ(cpp.loops[0].begin, 0x3202u); // two FP instructions: first
    EXPECT_NE(cpp.loops[0].function.find("[clone ._omp_fn.1]"), std::string::npos);
    EXPECT_EQ(cpp.loops[0].fp_by_width, (std::map<int, int>{{256, 2}}));
    EXPECT_EQ(cpp.loops[0].loads, 1);
    EXPECT_EQ(cpp.loops[0].flops_per_pass(false), 8.0);
    EXPECT_EQ(cpp.loops[1].function, "ns::run(int) [clone ._omp_fn.0]");
    EXPECT_EQ(cpp.loops[1].begin, 0x3108u);
    EXPECT_EQ(cpp.loops[1].instructions, 3);
    EXPECT_EQ(cpp.loops[1].mul, 1);

    const CodeInspection c = parse_objdump(fixture("openmp.objdump"), "par");
    ASSERT_EQ(c.loops.size(), 1u);
    const LoopInspection& l = c.loops[0];
    EXPECT_EQ(l.function, "par._omp_fn.0");
    EXPECT_EQ(l.begin, 0x80u);
    EXPECT_EQ(l.end, 0x95u);
    EXPECT_EQ(l.instructions, 6);
    EXPECT_EQ(l.fma, 1);
    EXPECT_EQ(l.fp_by_width, (std::map<int, int>{{256, 1}}));
    EXPECT_EQ(l.loads, 1);
    EXPECT_EQ(l.stores, 1);
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
    const CodeInspection r = parse_objdump(fixture("openmp.objdump"), "nothing::here");
    EXPECT_TRUE(r.loops.empty());
    EXPECT_TRUE(r.functions.empty());
    EXPECT_TRUE(parse_objdump(fixture("scalar.objdump"), "").loops.empty());
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
