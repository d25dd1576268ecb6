// Parsing `perf report --stdio --no-children --sort dso,sym -F overhead,sample,period,dso,sym` output:
// per event section ("# Samples: N of event 'cpu-clock'"), per symbol its share of the samples, the
// sample count and the summed period (for cpu-clock: nanoseconds of CPU time). perf resolves the symbols
// of the program and its shared libraries and demangles C++ itself; names it left mangled are demangled
// here; unresolved addresses ("0x0000...") are kept as "[unknown] <dso>". Pure and bounded (at most
// k_perf_max_symbols symbols per event, lines under k_perf_max_line bytes), InputError on anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_perf_max_symbols = 200000;
inline constexpr std::size_t k_perf_max_line = 64 * 1024;

struct PerfSymbol {
    std::string name;
    std::string dso;
    bool kernel = false; // "[k]"
    double percent = 0;  // share of the event's samples
    double samples = 0;
    double period = 0;
};

struct PerfEventReport {
    std::string event; // "cpu-clock", "instructions", ...
    double total_samples = 0;
    std::vector<PerfSymbol> symbols;
};

std::vector<PerfEventReport> parse_perf_report(const std::string& text, const std::string& file);

// Where the samples of `perf script -F period,ip,sym,symoff,dso` fell, summed per (dso, symbol, offset):
// a line "  250000  55d4a2c0f1a9 triad+0x29 (/tmp/prog)" adds 250000 (cpu-clock: nanoseconds) to
// ("/tmp/prog", "triad", 0x29). Samples without a symbol ("[unknown]") are left out: they cannot be placed
// in a loop. Bounded like parse_perf_report (k_perf_max_symbols places); InputError on other text.
struct PerfSamplePlace {
    std::string dso, symbol;
    std::uint64_t offset = 0;
    double period = 0;
    double samples = 0;
};
std::vector<PerfSamplePlace> parse_perf_script(const std::string& text, const std::string& file);

// The per-function report of cpu-clock samples placed by parse_perf_script: per (dso, symbol) the samples and
// the period summed, as `perf report --sort dso,sym` sums them, and its share of the places' period (a
// kernel symbol where the dso is perf's "[kernel.kallsyms]"), in order of first appearance.
PerfEventReport cpu_clock_report(const std::vector<PerfSamplePlace>& places);

} // namespace roofcast::measure::profile
