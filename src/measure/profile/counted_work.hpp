// The join behind the callgrind backend: callgrind's executed counts per instruction (callgrind.hpp) times
// what each instruction does, read from roofcast's own disassembly (instruction_work.hpp), summed per
// function and per innermost loop. Pure: no tool is run here, so the join is tested on fixtures.
//
// Per instruction address a: flops = count(a) x lanes x operations (FMA = 2), bytes_L1 = count(a) x the
// bytes its memory operands move (the cache-aware roofline's core-side traffic). The simulated cache events
// of an instruction (misses, dirty misses) are summed alongside, so a function's or a loop's traffic per
// level is the sum over its own instructions. A loop is the range [target, branch] of a backward jump that
// ran; innermost = no other backward jump that ran lies strictly inside it. Its iterations are the
// executions of that branch, its entries the executions that fell through (a loop left through its back
// edge: the loops compilers emit for counted loops), its trip count their ratio.
#pragma once

#include "measure/instruction_work.hpp"
#include "measure/profile/callgrind.hpp"
#include "measure/profile/perf_report.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace roofcast::measure::profile {

struct CountedWork {
    double instructions = 0;           // executed instructions (callgrind's Ir)
    double flops_dp = 0, flops_sp = 0; // counted floating-point operations
    double bytes_loaded = 0, bytes_stored = 0;
    double unknown_width = 0;             // executions of memory instructions whose width is unknown
    double unmatched = 0;                 // executions at addresses the disassembly did not decode
    std::map<std::string, double> events; // callgrind's other events summed (D1mr, DLmw, DLdmr, ...)
    int vector_bits = 0;                  // widest FP arithmetic executed
    double flops() const { return flops_dp + flops_sp; }
    double bytes_l1() const { return bytes_loaded + bytes_stored; }
};

struct CountedLoop {
    std::string object, function;
    std::uint64_t begin = 0, end = 0; // the backward jump's target .. the jump
    std::string file;                 // source file and line of the back edge ("" without debug information)
    std::int64_t line = 0;
    std::vector<std::string> sources; // the source files:lines of its instructions (inlined code included)
    double iterations = 0;            // executions of the back edge
    double entries = 0;               // executions that left the loop through it
    CountedWork work;
};

struct CountedFunction {
    std::string object, name, file;
    CountedWork work;
    // Per source line of its instructions (file index into CallgrindData::files, line; 0 without debug
    // information): what KCachegrind and callgrind_annotate show beside the source.
    std::map<std::pair<std::size_t, std::int64_t>, CountedWork> lines;
};

struct CountedProgram {
    std::vector<std::string> files;         // CountedFunction::lines' file indices (callgrind's names)
    std::vector<CountedFunction> functions; // in callgrind's order
    std::vector<CountedLoop> loops;         // innermost loops that ran, by function
    double unmatched = 0, executed = 0;     // executions not decoded / all executions
};

// Per object path: address -> what the instruction does.
using WorkTable = std::unordered_map<std::uint64_t, InstructionWork>;

// `events` of every callgrind instruction are read by name from data.events; "Ir" is the execution count.
CountedProgram count_work(const CallgrindData& data, const std::map<std::string, WorkTable>& work);

// Adds one simulation's events (another callgrind run of the same program with other cache geometry) to
// the functions and loops of `into` under the prefix `prefix` ("L2." -> "L2.DLmr"): the executed counts
// are the same in every run of a deterministic program, so addresses match.
void add_simulated_events(CountedProgram& into, const CallgrindData& data, const std::string& prefix);

// The bytes a simulated level serves: (LL read misses + LL write misses + LL dirty misses) x line, from the
// events of the simulation added under `prefix` (add_simulated_events).
double simulated_level_bytes(const CountedWork& w, const std::string& prefix, double line_bytes);

// Symbol name -> address in its object, from `nm -C --defined-only OBJECT` ("0000000000001150 T triad");
// a name defined at two addresses (local symbols of two files) is left out: a sample there cannot be placed.
std::map<std::string, std::uint64_t> parse_symbol_addresses(const std::string& nm_text);

// Whether two names of a loaded object are the same object: the same path, or the same file name (valgrind
// and perf name an object by the path it was loaded from, the command by the path it was given).
bool same_object(const std::string& a, const std::string& b);

// A loop's sampled time: the periods of the samples that fell in it (seconds) and how many they were.
struct SampledTime {
    double seconds = 0;
    double samples = 0;
};
// The sampled time of each loop of `p` (in p.loops' order) from a native run's perf samples
// (parse_perf_script, cpu-clock periods in nanoseconds): a sample at symbol + offset in object O lies at
// symbols[O][symbol] + offset, and counts for the innermost loop of O whose [begin, end] holds it. Objects
// match by path, else by file name. Samples outside every loop count for their function alone.
std::vector<SampledTime>
loop_sampled_time(const CountedProgram& p, const std::vector<PerfSamplePlace>& samples,
                  const std::map<std::string, std::map<std::string, std::uint64_t>>& symbols);

// The name the counted run gives the function that perf sampled as `symbol` in object `dso`: a function of
// p in the same object at the same address (symbols[O], as loop_sampled_time reads them) under another
// name, such as glibc's memcpy and memmove, which share their code; `symbol` itself where none is.
std::string counted_name_of(const CountedProgram& p,
                            const std::map<std::string, std::map<std::string, std::uint64_t>>& symbols,
                            const std::string& dso, const std::string& symbol);

// The counts in callgrind's format (valgrind manual, "Callgrind Format Specification"), so that
// KCachegrind and callgrind_annotate show them per source line: events Ir, Flops, Flops_DP, Flops_SP,
// Bytes_L1 and one Bytes_<level> per entry of `levels` (the level a simulation prefix's misses are
// served by: {"L1.", "L2"} means the events "L1.DLmr" … give Bytes_L2), self cost per (object, file,
// function, line).
std::string callgrind_text(const CountedProgram& p,
                           const std::vector<std::pair<std::string, std::string>>& levels, double line_bytes,
                           const std::string& command);

// The address ranges [first, last] objdump reads for these executed addresses: one call per run of
// addresses, split where code that never ran is wide enough to cost more to read than a call does, and at
// most a bounded number of calls per object (the narrowest gaps are read through).
std::vector<std::pair<std::uint64_t, std::uint64_t>> disassembly_ranges(std::vector<std::uint64_t> addresses);

} // namespace roofcast::measure::profile
