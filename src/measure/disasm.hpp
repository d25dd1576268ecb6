// Static inspection of compiled loops: which vector width and which FP instructions the innermost loops
// of a function really use, read from the disassembly of the binary (objdump, AT&T syntax, x86-64).
// This is evidence for the diagnosis of a kernel that falls short of its prediction (issue 13, §1): a
// loop that the model assumes vectorised at the machine's widest FMA but that compiles to scalar or
// narrower code cannot reach the compute roof the model drew.
//
// Contract: the counts are static (instructions in the loop body as compiled, one pass of the body),
// not dynamic (how often each runs); a function is matched by its demangled name, and an OpenMP outlined
// body (`fn._omp_fn.N`, `fn(...) [clone ._omp_fn.N]`, or a lambda of `fn` passed through a template and
// outlined) belongs to the function that opened the parallel region. Parsing never throws and never
// crashes on any text; running the tools never throws for a missing tool or a bad binary: the reason is
// returned in `unavailable`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure {

struct LoopInspection {
    std::string function; // demangled name of the function the loop is in
    std::uint64_t begin = 0,
                  end = 0; // address range of the loop body (target of the backward branch .. branch)
    int instructions = 0;
    // FP arithmetic instructions by register width: 0 scalar (…sd/…ss), 128, 256, 512 (xmm/ymm/zmm packed)
    std::map<int, int> fp_by_width;
    int fma = 0, add = 0, mul = 0, div = 0, sqrt = 0, other_fp = 0; // FP arithmetic by kind
    // FMA accumulators carried from one pass to the next: distinct vector registers an FMA writes (and reads)
    // before any other instruction of the pass has written them. Each is one dependency chain; a loop needs
    // about FMA latency x FMA units of them to issue an FMA every cycle on every unit. An FMA into a
    // register loaded in the same pass (c[j] += a * b[j] through memory) carries nothing.
    int fma_chains = 0;
    int loads = 0, stores = 0; // instructions with a memory source / a memory destination
    int gathers = 0;           // vgather*/scatter
    // Arithmetic operations per register width for flops_per_pass: fma counts 2, add/sub/mul/div/sqrt 1,
    // min/max and the other FP instructions 0 (they are not floating-point operations of the models).
    std::map<int, int> flop_ops_by_width;
    int single_precision = 0,
        double_precision = 0;                 // FP arithmetic instructions by element type (ps/ss, pd/sd)
    int vector_bits() const;                  // widest width among FP arithmetic, 0 when scalar only / no FP
    double flops_per_pass(bool single) const; // lanes x ops per pass of the body (fma = 2)
    int fp_arithmetic() const;                // FP arithmetic instructions of every width
};

struct CodeInspection {
    std::string binary, symbol;         // what was asked
    std::vector<LoopInspection> loops;  // innermost loops of every matching function (incl. OpenMP
                                        // outlined clones "fn._omp_fn.N" / "[clone ._omp_fn.N]"), the one
                                        // with most FP arithmetic first
    std::string unavailable;            // why nothing could be inspected ("objdump not installed", ...)
    std::string bad_input;              // the input `unavailable` is about: "binary" or "symbol"; empty
                                        // when a tool failed (or nothing did)
    std::vector<std::string> functions; // demangled names of the matching functions, in address order
    std::size_t functions_not_inspected = 0; // matching functions past the first 64, left out
};

// Whether a demangled function name belongs to `symbol_prefix`: it starts with it, or it is an OpenMP
// outlined body (contains "._omp_fn.") of a lambda defined in that function (the prefix followed by '('
// inside the name, e.g. `time_team<ns::run(int)::{lambda()#1}>(...) [clone ._omp_fn.0]`).
bool symbol_matches(std::string_view demangled, std::string_view symbol_prefix);

// Pure: parses `objdump -d --no-show-raw-insn -C` text (AT&T syntax) of the functions whose demangled name
// starts with `symbol_prefix`.
CodeInspection parse_objdump(const std::string& objdump_text, const std::string& symbol_prefix);

// Runs objdump on `binary` (restricted to the matching symbols where objdump allows it, e.g. via
// --disassemble=SYM after finding mangled names with `nm`, so it stays fast on the 10+ MB roofcast binary;
// bounded output, timeout) and parses; never throws for a missing tool — fills `unavailable`.
CodeInspection inspect_function(const std::string& binary, const std::string& symbol_prefix);

// The binary of the running process (/proc/self/exe resolved).
std::string self_binary();

} // namespace roofcast::measure
