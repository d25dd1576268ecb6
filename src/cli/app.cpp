#include "cli/app.hpp"

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "roofcast/version.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <fmt/format.h>

namespace roofcast::cli {

int run(int argc, char** argv) {
    CLI::App app{"roofcast: how fast your code can run on this machine, what limits it, and how it scales"};
    app.set_version_flag("--version", std::string("roofcast ") + k_version);
    app.require_subcommand(1);
    app.fallthrough();
    add_validate_command(app);
    add_predict_command(app);
    add_scale_command(app);
    add_plot_command(app);
    add_report_command(app);
    add_bench_command(app);
    add_run_command(app);
    add_machine_command(app);
    add_bandwidth_command(app);
    add_ceiling_command(app);
    add_threads_command(app);
    add_stencil_command(app);
    add_profile_command(app);
    add_inspect_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);
        fmt::print(stderr, "roofcast: error: {}\n", core::terminal_safe(e.what()));
        fmt::print(stderr, "Run with --help for usage.\n");
        return 2;
    } catch (const core::InputError& e) {
        fmt::print(stderr, "roofcast: error: {}\n", describe(e));
        return 1;
    } catch (const core::Error& e) {
        fmt::print(stderr, "roofcast: error: {}\n", core::terminal_safe(e.what()));
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "roofcast: error: {}\n", core::terminal_safe(e.what()));
        return 1;
    }
    return 0;
}

} // namespace roofcast::cli
