// Parsing `perf report --stdio --no-children --sort dso,sym -F overhead,sample,period,dso,sym` output:
// per event section ("# Samples: N of event 'cpu-clock'"), per symbol its share of the samples, the
// sample count and the summed period (for cpu-clock: nanoseconds of CPU time). perf resolves the symbols
// of the program and its shared libraries and demangles C++ itself; names it left mangled are demangled
// here; unresolved addresses ("0x0000...") are kept as "[unknown] <dso>". Pure and bounded (at most
// k_perf_max_symbols symbols per event, lines under k_perf_max_line bytes), InputError on anything else.
#pragma once

#include <cstddef>
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

} // namespace roofcast::measure::profile
