// Fuzz target: the CSV scaling input of `roofcast scale`, through the format registry (its reader, then the
// normalisation every data set goes through).
#include "fuzz_format.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    read_as("csv", text, "fuzz.csv");
}
