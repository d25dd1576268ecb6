// Per-instruction work (FLOPs and bytes of one execution) on real objdump rows, the reading of a whole
// objdump, and the exact-count claim without valgrind: static work x the known executions of each
// instruction of three compiled kernels gives their known FLOPs and bytes.
//
// The rows are objdump 2.40 output (`objdump -d --no-show-raw-insn -C`) of gcc 12.2 code: loops compiled
// with -O3 for x86-64-v2, x86-64-v3 and -mavx512f (objdump disassembles AVX-512 that this CPU cannot run),
// intrinsics for the rarer forms, and a few hand-written assembly lines (GNU as 2.40) for what compilers
// seldom emit. Each expected figure is computed by hand from the Intel SDM's operand sizes.
#include "core/io.hpp"
#include "measure/instruction_work.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace roofcast;
using namespace roofcast::measure;

namespace {

std::string work_fixture(const std::string& name) {
    return core::read_file(std::string(ROOFCAST_SOURCE_DIR) + "/tests/measure/data/instruction_work/" + name);
}

std::string exact_text(double x) {
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
}

// The non-zero fields of a work record in one order: "dp=8 load=32 bits=256 fp mem".
std::string describe_work(const InstructionWork& w) {
    std::ostringstream s;
    auto number = [&](const char* name, double v) {
        if (v != 0)
            s << ' ' << name << '=' << exact_text(v);
    };
    number("dp", w.flops_dp);
    number("sp", w.flops_sp);
    number("load", w.load_bytes);
    number("store", w.store_bytes);
    number("bits", w.vector_bits);
    number("rep_load", w.rep_load_bytes);
    number("rep_store", w.rep_store_bytes);
    for (const auto& [name, on] :
         {std::pair{"fp", w.fp_arithmetic}, std::pair{"mem", w.memory}, std::pair{"wunk", w.width_unknown},
          std::pair{"funk", w.flops_unknown}, std::pair{"masked", w.masked}})
        if (on)
            s << ' ' << name;
    const std::string out = s.str();
    return out.empty() ? out : out.substr(1);
}

struct Row {
    const char* line; // one objdump row
    const char* work; // describe_work() of its work; "" = none
};

// clang-format off
const Row k_rows[] = {
    // gcc -O3 -march=x86-64-v3, a[i] = b[i] + s * c[i] in double: the ymm body, the xmm and scalar remainders.
    {"  30:\tvmovupd (%rdx,%rax,1),%ymm1", "load=32 mem"},
    {"  35:\tvfmadd213pd (%rsi,%rax,1),%ymm2,%ymm1", "dp=8 load=32 bits=256 fp mem"},
    {"  3b:\tvmovupd %ymm1,(%rdi,%rax,1)", "store=32 mem"},
    {"  40:\tadd    $0x20,%rax", ""},
    {"  47:\tjne    30 <triad_d+0x30>", ""},
    {"  1a:\tvbroadcastsd %xmm0,%ymm2", ""},
    {"  6a:\tvmovddup %xmm0,%xmm1", ""},
    {"  6e:\tvfmadd132pd (%rdx,%r8,8),%xmm4,%xmm1", "dp=4 load=16 bits=128 fp mem"},
    {"  8b:\tvfmadd132sd (%rdx,%rax,8),%xmm3,%xmm0", "dp=2 load=8 fp mem"},
    {"  91:\tvmovsd %xmm0,(%rdi,%rax,8)", "store=8 mem"},
    {"  96:\tret", "load=8 mem"}, // the return address
    {"  97:\tnopw   0x0(%rax,%rax,1)", ""},
    // -mavx512f -mprefer-vector-width=512, the same in float: zmm body, ymm and scalar remainders.
    {" 147:\tvfmadd213ps (%rsi,%rax,1),%zmm2,%zmm1", "sp=32 load=64 bits=512 fp mem"},
    {" 14e:\tvmovups %zmm1,(%rdi,%rax,1)", "store=64 mem"},
    {" 18c:\tvfmadd132ps (%rdx,%r8,4),%ymm3,%ymm1", "sp=16 load=32 bits=256 fp mem"},
    {" 1b1:\tvfmadd213ss (%rsi,%rax,4),%xmm0,%xmm1", "sp=2 load=4 fp mem"},
    {" 1b7:\tlea    0x0(,%rax,4),%r8", ""},
    {" 1d2:\tvmovss 0x4(%rdx,%r8,1),%xmm1", "load=4 mem"},
    // -march=x86-64-v2: sqrt(b[i]) / (b[i] + 1.0), scalar with its errno call; the SSE dot product.
    {" 275:\tpush   %rbx", "store=8 mem"},
    {" 280:\tmovsd  0x0(%rip),%xmm3        # 288 <scale_div+0x18>", "load=8 mem"},
    {" 295:\tucomisd %xmm1,%xmm2", ""},
    {" 29f:\taddsd  %xmm3,%xmm1", "dp=1 fp"},
    {" 2a3:\tsqrtsd %xmm0,%xmm0", "dp=1 fp"},
    {" 2a7:\tdivsd  %xmm1,%xmm0", "dp=1 fp"},
    {" 2c5:\tmov    %rdx,0x18(%rsp)", "store=8 mem"},
    {" 2d9:\tcall   2de <scale_div+0x6e>", "store=8 mem"}, // the return address
    {" 2f8:\tmovq   %rax,%xmm3", ""},
    {" 2bd:\tpop    %rbx", "load=8 mem"},
    {"12ac:\tmulps  %xmm5,%xmm1", "sp=4 bits=128 fp"},
    {"12af:\taddss  %xmm1,%xmm0", "sp=1 fp"},
    {"12b9:\tshufps $0x55,%xmm1,%xmm3", ""},
    {"12e6:\tmulss  (%rsi,%rax,4),%xmm1", "sp=1 load=4 fp mem"},
    {"12a0:\tmovups (%rcx,%rax,1),%xmm1", "load=16 mem"},
    // Intrinsics, -O2 -march=x86-64-v3 -mf16c. Horizontal adds 1 and dot products 2 per lane (Intel's
    // FP_ARITH events), the immediate's lane selection ignored.
    {"   0:\tvhaddpd (%rdi),%xmm0,%xmm0", "dp=2 load=16 bits=128 fp mem"},
    {"  10:\tvhaddps (%rdi),%ymm0,%ymm0", "sp=8 load=32 bits=256 fp mem"},
    {"  30:\tvdppd  $0x31,(%rdi),%xmm0,%xmm0", "dp=4 load=16 bits=128 fp mem"},
    {"  50:\tvdpps  $0xff,(%rdi),%ymm0,%ymm0", "sp=16 load=32 bits=256 fp mem"},
    {"  70:\tvaddsubps (%rdi),%ymm0,%ymm0", "sp=8 load=32 bits=256 fp mem"},
    {"  80:\tvmaskmovpd (%rdi),%ymm0,%ymm0", "load=32 mem masked"},
    {"  90:\tvmaskmovps %ymm1,%ymm0,(%rdi)", "store=32 mem masked"},
    {"  ad:\tvgatherdpd %ymm0,(%rdi,%xmm2,8),%ymm1", "load=32 mem masked"},  // 4 dword indices, 4 doubles
    {"  d1:\tvgatherqps %xmm3,(%rdi,%ymm2,4),%xmm1", "load=16 mem masked"},  // 4 qword indices, 4 floats
    {" 10d:\tvgatherqpd %xmm0,(%rdi,%xmm2,8),%xmm1", "load=16 mem masked"},
    {" 120:\tvbroadcastf128 (%rdi),%ymm0", "load=16 mem"},
    {" 130:\tvbroadcastss (%rdi),%ymm0", "load=4 mem"},
    {" 150:\tvpbroadcastb (%rdi),%ymm0", "load=1 mem"},
    {" 160:\tvpbroadcastw (%rdi),%ymm0", "load=2 mem"},
    {" 180:\tvpbroadcastq (%rdi),%ymm0", "load=8 mem"},
    {" 190:\tvinsertf128 $0x1,(%rdi),%ymm0,%ymm0", "load=16 mem"},
    {" 1a0:\tvextractf128 $0x1,%ymm0,(%rdi)", "store=16 mem"},
    {" 1b0:\tvmovhpd (%rdi),%xmm0,%xmm0", "load=8 mem"},
    {" 200:\tvmovddup (%rdi),%ymm0", "load=32 mem"},
    {" 210:\tvmovntpd %ymm0,(%rdi)", "store=32 mem"},
    {" 220:\tmovnti %esi,(%rdi)", "store=4 mem"},
    {" 240:\tvpinsrb $0x3,(%rdi),%xmm0,%xmm0", "load=1 mem"},
    {" 270:\tvpextrd $0x2,%xmm0,(%rdi)", "store=4 mem"},
    {" 2b0:\tvcvtph2ps (%rdi),%ymm0", "load=16 mem"},
    {" 2c0:\tvcvtps2ph $0x0,%ymm0,(%rdi)", "store=16 mem"},
    {" 310:\tvcvtps2pd (%rdi),%ymm0", "load=16 mem"},
    {" 320:\tvcvtpd2psy (%rdi),%xmm0", "load=32 mem"},
    {" 330:\tvcvtpd2psx (%rdi),%xmm0", "load=16 mem"},
    {" 350:\tvcvtdq2pd (%rdi),%ymm0", "load=16 mem"},
    {" 370:\tvcvttsd2si (%rdi),%eax", "load=8 mem"},
    {" 394:\tvcvtsi2sdl (%rdi),%xmm0,%xmm0", "load=4 mem"},
    {" 3a4:\tvcvtsi2ssq (%rdi),%xmm0,%xmm0", "load=8 mem"},
    {" 3b0:\tvcmpltsd (%rdi),%xmm0,%xmm0", "load=8 mem"},
    {" 3c0:\tvcmpnge_uqpd (%rdi),%ymm0,%ymm0", "load=32 mem"},
    {" 400:\tvfmsubadd213ps (%rdi),%ymm1,%ymm0", "sp=16 load=32 bits=256 fp mem"},
    {" 410:\tvrcpps (%rdi),%ymm0", "load=32 mem"},
    {" 430:\tvsqrtpd (%rdi),%ymm0", "dp=4 load=32 bits=256 fp mem"},
    {" 460:\tvpsllvq (%rdi),%ymm0,%ymm0", "load=32 mem"},
    {" 486:\tvldmxcsr -0x4(%rsp)", "load=4 mem"},
    {" 4a0:\tvmovd  (%rdi),%xmm0", "load=4 mem"},
    {" 500:\tvminpd (%rdi),%ymm0,%ymm0", "load=32 mem"},
    // Intrinsics, -O2 -march=x86-64-v2 (legacy SSE encodings).
    {"  20:\tdppd   $0x31,(%rdi),%xmm0", "dp=4 load=16 bits=128 fp mem"},
    {"  60:\tmovlpd %xmm0,(%rdi)", "store=8 mem"},
    {"  90:\tmovddup (%rdi),%xmm0", "load=8 mem"},
    {" 100:\tpmovzxbd (%rdi),%xmm0", "load=4 mem"},
    {" 110:\tpmovsxdq (%rdi),%xmm0", "load=8 mem"},
    {" 120:\tcvtps2pd (%rdi),%xmm0", "load=8 mem"},
    {" 130:\tcvtpd2ps (%rdi),%xmm0", "load=16 mem"},
    {" 170:\tcvtss2sd (%rdi),%xmm0", "load=4 mem"},
    {" 180:\tcvtsd2ss (%rdi),%xmm0", "load=8 mem"},
    {" 232:\tcomisd (%rdi),%xmm0", "load=8 mem"},
    {" 260:\tmaskmovdqu %xmm1,%xmm0", "store=16 mem masked"}, // stores to (%rdi)
    {" 1f8:\tpsllq  %xmm1,%xmm0", ""},
    // Intrinsics, -O2 -march=x86-64-v3 -mavx512f -mavx512vl -mavx512dq -mavx512bw.
    {"   0:\tvfmadd132pd (%rdi){1to8},%zmm1,%zmm0", "dp=16 load=8 bits=512 fp mem"},
    {"  24:\tvmovupd (%rsi),%zmm0{%k1}", "load=64 mem masked"},
    {"  34:\tvmovupd %zmm0,(%rdi){%k1}", "store=64 mem masked"},
    {"  44:\tvaddpd (%rsi),%zmm0,%zmm0{%k1}{z}", "dp=8 load=64 bits=512 fp mem masked"},
    {"  58:\tvgatherdpd (%rdi,%ymm1,8),%zmm0{%k1}", "load=64 mem masked"},
    {"  6a:\tvgatherqps (%rdi,%zmm1,4),%ymm0{%k1}", "load=32 mem masked"},
    {"  84:\tvscatterdpd %zmm1,(%rdi,%ymm0,8){%k1}", "store=64 mem masked"},
    {"  a4:\tvcompresspd %zmm0,(%rdi){%k1}", "wunk masked"}, // as many doubles as the mask has bits
    {"  d0:\tvpmovqd %zmm0,(%rdi)", "store=32 mem"},
    {"  f0:\tvcvtpd2ps (%rdi),%ymm0", "load=64 mem"},
    {" 110:\tvpmovzxbd (%rdi),%zmm0", "load=16 mem"},
    {" 120:\tvbroadcastf64x4 (%rdi),%zmm0", "load=32 mem"},
    {" 166:\tvaddpd {rn-sae},%zmm1,%zmm0,%zmm0", "dp=8 bits=512 fp"},
    {" 1c0:\tvcmpltpd (%rdi),%zmm0,%k0", "load=64 mem"},
    {" 1f0:\tvpsllq $0x3,(%rdi),%zmm0", "load=64 mem"},
    {" 220:\tvpaddd (%rdi){1to16},%zmm0,%zmm0", "load=4 mem"},
    {" 260:\tvfnmsub213ps (%rdi),%zmm1,%zmm0", "sp=32 load=64 bits=512 fp mem"},
    {" 290:\tvdivpd 0x0(%rip){1to8},%zmm0,%zmm0        # 29a <div_bcast+0xa>", "dp=8 load=8 bits=512 fp mem"},
    // General-purpose and x87 code, -O2 -march=x86-64-v3 -fno-omit-frame-pointer (memset, atomics,
    // long double).
    {"  fb:\trep stos %rax,%es:(%rdi)", "rep_store=8 wunk"},
    {" 103:\tmovsbl 0x1(%rsi),%esi", "load=1 mem"},
    {" 107:\tmovzwl 0x4(%rdx),%edx", "load=2 mem"},
    {" 115:\tadd    0x10(%r8),%eax", "load=4 mem"},
    {" 120:\tmovslq 0x14(%rdi),%rax", "load=4 mem"},
    {" 130:\taddl   $0x1,(%rdi)", "load=4 store=4 mem"},
    {" 137:\tsubw   $0x3,(%rdx)", "load=2 store=2 mem"},
    {" 13b:\txorb   $0x1,(%rcx)", "load=1 store=1 mem"},
    {" 142:\tsetl   (%rdi)", "store=1 mem"},
    {" 155:\tlock xadd %rax,(%rdi)", "load=8 store=8 mem"},
    {" 162:\tlock cmpxchg %edx,(%rdi)", "load=4 store=4 mem"},
    {" 1b0:\timul   0x8(%rsi),%rdi", "load=8 mem"},
    {" 1c0:\tshlx   %esi,(%rdi),%eax", "load=4 mem"},
    {" 1d0:\tsarq   $0x3,(%rdi)", "load=8 store=8 mem"},
    {" 205:\tdivq   (%rsi)", "load=8 mem"},
    {" 23f:\tfldt   (%rdi,%rdx,1)", "load=10 mem"},
    {" 242:\tfmull  (%rsi,%rax,8)", "dp=1 load=8 fp mem"},
    {" 24a:\tfdivs  (%r10,%rax,4)", "dp=1 load=4 fp mem"},
    {" 256:\tfildll (%rcx,%rax,8)", "load=8 mem"},
    {" 25d:\tfsubrp %st,%st(1)", "dp=1 fp"},
    {" 262:\tfaddp  %st,%st(1)", "dp=1 fp"},
    {" 286:\tfisttpll -0x8(%rbp)", "store=8 mem"},
    {" 29e:\tfstpt  (%rdx)", "store=10 mem"},
    {" 2b8:\tfsqrt", "dp=1 fp"},
    {" 2d9:\tleave", "load=8 mem"}, // pops %rbp
    {" 322:\tpopcnt (%rdi),%rax", "load=8 mem"},
    {" 355:\tmovq   $0x0,(%rdi)", "store=8 mem"},
    {" 362:\tmov    %ax,(%rdx)", "store=2 mem"},
    {" 365:\tmovb   $0x9,(%rcx)", "store=1 mem"},
    // glibc 2.36's libc.so.6: a transaction's abort target is no memory operand.
    {"   85bee:\txbegin 85bf4 <__pthread_cleanup_routine@GLIBC_2.3.3+0x174>", ""},
    // Hand-written assembly.
    {"   0:\tmovsb  %ds:(%rsi),%es:(%rdi)", "load=1 store=1 mem"},
    {"   6:\trep movsq %ds:(%rsi),%es:(%rdi)", "rep_load=8 rep_store=8 wunk"},
    {"   e:\trepz cmpsb %es:(%rdi),%ds:(%rsi)", "rep_load=2 wunk"},
    {"  15:\tpush   (%rax)", "load=8 store=8 mem"},
    {"  1e:\tcall   *(%rax)", "load=8 store=8 mem"},
    {"  22:\tjmp    *0x10(%rax,%rcx,8)", "load=8 mem"},
    {"  30:\tfxsave (%rax)", "store=512 mem"},
    {"  33:\txsave  (%rax)", "wunk"}, // its size depends on the enabled state components
    {"  36:\tcmpxchg16b (%rax)", "load=16 store=16 mem"},
    {"  3d:\tcrc32b (%rax),%eax", "load=1 mem"},
    {"  5d:\tshll   %cl,(%rax)", "load=4 store=4 mem"},
    {"  62:\tfsin", "fp funk"},
    {"  64:\tfiadds (%rax)", "dp=1 load=2 fp mem"},
    {"  6c:\tfnstcw (%rax)", "store=2 mem"},
    {"  92:\txlat   %ds:(%rbx)", "load=1 mem"},
    {"  a8:\tmovabs 0x1122334455667788,%al", "load=1 mem"},
    {"  bb:\tmov    %fs:0x28,%rax", "load=8 mem"},
    {" 130:\tand    (%rbx),%r11b", "load=1 mem"},
    {" 133:\tsub    %ah,(%rbx)", "load=1 store=1 mem"},
    {" 139:\tprefetcht0 (%rax)", ""},
    {" 14d:\tvgatherpf0dps (%rax,%zmm1,4){%k1}", ""},
    {" 165:\tcvtpd2pi (%rax),%mm0", "load=16 mem"},
    {" 16f:\tpunpcklbw (%rax),%mm0", "load=4 mem"},
    {" 172:\tpsllw  (%rax),%xmm1", "load=16 mem"}, // the shift count
    {" 1af:\tvcvtdq2pd (%rax){1to8},%zmm0", "load=4 mem"},
    {" 1c1:\tvcvtqq2ps (%rax),%ymm0", "load=64 mem"},
    {" 1f9:\tvscatterqps %ymm0,(%rax,%zmm1,4){%k1}", "store=32 mem masked"},
    {" 212:\tkmovw  (%rax),%k1", "load=2 mem"},
    {" 21b:\tvbroadcastf32x2 (%rax),%zmm0", "load=8 mem"},
    {" 247:\tvpmovusdb %zmm0,(%rax)", "store=16 mem"},
    {" 253:\tvpsraw (%rax),%ymm1,%ymm0", "load=16 mem"},
    {" 270:\tvaddsh (%rax),%xmm1,%xmm0", "load=2 fp mem funk"},
    {" 276:\tvfmadd231ph (%rax),%zmm1,%zmm0", "load=64 bits=512 fp mem funk"},
    {" 282:\tvfmaddpd (%rax),%ymm2,%ymm1,%ymm0", "dp=8 load=32 bits=256 fp mem"},
    {" 29c:\tvfpclasspdz $0x1,(%rax),%k1", "load=64 mem"},
    {" 2aa:\tvpdpwssd (%rax),%zmm1,%zmm0", "load=64 mem"}, // integer
    {" 2b5:\tpabsd  (%rax),%xmm0", "load=16 mem"},
    {" 327:\tvfmaddsub132pd (%rax),%zmm1,%zmm0", "dp=16 load=64 bits=512 fp mem"},
    {" 3a7:\tpextrb $0x1,%xmm0,(%rax)", "store=1 mem"},
    {" 3bf:\tinsertps $0x10,(%rax),%xmm0", "load=4 mem"},
};
// clang-format on

TEST(InstructionWork, RealObjdumpRows) {
    for (const Row& row : k_rows) {
        SCOPED_TRACE(row.line);
        const std::vector<DecodedInstruction> ins = parse_objdump_instructions(row.line);
        ASSERT_EQ(ins.size(), 1u);
        EXPECT_EQ(describe_work(instruction_work(ins[0])), row.work);
    }
}

TEST(InstructionWork, DecodesPrefixesOperandsAndAnnotations) {
    const auto ins =
        parse_objdump_instructions("  fb:\trep stos %rax,%es:(%rdi)\n"
                                   " 155:\tlock xadd %rax,(%rdi)\n"
                                   " 290:\tvdivpd 0x0(%rip){1to8},%zmm0,%zmm0        # 29a <f+0xa>\n");
    ASSERT_EQ(ins.size(), 3u);
    EXPECT_EQ(ins[0].address, 0xfbu);
    EXPECT_EQ(ins[0].mnemonic, "stos");
    EXPECT_TRUE(ins[0].rep);
    EXPECT_EQ(ins[0].operands, (std::vector<std::string>{"%rax", "%es:(%rdi)"}));
    EXPECT_EQ(ins[1].mnemonic, "xadd");
    EXPECT_FALSE(ins[1].rep);
    EXPECT_EQ(ins[2].operands, (std::vector<std::string>{"0x0(%rip){1to8}", "%zmm0", "%zmm0"}));
    EXPECT_EQ(ins[2].function, ""); // no symbol header before it
}

// tests/measure/data/instruction_work/counted.objdump: objdump -d --no-show-raw-insn -C of the program
// built there (gcc -O3 -march=x86-64-v3 -c triad.c; gcc -O3 -march=x86-64-v2 -c dot.c; g++ -O3
// -march=x86-64-v2 -c scale.cc; g++ -O2 -c main.cc; g++ triad.o dot.o scale.o main.o -o counted).
// 249 instruction rows (grep -cP '^\s+[0-9a-f]+:\t'), in 14 symbols of 5 sections.
TEST(InstructionWork, ParsesAWholeObjdump) {
    const std::vector<DecodedInstruction> all = parse_objdump_instructions(work_fixture("counted.objdump"));
    ASSERT_EQ(all.size(), 249u);
    std::vector<std::pair<std::string, int>> functions; // in order, with their instruction counts
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i > 0) {
            EXPECT_LT(all[i - 1].address, all[i].address);
        }
        if (functions.empty() || functions.back().first != all[i].function)
            functions.emplace_back(all[i].function, 0);
        ++functions.back().second;
    }
    const std::vector<std::pair<std::string, int>> want = {
        {"_init", 7},
        {"strtol@plt-0x10", 3},
        {"strtol@plt", 3},
        {"__cxa_finalize@plt", 2},
        {"main", 39},
        {"_start", 14},
        {"deregister_tm_clones", 11},
        {"register_tm_clones", 16},
        {"__do_global_dtors_aux", 16},
        {"frame_dummy", 3},
        {"triad", 45},
        {"dot", 58},
        {"void kern::scale<double>(double*, double, long)", 29},
        {"_fini", 3}};
    EXPECT_EQ(functions, want);
    EXPECT_EQ(all.front().address, 0x1000u);
    EXPECT_EQ(all.back().address, 0x13d0u);
    // The PLT stub loads its target through the GOT: an indirect jump through memory.
    const auto plt = std::find_if(all.begin(), all.end(), [](const DecodedInstruction& i) {
        return i.function == "strtol@plt" && i.mnemonic == "jmp";
    });
    ASSERT_NE(plt, all.end());
    EXPECT_EQ(plt->operands, (std::vector<std::string>{"*0x2fca(%rip)"}));
    EXPECT_EQ(describe_work(instruction_work(*plt)), "load=8 mem");
}

TEST(InstructionWork, ParserSkipsWhatIsNoInstruction) {
    // Raw bytes shown: the continuation row of a long instruction; headers, section lines, "...".
    const std::string text = "prog:     file format elf64-x86-64\n\nDisassembly of section .text:\n\n"
                             "0000000000401130 <f>:\n"
                             "  401136:\t48 c7 05 ef 2e 00 00 \tmovq   $0x0,0x2eef(%rip)\n"
                             "  40113d:\t00 00 00 00 \n"
                             "\t...\n"
                             "  401141:\tc3                   \tret\n";
    const auto ins = parse_objdump_instructions(text);
    ASSERT_EQ(ins.size(), 2u);
    EXPECT_EQ(ins[0].function, "f");
    EXPECT_EQ(describe_work(instruction_work(ins[0])), "store=8 mem");
    EXPECT_EQ(ins[1].mnemonic, "ret");
    // Text from elsewhere, out of order: sorted by address.
    const auto sorted = parse_objdump_instructions("  20:\tret\n  10:\tnop\n");
    ASSERT_EQ(sorted.size(), 2u);
    EXPECT_EQ(sorted[0].address, 0x10u);
}

// Any text, however damaged: no exception, no crash, and a flag or nothing where a width is unknown.
TEST(InstructionWork, NeverThrowsOnDamagedText) {
    std::string text = work_fixture("counted.objdump");
    for (const Row& row : k_rows)
        text += std::string(row.line) + "\n";
    std::mt19937 rng(48);
    const std::string alphabet = "\t\n ,(){}%$*:<>#0123456789abcdefxyzkmqls";
    for (int round = 0; round < 200; ++round) {
        std::string damaged = text;
        for (int k = 0; k < 40; ++k)
            damaged[rng() % damaged.size()] = alphabet[rng() % alphabet.size()];
        EXPECT_NO_THROW({
            for (const DecodedInstruction& ins : parse_objdump_instructions(damaged)) {
                const InstructionWork w = instruction_work(ins);
                EXPECT_GE(w.load_bytes, 0);
                EXPECT_GE(w.store_bytes, 0);
                EXPECT_GE(w.flops_dp + w.flops_sp, 0);
            }
        });
    }
}

// ---- the exact-count claim, without valgrind ----

// A range of a function's instructions, by offset from its first, that runs `count` times.
struct Block {
    std::uint64_t first, last;
    long count;
};

// Which blocks of the fixture's kernels run for n elements, read from their code (the offsets objdump
// prints as <triad+0x30>) and checked once against callgrind 3.19's per-instruction counts for n = 1..11,
// 1000 and 1003.
//
// triad (x86-64-v3): n >= 4 runs the 4-double ymm body n/4 times, then the rest r = n % 4: a 2-double xmm
// step when r >= 2, a scalar step when r is odd. n < 4 goes straight to the rest.
std::vector<Block> triad_blocks(long n) {
    std::vector<Block> b = {{0x0, 0x11, 1}};
    long rest = n;
    if (n >= 4) {
        rest = n % 4;
        b.insert(b.end(), {{0x17, 0x29, 1}, {0x30, 0x47, n / 4}, {0x49, 0x56, 1}});
        if (rest == 0) {
            b.push_back({0xa0, 0xa3, 1}); // vzeroupper, ret
            return b;
        }
        b.push_back({0x58, 0x62, 1});
    } else {
        b.insert(b.end(), {{0xa4, 0xa9, 1}, {0x5b, 0x62, 1}});
    }
    if (rest >= 2)
        b.push_back({0x64, 0x7d, 1});
    if (rest == 3)
        b.push_back({0x7f, 0x83, 1});
    if (rest % 2 == 1)
        b.push_back({0x86, 0x91, 1});
    b.push_back({0x96, 0x96, 1}); // ret
    return b;
}

// dot (x86-64-v2, float): n >= 4 runs the 4-float body (mulps, 4 ordered addss) n/4 times, then up to
// three scalar steps for n % 4.
std::vector<Block> dot_blocks(long n) {
    std::vector<Block> b = {{0x0, 0x14, 1}};
    long rest = n;
    if (n >= 4) {
        rest = n % 4;
        b.insert(b.end(), {{0x1a, 0x2b, 1}, {0x30, 0x63, n / 4}, {0x65, 0x6f, 1}});
        if (rest == 0) {
            b.push_back({0xc8, 0xc8, 1}); // ret
            return b;
        }
    } else {
        b.push_back({0xc9, 0xcf, 1});
    }
    b.push_back({0x71, 0x8e, 1});
    if (rest >= 2)
        b.push_back({0x90, 0xa7, 1});
    b.push_back(rest == 3 ? Block{0xa9, 0xb9, 1} : Block{0xc4, 0xc4, 1});
    return b;
}

// kern::scale<double> (x86-64-v2): n >= 2 runs the 2-double body n/2 times, then one scalar step when n
// is odd; n = 1 goes to that step directly.
std::vector<Block> scale_blocks(long n) {
    std::vector<Block> b = {{0x0, 0x9, 1}};
    if (n == 1)
        b.push_back({0x51, 0x53, 1});
    else
        b.insert(b.end(), {{0xb, 0x1f, 1}, {0x20, 0x33, n / 2}, {0x35, 0x3f, 1}});
    b.push_back(n % 2 == 1 ? Block{0x41, 0x4d, 1} : Block{0x50, 0x50, 1});
    return b;
}

struct Totals {
    double flops_dp = 0, flops_sp = 0, load_bytes = 0, store_bytes = 0;
    int unknown = 0; // executed instructions with width_unknown or flops_unknown
};

Totals run(const std::vector<DecodedInstruction>& all, const std::string& function,
           const std::vector<Block>& blocks) {
    Totals t;
    std::uint64_t start = 0;
    bool found = false;
    for (const DecodedInstruction& ins : all) {
        if (ins.function != function)
            continue;
        if (!found) {
            start = ins.address;
            found = true;
        }
        long count = 0;
        for (const Block& b : blocks)
            if (ins.address - start >= b.first && ins.address - start <= b.last)
                count += b.count;
        const InstructionWork w = instruction_work(ins);
        t.flops_dp += count * w.flops_dp;
        t.flops_sp += count * w.flops_sp;
        t.load_bytes += count * w.load_bytes;
        t.store_bytes += count * w.store_bytes;
        t.unknown += count > 0 && (w.width_unknown || w.flops_unknown) ? 1 : 0;
    }
    EXPECT_TRUE(found) << function;
    return t;
}

// Every element: triad 2 DP flops, 16 bytes loaded, 8 stored; dot 2 SP flops, 8 loaded; scale 1 DP flop,
// 8 loaded, 8 stored. Each call's ret loads its 8-byte return address besides.
TEST(InstructionWork, StaticWorkTimesExecutionsIsTheKernelsWork) {
    const std::vector<DecodedInstruction> all = parse_objdump_instructions(work_fixture("counted.objdump"));
    for (long n : {1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 1000L, 1003L}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const double e = static_cast<double>(n);
        const Totals triad = run(all, "triad", triad_blocks(n));
        EXPECT_EQ(triad.flops_dp, 2 * e);
        EXPECT_EQ(triad.flops_sp, 0);
        EXPECT_EQ(triad.load_bytes, 16 * e + 8);
        EXPECT_EQ(triad.store_bytes, 8 * e);
        EXPECT_EQ(triad.unknown, 0);
        const Totals dot = run(all, "dot", dot_blocks(n));
        EXPECT_EQ(dot.flops_sp, 2 * e);
        EXPECT_EQ(dot.flops_dp, 0);
        EXPECT_EQ(dot.load_bytes, 8 * e + 8);
        EXPECT_EQ(dot.store_bytes, 0);
        EXPECT_EQ(dot.unknown, 0);
        const Totals scale = run(all, "void kern::scale<double>(double*, double, long)", scale_blocks(n));
        EXPECT_EQ(scale.flops_dp, e);
        EXPECT_EQ(scale.load_bytes, 8 * e + 8);
        EXPECT_EQ(scale.store_bytes, 8 * e);
        EXPECT_EQ(scale.unknown, 0);
    }
}

} // namespace
