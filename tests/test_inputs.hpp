// Helpers shared by the unit tests of every layer: the message of the InputError a call throws, a
// machine file read from YAML text, a profile with every field, and the hand-written machine of
// docs/formats.md (peak 128, effective 112.6 GFLOP/s; L1 512, L2 146, MEM 46 GB/s).
#pragma once

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/profile.hpp"

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

// A version-2 profile with every field `roofcast profile` writes (two ranks, one function with a
// simulated L1_DCM metric), for the profile readers of every layer.
inline core::Profile full_profile() {
    using namespace core;
    Profile p;
    p.parameters = {{"ranks", 2}};
    p.backend = "cachegrind";
    p.backend_reason = "requested";
    p.ranks = 2;
    p.wall_seconds = 1.5;
    p.cores = 2;
    p.cpu_seconds = 2.75;
    p.exit_status = 0;
    p.command = {"./app", "--n", "10"};
    p.settings["caches"] = "D1 49152 B";
    p.warnings = {"a warning"};
    ProfileFunction f{"main->dot", "region", {}};
    ProfileMetric m;
    m.origin = MetricOrigin::simulated;
    m.aggregate = "sum";
    m.unit = "count";
    m.per_rank = {{1, 2}, {3, 4}};
    f.metrics["L1_DCM"] = m;
    p.functions.push_back(f);
    return p;
}

} // namespace roofcast::test
