#include "cli/app.hpp"

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "roofcast/version.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <fmt/format.h>

namespace roofcast::cli {

void define_app(CLI::App& app) {
    app.description(
        "roofcast: how fast your code can run on this machine, what limits it, and how it scales");
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
    add_convert_command(app);
}

int run(int argc, char** argv) {
    CLI::App app;
    define_app(app);
    // A caught SIGINT, SIGTERM or SIGHUP (core/interrupt.hpp) ends the command however it unwinds: one
    // line and the status a shell gives a process the signal ended (130, 143, 129).
    const auto stopped = [] {
        const int sig = core::interrupt_signal();
        fmt::print(stderr,
                   "roofcast: stopped by {}: the programs it started were stopped and its temporary "
                   "files removed\n",
                   core::signal_name(sig));
        return 128 + sig;
    };
    try {
        app.parse(argc, argv);
    } catch (const core::Interrupted&) {
        return stopped();
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);
        fmt::print(stderr, "roofcast: error: {}\n", core::terminal_safe(e.what()));
        fmt::print(stderr, "Run with --help for usage.\n");
        return 2;
    } catch (const core::InputError& e) {
        if (core::interrupt_signal() != 0)
            return stopped();
        fmt::print(stderr, "roofcast: error: {}\n", describe(e));
        return 1;
    } catch (const core::Error& e) {
        if (core::interrupt_signal() != 0)
            return stopped();
        fmt::print(stderr, "roofcast: error: {}\n", core::terminal_safe(e.what()));
        return 1;
    } catch (const std::exception& e) {
        if (core::interrupt_signal() != 0)
            return stopped();
        fmt::print(stderr, "roofcast: error: {}\n", core::terminal_safe(e.what()));
        return 1;
    }
    return core::interrupt_signal() != 0 ? stopped() : 0;
}

} // namespace roofcast::cli
