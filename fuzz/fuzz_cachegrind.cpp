// Fuzz target: valgrind cachegrind's output file (per-function simulated counts), as `roofcast profile` reads
// it.
#include "fuzz_reader.hpp"
#include "measure/profile/cachegrind.hpp"

void read_input(const std::string& text) {
    (void)roofcast::measure::profile::parse_cachegrind(text, "fuzz");
}
