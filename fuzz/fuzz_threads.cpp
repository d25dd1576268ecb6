// Fuzz target: the threads results file (JSON), as `roofcast threads --from`, `report` and `validate` read
// it.
#include "core/nesting.hpp"
#include "fuzz_reader.hpp"
#include "model/threads/data.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

void read_input(const std::string& text) {
    roofcast::core::check_nesting(text, "fuzz.json");
    std::vector<std::string> unread;
    (void)roofcast::model::threads::data_from_json(nlohmann::json::parse(text), "fuzz.json", &unread);
}
