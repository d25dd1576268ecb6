// Importing TAU profiles (TAU's text profile format, as written by TAU and read by its paraprof/pprof):
// a directory of `profile.<node>.<context>.<thread>` files, or one `MULTI__<METRIC>/` subdirectory per
// metric (TIME, PAPI_L1_DCM, ...). Each file: "<n> templated_functions[_MULTI_<METRIC>]", a header
// "# Name Calls Subrs Excl Incl ProfileCalls [<metadata>...</metadata>]", n lines
// `"<name>" <calls> <subrs> <excl> <incl> <profilecalls> GROUP="<groups>"`, then aggregates and user events
// (ignored). The node is the MPI rank; threads of one rank are summed (time: the maximum over threads).
// Exclusive values are imported (the function's own cost); TIME is in microseconds and becomes `time` in
// seconds. TAU call paths "a => b" become "a->b". Pure parser plus a directory reader, both bounded.
#pragma once

#include "core/profile.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_tau_max_functions = 100000;
inline constexpr std::size_t k_tau_max_files = 65536;
inline constexpr std::size_t k_tau_max_file_bytes = 256u << 20;

struct TauFunction {
    std::string name;
    double calls = 0;
    double exclusive = 0;
    double inclusive = 0;
};

struct TauFile {
    std::string metric; // "TIME" for "templated_functions" and "..._MULTI_TIME"
    std::vector<TauFunction> functions;
};

TauFile parse_tau_profile(const std::string& text, const std::string& file);

// The profile.* files of a TAU directory and of its MULTI__<METRIC>/ subdirectories (`metric_hint` the
// METRIC, empty at the top): what import_tau_directory reads, and the inputs `profile -o` must not name.
// InputError naming the path for a directory that is not one or cannot be listed (a symlink loop, no
// permission), or that holds more than k_tau_max_files.
struct TauProfileFile {
    std::filesystem::path path;
    std::string name;
    std::string metric_hint;
};
std::vector<TauProfileFile> tau_profile_files(const std::string& dir);

// Reads a TAU profile directory into a roofcast profile (backend "tau", parameters {"ranks": nodes}).
// InputError when the directory holds no profile.* file.
core::Profile import_tau_directory(const std::string& dir);

} // namespace roofcast::measure::profile
