// Fuzz target: the roofcast-profile JSON (versions 1 and 2) as `roofcast validate`, `plot` and `report`
// read it through core::profile_from_json.
#include "core/nesting.hpp"
#include "core/profile.hpp"
#include "fuzz_reader.hpp"

#include <nlohmann/json.hpp>

void read_input(const std::string& text) {
    roofcast::core::check_nesting(text, "fuzz.json");
    (void)roofcast::core::profile_from_json(nlohmann::json::parse(text), "fuzz.json");
}
