// Fuzz target: the threads results file (JSON), through the format registry as `roofcast threads --from`,
// `report` and `validate` read it.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("threads", text, "fuzz.json");
}
