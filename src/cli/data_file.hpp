// Recognises a roofcast data file by its content and loads it: a results file (JSON with kind
// "roofcast-results") or a machine file (YAML with 'compute' and 'levels'). Anything else is a one-line
// core::InputError naming the file and what was expected. Shared by `validate` and `plot`.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"

#include <optional>
#include <string>

namespace roofcast::cli {

struct DataFile {
    std::optional<core::Results> results; // set for a results file
    std::optional<core::Machine> machine; // set for a machine file
};

// Returns a DataFile with exactly one member set, or throws core::InputError.
DataFile load_data_file(const std::string& path);

// True when the text is a JSON object (first non-blank character '{'); roofcast's YAML files never are.
bool looks_like_json(const std::string& text);

} // namespace roofcast::cli
