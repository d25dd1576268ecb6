// Fuzz target: a marker library output file (marker.<rank>.<pid>.json), through the format registry.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("marker", text, "fuzz.json");
}
