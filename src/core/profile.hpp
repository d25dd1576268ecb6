// The roofcast profile (JSON, `format: roofcast-profile`, version 3; docs/formats-profile.md): what
// `roofcast profile` and the TAU importer write and what `roofcast plot`/`report` place on the roofline.
// One file is one run at one parameter point: per function (or marker region) and metric, the value on
// every rank for every repetition, how to reduce the ranks (`aggregate`) and where the number came from
// (`origin`: counted by hardware or a clock, simulated by cachegrind, sampled by perf, declared by the
// program through the marker API). `roofcast scale` reads these files through analysis/scale/dataset.cpp,
// which ignores the version-2 additions. Contract: profile_to_json() and profile_from_json() round-trip;
// the reader checks every field, bounds the sizes it accepts and throws core::InputError(file, field, ...).
#pragma once

#include "core/doc.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofcast::core {

inline constexpr int k_profile_format_version = 3;
// Limits of the reader (a profile past them is refused, not truncated).
inline constexpr std::size_t k_profile_max_functions = 100000;
inline constexpr std::size_t k_profile_max_ranks = 1 << 20;
inline constexpr std::size_t k_profile_max_repetitions = 1000;
// Ranges of the profile's numbers (docs/formats-profile.md). A run's wall time: core::k_max_run_seconds; its
// cores (ranks x threads): 2^30, a hundred times the largest machine's.
inline constexpr double k_profile_max_wall_seconds = k_max_run_seconds;
inline constexpr double k_profile_max_cores = 1073741824.0;
// Processor time of a run: at most its wall time on every core.
inline constexpr double k_profile_max_cpu_seconds = k_profile_max_wall_seconds * k_profile_max_cores;
// A parameter (ranks, a problem size): a value a program holds in a 64-bit integer, 2^63 in magnitude.
inline constexpr double k_profile_max_parameter = 9223372036854775808.0;
// A metric's value (a count, a time, flops, bytes): core::k_max_events.
inline constexpr double k_profile_max_value = k_max_events;

// How a metric's ranks are reduced to one value per repetition (`aggregate`, docs/formats-profile.md): the
// one list of names every reader of per-rank values checks against (core::expected_one_of).
inline constexpr std::array<std::string_view, 4> k_rank_aggregates{"sum", "mean", "max", "min"};
bool is_rank_aggregate(std::string_view how);
// One repetition's per-rank values reduced with `how` (one of k_rank_aggregates); 0 for no values.
double reduce_ranks(const std::vector<double>& values, std::string_view how);

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
    // Median over repetitions of the processor time (user + system) of the launched process tree: what the
    // run consumed, independent of waiting for a core (an oversubscribed or loaded machine). Optional.
    std::optional<double> cpu_seconds;
    int repetitions = 1;
    std::vector<std::string> command; // the profiled program and its arguments
    std::optional<int> exit_status;   // of the program (0: profiles are written for successful runs)
    std::map<std::string, std::string> settings; // backend settings (cache geometry, events, ...)
    std::vector<std::string> warnings;           // marker warnings, differing function sets, ...
    std::vector<ProfileFunction> functions;
};

nlohmann::json profile_to_json(const Profile& p);
// Reads version 1 and 2 (version 1 has no origins: they are read as `counted`). `unread_keys`, when given,
// receives the keys of the document that the format does not read, as paths ("functions[0].knd").
Profile profile_from_json(const nlohmann::json& j, const std::string& file,
                          std::vector<std::string>* unread_keys = nullptr);
// The text of a profile file already read (`file` names it in errors); load_profile reads it from `path`.
Profile profile_from_text(const std::string& text, const std::string& file,
                          std::vector<std::string>* unread_keys = nullptr);
Profile load_profile(const std::string& path, std::vector<std::string>* unread_keys = nullptr);

// Before a profile is written (`roofcast profile`, with --import-tau too), so that roofcast never writes a
// file its own reader and `roofcast validate` refuse: a metric value outside 0..k_profile_max_value (a TAU
// time of inf, declared work of 1e300, a negative counter) becomes NaN, "not measured" to every reader,
// with one warning per metric (the count and the first function); a wall or processor time out of range
// is left out with a warning. Throws Error, naming the figure, for what cannot be left out: more functions,
// ranks, threads or cores than a profile holds, a parameter out of range. The warnings added are also
// appended to p.warnings.
std::vector<std::string> fit_profile_to_format(Profile& p);
// The file's text (names that are not UTF-8 get U+FFFD), read back with the reader before it is returned:
// Error "would not read back" naming the field where the reader refuses it. `path` names it in that error.
std::string profile_file_text(const Profile& p, const std::string& path);

// The ranges of a parameter's value (finite, at most k_profile_max_parameter in magnitude) and of a metric's
// value (NaN, which readers drop with a note, or 0 .. k_profile_max_value): `v`, or InputError(file, field).
// Shared with `roofcast scale`'s reader of the same format.
double check_profile_parameter(double v, const std::string& file, const std::string& field);
double check_profile_value(double v, const std::string& file, const std::string& field);
// The range check_profile_value holds a metric's value to, without an error (for a reader that names the
// field only when the value is out of range).
inline bool profile_value_in_range(double v) {
    return std::isnan(v) || (v >= 0 && v <= k_profile_max_value);
}
// run.cpu_seconds: 0 .. k_profile_max_cpu_seconds, or InputError(file, field).
double check_profile_cpu_seconds(double v, const std::string& file, const std::string& field);

} // namespace roofcast::core
