// Reading valgrind's callgrind output: self cost per executed instruction, and the jumps and calls
// between them, per function.
//
// parse_callgrind() reads a `callgrind.out.<pid>` file in the format of valgrind's manual, "Callgrind Format
// Specification" (valgrind 3.19, docs/html/cl-format.html), as callgrind writes it (callgrind/dump.c):
// - header lines `version:`, `creator:`, `cmd:`, `pid:`, `part:`, `desc:`, `event:`, `positions:` (any of
//   `instr`, `bb`, `line` in that order; `line` when absent), `events:`, `summary:` and `totals:`;
// - position lines `ob=`, `fl=`, `fi=`, `fe=`, `fn=` (the cost lines that follow belong to them) and the
//   call target's `cob=`, `cfi=`/`cfl=`, `cfn=`, the jump target's `jfi=`/`jfn=`; each name may be
//   compressed: `fn=(12) name` makes 12 stand for name, `fn=(12)` reuses it, with one id space for objects
//   (ob, cob), one for files (fl, fi, fe, cfi, cfl, jfi) and one for functions (fn, cfn, jfn, frfn);
// - cost lines: one subposition per `positions:` entry, absolute (`0x1a2b`, `42`) or relative to the
//   same subposition of the previous cost line (`+3`, `-23`, `*` = the same), then one count per event,
//   missing trailing counts being zero;
// - `calls=COUNT TARGET`: the one cost line after it holds the call's source position and the inclusive
//   cost of the call, which is not the caller's self cost (kept apart, in `calls`);
// - `jump=COUNT TARGET` and `jcnd=TAKEN/EXECUTED TARGET` (the order callgrind writes, dump.c's
//   fprint_jcc: "jcnd=<followed>/<executions>"; the manual's grammar spells `jcnd=EXECUTED TAKEN TARGET`
//   with a space, read as such): the position line after it is the jump's source. A target's relative
//   subpositions are relative to the previous cost line and do not move it (dump.c prints the target
//   without updating its last position).
// Several parts (`part:` or a new `events:` line: `--dump-every-bb`, `--combine-dumps=yes`, or dumps
// appended one after another) are summed; every part must have the same events and positions. A
// function is one object and one name: the same name in two objects is two functions, and callgrind's
// recursion levels of one function (`fib'2`, `--separate-recs`) are that function. Names are demangled
// when still mangled (`--demangle=no`).
//
// Pure and bounded: more than k_callgrind_max_functions functions (or names in one id space), more than
// k_callgrind_max_events events, more than k_callgrind_max_instructions instruction addresses, jumps or
// calls kept, or a line longer than k_callgrind_max_line is an InputError naming the label and the line;
// a malformed number, position or line is an InputError "line N: expected ...", never a crash.
#pragma once

#include "core/profile.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_callgrind_max_functions = 200000;
inline constexpr std::size_t k_callgrind_max_line = 64 * 1024;
inline constexpr std::size_t k_callgrind_max_instructions = 20000000; // executed instruction addresses kept
inline constexpr std::size_t k_callgrind_max_events = 64;             // callgrind writes at most ~25
inline constexpr std::size_t k_callgrind_max_arcs = 20000000;         // jumps and calls kept, together

struct CallgrindInstruction {
    std::uint64_t address = 0;  // as in the object file (callgrind removes the load offset)
    std::int64_t line = 0;      // 0: no line information
    std::size_t file = 0;       // index into CallgrindData::files ("" / "???" allowed)
    std::vector<double> events; // self cost, same order as CallgrindData::events
};

struct CallgrindJump {
    std::uint64_t from = 0, to = 0;          // instruction addresses (0 without `instr` positions)
    std::int64_t from_line = 0, to_line = 0; // source lines
    double executed = 0, taken = 0;          // unconditional: both the jump's count
    bool conditional = true;
};

struct CallgrindCall {
    std::uint64_t from = 0;        // address of the calling instruction (0 without `instr` positions)
    std::int64_t line = 0;         // its source line
    std::size_t callee = 0;        // index into CallgrindData::functions
    double count = 0;              // calls made
    std::vector<double> inclusive; // cost of those calls, callee and everything it called
};

struct CallgrindFunction {
    std::string object;   // ob= (path of the ELF object)
    std::string name;     // fn=, demangled
    std::size_t file = 0; // fl= of the function
    // Self cost only, sorted by address, one entry per address (costs of repeated positions summed; an
    // inlined fi=/fe= file switch keeps the line's own file). Without `instr` positions: one entry per
    // (file, line), address 0.
    std::vector<CallgrindInstruction> instructions;
    // Sorted by (from, to, from_line, to_line), one entry per arc (per pair of addresses, or of lines without
    // `instr` positions) and kind, counts summed.
    std::vector<CallgrindJump> jumps;
    std::vector<CallgrindCall> calls; // sorted by (from, line, callee), counts summed
};

struct CallgrindData {
    std::string command; // cmd:
    std::vector<std::string> events;
    std::vector<std::string> files; // files[0] is "": no fl= given
    // In the order they first appear, as a cost line's function or as a callee (a callee without self
    // cost in this file has no instructions).
    std::vector<CallgrindFunction> functions;
    // summary: of each part (its totals: where it has none, else the sum of its cost lines), parts summed.
    std::vector<double> summary;
    std::vector<double> totals; // totals: of every part summed; empty unless every part has one
    std::size_t parts = 0;
    bool has_instructions = false; // positions include `instr`
};

// The bounds parse_callgrind() enforces; smaller ones let a test reach each bound with a small file.
struct CallgrindLimits {
    std::size_t functions = k_callgrind_max_functions; // also names per id space and source files
    std::size_t line = k_callgrind_max_line;
    std::size_t instructions = k_callgrind_max_instructions;
    std::size_t events = k_callgrind_max_events;
    std::size_t arcs = k_callgrind_max_arcs;
};

CallgrindData parse_callgrind(const std::string& text, const std::string& label,
                              const CallgrindLimits& limits = {});

// A callgrind file (valgrind's, or roofcast's --callgrind-out) as a profile of one run at ranks = 1: per
// function its self cost, valgrind's events as the cachegrind backend's metrics (INS, L1_DCM, LL_MISS, ...)
// and roofcast's own events as flops, flops_dp, flops_sp and bytes_<level>; a function of another object
// than the command's program is kind "library". InputError as parse_callgrind, or when no function has costs.
core::Profile profile_from_callgrind(const std::string& text, const std::string& file);
// Whether text starts like a callgrind file (its "# callgrind format" line, a callgrind creator, or the
// positions: and events: headers); cheap and never throws.
bool looks_like_callgrind(std::string_view text);

} // namespace roofcast::measure::profile
