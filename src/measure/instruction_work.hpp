// What one execution of an x86-64 instruction does, read from its disassembly: the floating-point
// operations and the bytes it loads and stores. Multiplied by how often each instruction ran (valgrind's
// callgrind counts every execution), it gives a program's FLOPs and its core-side bytes exactly: counted,
// not sampled (issue 48).
//
// Input: `objdump -d --no-show-raw-insn -C` text, AT&T syntax (the destination last; objdump leaves out the
// size suffix where a register operand implies the size). Every figure is exact for the instructions it
// handles; where it cannot be exact the result says so (width_unknown, flops_unknown) and never guesses.
//
// FLOPs (per execution, lanes x operations; the lanes of a packed instruction are its widest vector
// register over the element size, a scalar one has one lane):
//  - FMA (vfmadd/vfmsub/vfnmadd/vfnmsub in the 132/213/231 forms, vfmaddsub/vfmsubadd, AMD's four-operand
//    FMA4 names) 2; add, sub, mul, div, sqrt 1 — the operations of the roofline models.
//  - Horizontal and alternating adds (haddpd/hsubps/addsubpd ...) 1 per lane and dot products (dppd/dpps)
//    2 per lane, all lanes whatever the immediate selects: as Intel's FP_ARITH_INST_RETIRED events count
//    them (Intel SDM vol. 3B, performance-monitoring events of Skylake and later), so that counted FLOPs
//    agree with the counter-based (PAPI) profiles on such code. That dppd does 3 real operations (2 mul,
//    1 add) and counts 4 is the events' convention, followed for that agreement.
//  - min/max, compares, conversions, logic, shuffles, blends, rounding, scalef/getexp/getmant/range/
//    reduce/fixupimm, and the approximations rcp/rsqrt (rcp14, rsqrt28, exp2 ...) count 0: they are no
//    operations of the models. (Intel's events do count min/max, rcp14, rsqrt14 and range: on code full of
//    them the counter figures are higher.)
//  - x87: fadd/fsub/fsubr/fmul/fdiv/fdivr (with their p and integer fi… forms) and fsqrt count 1, as
//    double precision: x87 computes in 80-bit extended precision and the scalar DP roof is the nearest one.
//    The transcendental and remainder instructions (fsin, fcos, fsincos, fptan, fpatan, f2xm1, fyl2x,
//    fyl2xp1, fprem, fprem1) do many operations each, in microcode: flops_unknown.
//  - Half precision and bfloat16 arithmetic (…ph/…sh, vdpbf16ps, the complex vfmaddcph) have no field here:
//    flops_unknown. So has an instruction on ps/pd/ss/sd that these tables do not know.
//  - AVX-512 masks are ignored: a masked instruction counts all its lanes (`masked` says the mask was there).
//
// Bytes (per execution, from the memory operand's width; a read-modify-write counts as a load and a store):
//  - General-purpose: the explicit size suffix (movl, addq, cmpb, incw ...) or the register operand
//    (%rax 8, %eax 4, %ax 2, %al/%ah 1, %r8d/%r8w/%r8b ...); movz/movs extensions and crc32 read the size
//    their suffix names; set… writes 1; push, pop, call and ret move 8 bytes on the stack (they are loads
//    and stores of the program: call stores the return address, ret loads it, leave loads %rbp).
//  - SSE/AVX/AVX-512: packed on xmm 16, ymm 32, zmm 64 bytes; scalar …ss 4, …sd 8, …sh 2; movd 4, movq 8;
//    movhpd/movlpd/movhps/movlps 8; movddup 8 on xmm (the full register on ymm/zmm); broadcasts their
//    source (vbroadcastss 4, vbroadcastsd 8, vbroadcastf128 16, vpbroadcastb/w/d/q 1/2/4/8, the x2/x4/x8
//    forms); inserts and extracts of 128/256 bits 16/32, insertps/extractps 4, pinsr/pextr b/w/d/q
//    1/2/4/8; pmovzx/pmovsx read the fraction of their destination their element sizes give (bw 1/2,
//    bq 1/8 ...) and the AVX-512 down-converts (vpmovqd ...) write it; conversions read their source
//    type (cvtsd2ss 8, cvtss2sd 4, cvtsi2sdl 4, cvtps2pd on xmm 8, vcvtpd2psy 32 ...); an embedded
//    broadcast ({1toN}) reads one element; shifts by an xmm count read 16; non-temporal stores and loads
//    (movntpd, movnti, movntdqa ...) count like the others; ldmxcsr/stmxcsr 4; kmovb/w/d/q 1/2/4/8.
//  - Gathers and scatters count by element: lanes x element size, all lanes, mask ignored; the lanes are
//    the fewer of the data register's and the index register's elements (vgatherqps with a ymm index fills
//    an xmm: 4 floats, 16 bytes).
//  - Masked loads and stores (AVX-512 {%kN}, vmaskmov/vpmaskmov, maskmovdqu) count the full width, mask
//    ignored (`masked` is set): the lanes a mask disables are not accessed, so these bytes are an upper
//    bound. compress/expand with a mask move as many elements as the mask has bits: width_unknown.
//  - x87: by suffix (flds 4, fldl 8, fldt 10; filds 2, fildl 4, fildll 8), fldcw/fnstcw/fnstsw 2,
//    fbld/fbstp 10, fxsave/fxrstor 512.
//  - lea, nop, prefetch*, clflush, clwb, cldemote, endbr and the AVX-512 gather/scatter prefetches: 0 bytes
//    (no load or store of data).
//  - A rep-prefixed string instruction (rep movs/stos, repz cmps/scas, rep lods) runs %rcx iterations per
//    execution, which the disassembly cannot know: width_unknown, and the bytes of one iteration are in
//    rep_load_bytes/rep_store_bytes. valgrind counts such an instruction once per iteration plus once per
//    execution (checked with callgrind 3.19 on rep stos), so its count alone does not give the bytes; the
//    callgrind backend reads the iterations of rep movs/stos/lods from the instruction's jumps to itself
//    (counted_work.hpp), the conditional cmps/scas stay unknown.
//    Without rep, movsb/movsw/movsl/movsq, stos, lods, scas and cmps are sized exactly.
//  - Anything else whose memory width these rules do not know (xsave, fnstenv, enter with a nesting level,
//    AMX tiles, an unknown mnemonic, "(bad)"): width_unknown, and its bytes are left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace roofcast::measure {

struct DecodedInstruction {
    std::uint64_t address = 0;
    std::string function;              // demangled name of the enclosing symbol ("" before any symbol)
    std::string mnemonic;              // without prefixes (rep, lock, notrack, data16, segment overrides)
    std::vector<std::string> operands; // AT&T order, the destination last
    bool rep = false;                  // a rep/repz/repnz prefix (string instructions run %rcx times)
};

// Every instruction of `objdump -d --no-show-raw-insn -C` text (all sections and functions), in address
// order (objdump's order for equal addresses: a relocatable object starts each section at 0). The
// continuation rows of raw bytes that objdump prints when raw bytes are shown are skipped. Pure, never
// throws, never crashes on any text.
std::vector<DecodedInstruction> parse_objdump_instructions(const std::string& objdump_text);

struct InstructionWork {
    // Per execution: lanes x operations (see the header comment for what counts).
    double flops_dp = 0, flops_sp = 0;
    // Per execution, from the memory operand's width; a read-modify-write counts both; gathers/scatters by
    // element (lanes x element size, all lanes, mask ignored).
    double load_bytes = 0, store_bytes = 0;
    int vector_bits = 0;          // widest vector register of an FP arithmetic instruction (0 scalar / none)
    bool fp_arithmetic = false;   // an FP arithmetic instruction (add/sub/mul/div/sqrt/FMA, horizontal adds,
                                  // dot products, x87 arithmetic; and those flops_unknown marks)
    bool memory = false;          // loads or stores bytes counted in load_bytes/store_bytes
    bool width_unknown = false;   // a memory access whose width could not be determined (bytes exclude it)
    bool flops_unknown = false;   // FP arithmetic whose operations are not counted (FP16/BF16, fsin, ...)
    bool masked = false;          // takes a lane mask it may apply: every lane was counted
    double rep_load_bytes = 0,    // a rep-prefixed string instruction: bytes of one iteration
        rep_store_bytes = 0;      // (width_unknown is set; the iterations are not known)
    bool rep_conditional = false; // ... that also stops on a comparison (repz/repnz cmps, scas)
};

// Pure; never throws. An instruction without memory access or FP arithmetic has no work.
InstructionWork instruction_work(const DecodedInstruction& ins);

} // namespace roofcast::measure
