// Helpers shared by the unit tests of every layer: the message of the InputError a call throws, a
// machine file read from YAML text, and the hand-written machine of docs/formats.md (peak 128,
// effective 112.6 GFLOP/s; L1 512, L2 146, MEM 46 GB/s).
#pragma once

#include "core/error.hpp"
#include "core/machine.hpp"

#include <string>

namespace roofcast::test {

// what() of the core::InputError that f() throws; "(no error)" when it throws none.
template <class F> std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const core::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

inline core::Machine machine_from(const std::string& text) {
    return core::machine_from_yaml(core::YamlField::load_text(text, "m.yaml"));
}

inline constexpr const char* k_published_machine = R"(format_version: 1
name: some-published-system
compute:
  peak_gflops: {double: 128}
  effective_gflops: {double: 112.6}
levels:
  - {name: L1, bandwidth_gbs: 512}
  - {name: L2, bandwidth_gbs: 146}
  - {name: MEM, bandwidth_gbs: 46}
)";

} // namespace roofcast::test
