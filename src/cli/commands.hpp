// Registration functions of the subcommands; each lives in its own cmd_*.cpp and stays thin:
// parse options, call the library layers, print. Errors are thrown, never printed here.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>

namespace roofcast::cli {

// The whole command line: description, --version and every subcommand below. run() parses with it; the
// man pages and the bash completion are generated from it (cli/completion.hpp), so they cannot drift.
void define_app(CLI::App& app);

// A subcommand whose options fill one `Args`, shared with the callback that CLI11 calls after parsing and
// that runs `run(args)`: add the options to the returned App, writing into the returned Args.
template <class Args>
std::pair<CLI::App*, std::shared_ptr<Args>> add_command(CLI::App& app, const std::string& name,
                                                        void (*run)(const Args&),
                                                        const std::string& description) {
    auto args = std::make_shared<Args>();
    CLI::App* cmd = app.add_subcommand(name, description);
    cmd->callback([args, run] { run(*args); });
    return {cmd, args};
}

void add_validate_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_scale_command(CLI::App& app);
void add_plot_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_machine_command(CLI::App& app);
void add_bandwidth_command(CLI::App& app);
void add_ceiling_command(CLI::App& app);
void add_threads_command(CLI::App& app);
void add_stencil_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_convert_command(CLI::App& app);

} // namespace roofcast::cli
