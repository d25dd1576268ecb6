// Fuzz target: the machine file (YAML), through the format registry as `roofcast validate` and `plot` read
// it.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("machine", text, "fuzz.yaml");
}
