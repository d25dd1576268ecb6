// The machine a command uses (docs/design.md, "One rule for this host's machine file"): --machine FILE when
// given; else this host's cached machine file (the one `roofcast run` writes) when it describes this host
// (measure::differs_from_this_host, the one rule); else, for the commands that can measure, a quick
// measurement of this host, cached for the next command; none with --no-machine. Every choice is said in
// one line on stderr. Used by run, predict, stencil, threads, profile, plot and report: one helper, never
// a copy per command.
#pragma once

#include "core/machine.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace roofcast::cli {

struct MachineArgs {
    std::string file;  // --machine FILE
    bool none = false; // --no-machine
};

// What a command does when no --machine is given and no cached file describes this host.
enum class WithoutCache {
    measure, // measure a quick one, saying so, and cache it (predict, stencil, threads, profile)
    none,    // use none: the caller says what it needs (plot and report, which never measure)
};

// Adds --machine FILE (`help` says what the command uses it for) and --no-machine.
void add_machine_options(CLI::App* cmd, MachineArgs& a, const std::string& help,
                         WithoutCache without = WithoutCache::measure);

struct UsedMachine {
    core::Machine machine;
    std::string path; // the file it was read from or cached in
};

// The machine to use, or nullopt with --no-machine (and, WithoutCache::none, without a cached file of this
// host). `read` loads a given FILE (default read_machine_file). Throws InputError for --machine with
// --no-machine and for a FILE that does not read.
std::optional<UsedMachine> use_machine(const MachineArgs& a, WithoutCache without,
                                       const std::function<core::Machine(const std::string&)>& read = {});

// The machine a profile's regions are placed under (plot and report): --machine FILE (a machine file or a
// results file with one), else this host's cached file; never a measurement. InputError naming
// `profile_file` when there is none.
core::Machine machine_for_profile(const MachineArgs& a, const std::string& profile_file);

// This host's machine cache: $XDG_CACHE_HOME/roofcast/machine-<host name>.yaml, else under ~/.cache.
std::filesystem::path host_machine_cache_path();

// The cached file at `cache` when it exists, reads and describes this host. A file that does not is
// named on stderr with the first field that differs and `then` ("measuring this one").
std::optional<core::Machine> cached_host_machine(const std::filesystem::path& cache, const std::string& then);

// Measures this host (quick mode unless `full`), with `why` and the progress on stderr, and caches the
// file at `cache` (a cache that cannot be written is a warning, never a failure of the command).
core::Machine measure_host_machine(bool full, const std::filesystem::path& cache, const std::string& why);

// A progress line on stderr: overwritten in place on a terminal, one line each otherwise.
void status_line(const std::string& line);

} // namespace roofcast::cli
