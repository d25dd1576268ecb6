// Fuzz target: the machine file (YAML), as `roofcast validate`/`predict --machine` read it.
#include "core/doc.hpp"
#include "core/machine.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    const auto root = roofcast::core::YamlField::load_text(text, "fuzz.yaml");
    (void)roofcast::core::machine_from_yaml(root);
}
