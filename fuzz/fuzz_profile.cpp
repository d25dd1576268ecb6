// Fuzz target: the roofcast profile through the format registry: the reader of `plot` and `report`
// (core::profile_from_text) and the series `roofcast scale` reads of it.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("roofcast-profile", text, "fuzz.json");
}
