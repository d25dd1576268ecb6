// Access to the hand-made report fixtures (tests/report/data, written by make_fixtures.py): a 2-core
// AVX-512 machine with L1/L2/L3/MEM and a results file with six kernels predicted by four models.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"

#include <string>

namespace roofcast::test {

inline std::string fixture(const std::string& name) {
    return std::string(ROOFCAST_SOURCE_DIR) + "/tests/report/data/" + name;
}

inline core::Machine fixture_machine() {
    return core::load_machine(fixture("machine.yaml"));
}

inline core::Results fixture_results() {
    return core::load_results(fixture("results.json"));
}

} // namespace roofcast::test
