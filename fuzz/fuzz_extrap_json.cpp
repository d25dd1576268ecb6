// Fuzz target: Extra-P JSON, a scaling input of `roofcast scale`, through the format registry.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("extrap-json", text, "fuzz.json");
}
