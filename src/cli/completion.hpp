// The shell-facing description of the command line, generated from its CLI11 definition (define_app) so that
// the installed bash completion and man pages list exactly the subcommands and options roofcast parses.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace roofcast::cli {

// One option of a command as the shell sees it: its spellings and whether a value follows it.
struct ShellOption {
    std::vector<std::string> names; // "--machine", "-m"
    bool takes_value = false;
    std::vector<std::string> choices; // the values an IsMember check accepts ("weak", "strong"); empty: any
};

struct ShellCommand {
    std::string name; // empty for the top level
    std::string description;
    std::vector<ShellOption> options;
};

// Names the values an option takes, as an IsMember check would show them ("TEXT:{a,b}" in --help, the man
// page and the completion's choices), where roofcast checks the value itself for its own one-line error.
CLI::Option* offer_choices(CLI::Option* opt, const std::vector<std::string>& choices);

// The top level first, then every subcommand in definition order; option groups are folded into their
// command and options without a flag name (positionals) are left out.
std::vector<ShellCommand> shell_commands(const CLI::App& app);

// A bash completion script (bash-completion's `complete -F` form) for the command `program`: subcommands
// after the program name, each command's options after a '-', an option's choices after it where it has a
// fixed set, file names for other option values and positionals.
std::string bash_completion(const std::vector<ShellCommand>& commands, const std::string& program);

} // namespace roofcast::cli
