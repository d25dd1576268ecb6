// Fuzz target: the results file (JSON), as `roofcast validate`, `plot` and `report` read it.
#include "core/nesting.hpp"
#include "core/results.hpp"
#include "fuzz_reader.hpp"

#include <nlohmann/json.hpp>

void read_input(const std::string& text) {
    roofcast::core::check_nesting(text, "fuzz.json");
    (void)roofcast::core::results_from_json(nlohmann::json::parse(text), "fuzz.json");
}
