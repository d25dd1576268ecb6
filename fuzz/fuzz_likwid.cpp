// Fuzz target: likwid-perfctr's marker CSV (`profile --import-likwid`), through the format registry.
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("likwid", text, "fuzz.csv");
}
