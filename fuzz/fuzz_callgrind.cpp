// Fuzz target: valgrind callgrind's output file (per-instruction self costs, calls and jumps), as `roofcast
// profile --backend callgrind` reads it.
#include "fuzz_reader.hpp"
#include "measure/profile/callgrind.hpp"

void read_input(const std::string& text) {
    (void)roofcast::measure::profile::parse_callgrind(text, "fuzz");
}
