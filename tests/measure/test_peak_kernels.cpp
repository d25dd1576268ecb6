// The peak kernels do exactly the work their declarations state, and the widest FMA kernel really
// issues fused multiply-adds on the widest registers, with every accumulator held in a register.
#include "measure/peak_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace roofcast::measure;

namespace {

TEST(PeakKernels, FlopsFollowTheDeclaration) {
    PeakKernelDecl d;
    d.accumulators = 12;
    d.unroll = 4;
    d.lanes = 8;
    d.flops_per_op = 2;
    // 12 accumulators x 4 applications x 8 lanes x 2 flops (FMA) x 1000 trips = 768000.
    EXPECT_DOUBLE_EQ(peak_flops(d, 1000), 768000.0);
    d.lanes = 1;
    d.flops_per_op = 1;
    d.accumulators = 1;
    d.unroll = 8;
    // one chain of 8 scalar adds per trip x 3 trips = 24.
    EXPECT_DOUBLE_EQ(peak_flops(d, 3), 24.0);
    EXPECT_DOUBLE_EQ(peak_flops(d, 0), 0.0);
}

TEST(PeakKernels, TableHasEveryVariantOnce) {
    // 4 ISAs x 2 precisions x 5 ops.
    EXPECT_EQ(peak_kernels().size(), 40u);
    std::set<std::string> seen;
    for (const PeakKernel& k : peak_kernels()) {
        EXPECT_TRUE(seen.insert(k.decl.isa + "/" + k.decl.precision + "/" + k.decl.op).second);
        EXPECT_NE(k.run, nullptr);
    }
    EXPECT_EQ(find_peak_kernel("avx1024", "double", "fma"), nullptr);
}

TEST(PeakKernels, DeclarationsMatchTheRegisterWidths) {
    struct Row {
        const char* isa;
        const char* precision;
        int lanes;
    };
    // Register bytes / element bytes: scalar 1; SSE 16/8, 16/4; AVX2 32/8, 32/4; AVX-512 64/8, 64/4.
    for (const Row& r : {Row{"scalar", "double", 1}, Row{"scalar", "single", 1}, Row{"sse", "double", 2},
                         Row{"sse", "single", 4}, Row{"avx2", "double", 4}, Row{"avx2", "single", 8},
                         Row{"avx512", "double", 8}, Row{"avx512", "single", 16}}) {
        const PeakKernel* k = find_peak_kernel(r.isa, r.precision, "fma");
        ASSERT_NE(k, nullptr);
        EXPECT_EQ(k->decl.lanes, r.lanes) << r.isa << " " << r.precision;
        EXPECT_EQ(k->decl.flops_per_op, 2);
        EXPECT_GE(k->decl.accumulators, 8) << "2 FMA pipes x 4-cycle latency need 8 chains in flight";
        const PeakKernel* add = find_peak_kernel(r.isa, r.precision, "add");
        EXPECT_EQ(add->decl.flops_per_op, 1);
        const PeakKernel* chain = find_peak_kernel(r.isa, r.precision, "chain");
        EXPECT_EQ(chain->decl.accumulators, 1);
    }
}

// Replays a kernel's declared work in plain scalar code: each accumulator k starts at k+1, receives
// iterations x unroll applications of its op with b = 1 + 2^-24 and c = 2^-24, and the result is the
// sum over accumulators, then lanes, in the kernel's order and precision. Equality with the kernel's result
// shows the kernel performs exactly the declared number of operations (any missing or extra op changes the
// sum).
template <class T> double replay(const PeakKernelDecl& d, std::uint64_t iterations) {
    const T b = T(1) + T(0x1p-24);
    const T c = T(0x1p-24);
    T total = 0;
    for (int k = 0; k < d.accumulators; ++k) {
        T a = static_cast<T>(k + 1);
        for (std::uint64_t i = 0; i < iterations * static_cast<std::uint64_t>(d.unroll); ++i) {
            if (d.op == "fma" || d.op == "chain")
                a = std::fma(a, b, c);
            else if (d.op == "add" || (d.op == "addmul" && k % 2 == 0))
                a = a + c;
            else
                a = a * b;
        }
        total = k == 0 ? a : total + a; // accumulators are summed in their precision, in order
    }
    double sum = 0;
    for (int l = 0; l < d.lanes; ++l) // then the lanes of that sum, in double
        sum += static_cast<double>(total);
    return sum;
}

TEST(PeakKernels, EveryKernelDoesExactlyItsDeclaredWork) {
    int ran = 0;
    for (const PeakKernel& k : peak_kernels()) {
        if (!k.available_on_this_cpu())
            continue;
        for (std::uint64_t iterations : {0u, 1u, 7u}) {
            const double expected = k.decl.precision == "double" ? replay<double>(k.decl, iterations)
                                                                 : replay<float>(k.decl, iterations);
            EXPECT_EQ(k.run(iterations), expected)
                << k.decl.isa << " " << k.decl.precision << " " << k.decl.op << " x" << iterations;
        }
        ++ran;
    }
    if (ran == 0)
        GTEST_SKIP() << "no peak kernel can run on this CPU";
}

TEST(PeakKernels, AccumulatorSweepVariantsAreWidestDoubleFma) {
    const std::array<int, 10> expected{1, 2, 4, 6, 8, 10, 12, 16, 20, 24};
    ASSERT_EQ(accumulator_sweep_kernels().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const PeakKernel& k = accumulator_sweep_kernels()[i];
        EXPECT_EQ(k.decl.accumulators, expected[i]);
        EXPECT_EQ(k.decl.isa, "avx512");
        EXPECT_EQ(k.decl.op, "fma");
        if (k.available_on_this_cpu()) {
            EXPECT_EQ(k.run(3), replay<double>(k.decl, 3)) << expected[i] << " accumulators";
        }
    }
}

// ---- disassembly of the kernels linked into this test binary ----

std::string run_command(const std::string& cmd) {
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    if (!p)
        return {};
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), p.get())) > 0)
        out.append(buf.data(), n);
    return out;
}

struct Disassembly {
    std::string text;  // objdump -d output of the kernel's function only
    std::string error; // why it could not be produced
};

// Locates the function a kernel's `run` pointer refers to (offset from the binary's load address,
// matched against the symbol table for its size) and disassembles exactly that function.
Disassembly disassemble(const PeakKernel& k) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(k.run), &info) == 0 || info.dli_fname == nullptr)
        return {"", "dladdr cannot place the kernel"};
    const auto offset = reinterpret_cast<std::uintptr_t>(reinterpret_cast<void*>(k.run)) -
                        reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    // The binary itself (in a child process /proc/self/exe would be the child).
    const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
    std::istringstream syms(run_command("nm -S --defined-only " + exe + " 2>/dev/null"));
    std::string line;
    std::uintptr_t size = 0;
    while (std::getline(syms, line)) {
        std::istringstream f(line);
        std::string addr, sz, type;
        if (!(f >> addr >> sz >> type))
            continue;
        if (std::stoull(addr, nullptr, 16) == offset && (type == "t" || type == "T")) {
            size = std::stoull(sz, nullptr, 16);
            break;
        }
    }
    if (size == 0)
        return {"", "no symbol of the kernel in the symbol table (stripped binary?)"};
    char range[128];
    std::snprintf(range, sizeof range, "--start-address=0x%lx --stop-address=0x%lx",
                  static_cast<unsigned long>(offset), static_cast<unsigned long>(offset + size));
    return {run_command("objdump -d --no-show-raw-insn " + std::string(range) + " " + exe + " 2>/dev/null"),
            ""};
}

struct LoopStats {
    int matching = 0;   // instructions in the hot loop that are the wanted FMA
    int memory_ops = 0; // instructions in the hot loop with a memory operand (spills)
    bool found = false;
};

struct Instruction {
    std::uint64_t address = 0;
    std::string mnemonic;
    std::string operands;
};

// Rows of `objdump -d --no-show-raw-insn`: "  fe0:\tvfmadd132pd %zmm1,%zmm0,%zmm13".
std::vector<Instruction> parse_disassembly(const std::string& text) {
    std::vector<Instruction> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos || line.find('\t') == std::string::npos)
            continue;
        const std::string addr = line.substr(0, colon);
        const std::size_t first = addr.find_first_not_of(' ');
        if (first == std::string::npos ||
            addr.find_first_not_of("0123456789abcdef", first) != std::string::npos)
            continue;
        std::istringstream rest(line.substr(colon + 1));
        Instruction ins;
        ins.address = std::stoull(addr.substr(first), nullptr, 16);
        rest >> ins.mnemonic;
        std::getline(rest >> std::ws, ins.operands);
        out.push_back(ins);
    }
    return out;
}

// `pattern` is a mnemonic in which '#' stands for any digit ("vfmadd###pd" covers 132/213/231); every
// operand must be a register of class `reg` (xmm, ymm, zmm): two operands in legacy SSE form, three in VEX.
bool is_register_op(const Instruction& i, const std::string& pattern, const std::string& reg) {
    const std::string& m = i.mnemonic;
    if (m.size() != pattern.size())
        return false;
    for (std::size_t k = 0; k < m.size(); ++k)
        if (pattern[k] == '#' ? (m[k] < '0' || m[k] > '9') : m[k] != pattern[k])
            return false;
    std::istringstream ops(i.operands);
    std::string op;
    int n = 0;
    while (std::getline(ops, op, ',')) {
        if (op.rfind("%" + reg, 0) != 0)
            return false;
        ++n;
    }
    return n == (m[0] == 'v' ? 3 : 2);
}

// The hot loop is the range from the target of the last backward conditional jump to that jump.
LoopStats inspect_loop(const std::string& text, const std::vector<std::string>& patterns,
                       const std::string& reg) {
    const std::vector<Instruction> ins = parse_disassembly(text);
    LoopStats s;
    for (std::size_t j = ins.size(); j-- > 0;) {
        const std::string& m = ins[j].mnemonic;
        if (m.empty() || m[0] != 'j' || m == "jmp" || ins[j].operands.empty())
            continue;
        const std::uint64_t target = std::stoull(ins[j].operands, nullptr, 16);
        if (target >= ins[j].address)
            continue;
        s.found = true;
        for (std::size_t i = 0; i < j; ++i) {
            if (ins[i].address < target)
                continue;
            if (std::any_of(patterns.begin(), patterns.end(),
                            [&](const std::string& p) { return is_register_op(ins[i], p, reg); }))
                ++s.matching;
            if (ins[i].operands.find('(') != std::string::npos && ins[i].mnemonic.rfind("nop", 0) != 0)
                ++s.memory_ops;
        }
        break;
    }
    return s;
}

struct OpCase {
    const char* isa;
    const char* precision;
    const char* op;
    std::vector<std::string> patterns; // the instructions the op must compile to
    const char* reg;                   // the register class the ISA's vectors live in
};

class KernelDisassembly : public ::testing::TestWithParam<OpCase> {};

TEST_P(KernelDisassembly, HotLoopIsAllRegisterOpsOnTheDeclaredWidth) {
    if (run_command("command -v objdump").empty() || run_command("command -v nm").empty())
        GTEST_SKIP() << "objdump/nm (binutils) not installed: cannot inspect the compiled kernels";
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "sanitizer build: -fsanitize changes gcc's code generation even for the uninstrumented "
                    "kernels (accumulators get a stack home); the check applies to the optimised build";
#endif
    const OpCase& c = GetParam();
    const PeakKernel* k = find_peak_kernel(c.isa, c.precision, c.op);
    ASSERT_NE(k, nullptr);
    const Disassembly d = disassemble(*k);
    if (!d.error.empty())
        GTEST_SKIP() << d.error;
    const LoopStats s = inspect_loop(d.text, c.patterns, c.reg);
    ASSERT_TRUE(s.found) << d.text;
    // The loop body applies the op `unroll` times to each accumulator: 12 x 4 = 48 per trip (the chain:
    // 1 x 8), each one instruction on the ISA's full registers.
    EXPECT_EQ(s.matching, k->decl.accumulators * k->decl.unroll) << d.text;
    EXPECT_EQ(s.memory_ops, 0) << "accumulators spilled to memory:\n" << d.text;
}

INSTANTIATE_TEST_SUITE_P(Widths, KernelDisassembly,
                         ::testing::Values(OpCase{"avx512", "double", "fma", {"vfmadd###pd"}, "zmm"},
                                           OpCase{"avx512", "single", "fma", {"vfmadd###ps"}, "zmm"},
                                           OpCase{"avx512", "double", "add", {"vaddpd"}, "zmm"},
                                           OpCase{"avx512", "double", "mul", {"vmulpd"}, "zmm"},
                                           OpCase{"avx512", "double", "addmul", {"vaddpd", "vmulpd"}, "zmm"},
                                           OpCase{"avx512", "double", "chain", {"vfmadd###pd"}, "zmm"},
                                           OpCase{"avx2", "double", "fma", {"vfmadd###pd"}, "ymm"},
                                           OpCase{"avx2", "single", "add", {"vaddps"}, "ymm"},
                                           OpCase{"sse", "double", "fma", {"vfmadd###pd"}, "xmm"},
                                           OpCase{"sse", "double", "add", {"addpd"}, "xmm"},
                                           OpCase{"sse", "single", "mul", {"mulps"}, "xmm"},
                                           OpCase{"scalar", "double", "fma", {"vfmadd###sd"}, "xmm"},
                                           OpCase{"scalar", "double", "add", {"addsd"}, "xmm"},
                                           OpCase{"scalar", "single", "mul", {"mulss"}, "xmm"}),
                         [](const ::testing::TestParamInfo<OpCase>& i) {
                             return std::string(i.param.isa) + "_" + i.param.precision + "_" + i.param.op;
                         });

} // namespace
