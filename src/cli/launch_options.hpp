// The options every command that launches programs shares (profile, threads --command, stencil):
// --timeout, and the output checks of a command that runs programs or reads files before it writes
// (docs/reliability.md, "no output destroys what it lands on" and "nothing measures before failing"), made
// before anything is launched, so that a bad -o costs no run and never replaces what the command reads.
#pragma once

#include "cli/host_machine.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace roofcast::cli {

// core::check_output_writable, then core::ensure_distinct_output against `inputs`: InputError naming
// `field` for an empty name, a directory, an unwritable directory or a file the command reads.
void check_command_output(const std::string& path, const std::string& field,
                          const std::vector<std::string>& inputs);

// The files a launched program reads as far as roofcast can tell: the program itself (as given when it
// holds a '/', else found on $PATH) and every argument that names an existing file.
std::vector<std::string> program_inputs(const std::vector<std::string>& command);

// The machine file a command reads: --machine FILE, else this host's cached file (none with --no-machine).
std::vector<std::string> machine_inputs(const MachineArgs& a);

// The longest --timeout accepted: core::k_max_run_seconds (about 116 days).
inline constexpr double k_max_timeout_s = 1e7;

// Adds --timeout SECONDS (0 = no limit) to `cmd`; `what` says what is stopped ("a run of the program"),
// `seconds` holds the default on entry, which the help states.
void add_timeout_option(CLI::App* cmd, double& seconds, const std::string& what);

// InputError naming --timeout unless 0 <= seconds <= k_max_timeout_s (a negative or NaN value used to reach
// the launcher, which failed behind mpirun's banner).
void check_timeout(double seconds);

} // namespace roofcast::cli
