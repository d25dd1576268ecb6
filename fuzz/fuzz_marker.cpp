// Fuzz target: a marker library output file (marker.<rank>.<pid>.json), as `roofcast profile` reads it.
#include "fuzz_reader.hpp"
#include "measure/profile/marker_file.hpp"

void read_input(const std::string& text) {
    (void)roofcast::measure::profile::parse_marker_file(text, "fuzz");
}
