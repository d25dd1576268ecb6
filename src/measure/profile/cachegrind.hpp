// Reading valgrind's cachegrind output and choosing the simulated cache geometry.
//
// parse_cachegrind() reads a `cachegrind.out.<pid>` file (valgrind's documented format, Cachegrind
// manual §"Cachegrind output file format": `desc:`/`cmd:` lines, one `events:` line naming the columns,
// then `fl=` file and `fn=` function lines each followed by cost lines "<line> <count>..." where missing
// trailing counts are zero, and a final `summary:` line) into per-function event totals. Names are
// demangled when they are still mangled (`--demangle=no`). Pure, bounded: a file with more than
// k_max_functions functions or a line longer than k_max_line is an InputError, never a crash.
//
// cache_geometry() turns a cache's size/associativity/line into one valgrind accepts (the number of sets
// must be a power of two): the nearest valid size, with the change stated in `note`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_cachegrind_max_functions = 200000;
inline constexpr std::size_t k_cachegrind_max_line = 64 * 1024;

struct CachegrindCounts {
    std::vector<std::string> events;                                  // as on the `events:` line
    std::map<std::string, std::map<std::string, double>> by_function; // function -> event -> count
    std::map<std::string, double> summary;                            // the `summary:` line (or the totals)
};

CachegrindCounts parse_cachegrind(const std::string& text, const std::string& file);

// The metrics roofcast reports for one function: INS (Ir), L1_DCM (D1mr + D1mw) and its parts
// L1_DCM_read/L1_DCM_write, LL_MISS (DLmr + DLmw, data misses of the last level), L1_DCA (Dr + Dw, data
// accesses), LL_MISS_BYTES (LL_MISS x line: the memory traffic the simulation implies).
std::map<std::string, double> cachegrind_metrics(const std::map<std::string, double>& events,
                                                 std::uint32_t ll_line_bytes);

struct CacheGeometry {
    std::uint64_t size_bytes = 0;
    int associativity = 1;
    std::uint32_t line_bytes = 64;
    std::string note;                 // non-empty when the geometry was changed to fit valgrind
    std::string valgrind_arg() const; // "size,assoc,line"
};

// Nearest geometry with a power-of-two number of sets (valgrind's requirement): keeps the line size,
// tries associativities near the requested one and picks the size closest to `size_bytes` (relative).
CacheGeometry cache_geometry(const std::string& level, std::uint64_t size_bytes, int associativity,
                             std::uint32_t line_bytes);

// True when a valgrind log shows it could not decode the program's instructions (valgrind 3.19 and AVX-512):
// "unhandled instruction bytes" or the program ending with SIGILL under valgrind.
bool valgrind_decode_failure(const std::string& log);

// C++ demangling (abi::__cxa_demangle) of a name that is mangled ("_Z..."); other names unchanged.
std::string demangle(const std::string& name);

} // namespace roofcast::measure::profile
