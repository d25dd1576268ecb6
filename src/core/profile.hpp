// The roofcast profile (JSON, `format: roofcast-profile`, version 2; docs/formats-profile.md): what
// `roofcast profile` and the TAU importer write and what `roofcast plot`/`report` place on the roofline.
// One file is one run at one parameter point: per function (or marker region) and metric, the value on
// every rank for every repetition, how to reduce the ranks (`aggregate`) and where the number came from
// (`origin`: counted by hardware or a clock, simulated by cachegrind, sampled by perf, declared by the
// program through the marker API). `roofcast scale` reads these files through model/scale/dataset.cpp,
// which ignores the version-2 additions. Contract: profile_to_json() and profile_from_json() round-trip;
// the reader checks every field, bounds the sizes it accepts and throws core::InputError(file, field, ...).
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::core {

inline constexpr int k_profile_format_version = 2;
// Limits of the reader (a profile past them is refused, not truncated).
inline constexpr std::size_t k_profile_max_functions = 100000;
inline constexpr std::size_t k_profile_max_ranks = 1 << 20;
inline constexpr std::size_t k_profile_max_repetitions = 1000;

enum class MetricOrigin { counted, simulated, sampled, declared };
std::string to_string(MetricOrigin o);
std::optional<MetricOrigin> metric_origin_from_string(const std::string& s);

struct ProfileMetric {
    MetricOrigin origin = MetricOrigin::counted;
    std::string aggregate = "sum"; // how ranks are reduced: sum, mean, max, min
    std::string unit;              // "count", "seconds", "flop", "byte", "percent"
    // per_rank[repetition][rank]
    std::vector<std::vector<double>> per_rank;
    // The value `roofcast scale` uses for one repetition (ranks reduced with `aggregate`).
    double reduced(std::size_t repetition) const;
    // Mean over repetitions of reduced().
    double reduced_mean() const;
};

struct ProfileFunction {
    std::string name;              // function or marker call path ("main->solve->dot")
    std::string kind = "function"; // "function" (backend symbol) or "region" (marker)
    std::map<std::string, ProfileMetric> metrics;
};

struct Profile {
    int format_version = k_profile_format_version;
    std::vector<std::pair<std::string, double>> parameters; // 1 or 2, e.g. {"ranks", 4}
    std::string backend;                                    // papi, perf, cachegrind, time, tau
    std::string backend_reason;                             // why this backend (auto) or "requested"
    int ranks = 1;
    int threads = 1;
    std::optional<double> wall_seconds; // median over repetitions of the launch-to-exit time
    std::optional<double> cores;        // ranks x threads
    int repetitions = 1;
    std::vector<std::string> command; // the profiled program and its arguments
    std::optional<int> exit_status;   // of the program (0: profiles are written for successful runs)
    std::map<std::string, std::string> settings; // backend settings (cache geometry, events, ...)
    std::vector<std::string> warnings;           // marker warnings, differing function sets, ...
    std::vector<ProfileFunction> functions;
};

nlohmann::json profile_to_json(const Profile& p);
// Reads version 1 and 2 (version 1 has no origins: they are read as `counted`).
Profile profile_from_json(const nlohmann::json& j, const std::string& file);
Profile load_profile(const std::string& path);

} // namespace roofcast::core
