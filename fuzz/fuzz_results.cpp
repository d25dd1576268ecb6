// Fuzz target: the results file (JSON), through the format registry as `roofcast validate`, `plot` and
// `report` read it.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("results", text, "fuzz.json");
}
