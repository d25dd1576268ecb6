#include "cli/commands.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "cli/threads_report.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/profile.hpp"
#include "model/profile_regions.hpp"
#include "report/html.hpp"
#include "report/profile_regions.hpp"

#include <fmt/format.h>

namespace roofcast::cli {

void add_report_command(CLI::App& app) {
    struct Options {
        std::string file;
        std::string dir = "roofcast-report";
        MachineArgs machine; // for a profile
    };
    auto opts = std::make_shared<Options>();
    auto* cmd =
        app.add_subcommand("report", "Write the HTML report and charts of a results file into a directory");
    cmd->add_option("FILE", opts->file,
                    "results file (JSON) written by roofcast run, bench or threads --json")
        ->required();
    cmd->add_option("-o,--output", opts->dir, "directory to write (default roofcast-report)");
    add_machine_options(cmd, opts->machine, "machine file for a profile's regions (roofcast profile)",
                        WithoutCache::none);
    cmd->callback([opts] {
        if (write_threads_report(opts->file, opts->dir)) { // a `roofcast threads --json` file
            fmt::print("report written to {}/index.html\n", opts->dir);
            return;
        }
        if (const auto profile = profile_of(opts->file)) {
            // A profile: its regions with known flops and bytes as kernels under the machine's roofs.
            auto placement = model::place_profile(*profile, machine_for_profile(opts->machine, opts->file));
            fmt::print("{}", core::terminal_text(report::region_verdicts(placement)));
            placement.results.notes = placement.omitted;
            report::write_report_dir(opts->dir, placement.results);
            fmt::print("report written to {}/index.html\n", opts->dir);
            return;
        }
        const DataFile data = load_data_file(opts->file);
        if (!data.results)
            throw core::InputError(opts->file, "", "expected a results file (JSON), got a machine file");
        if (!data.results->machine)
            throw core::InputError(opts->file, "machine", "the results file has no embedded machine");
        report::write_report_dir(opts->dir, *data.results);
        fmt::print("report written to {}/index.html\n", opts->dir);
    });
}

} // namespace roofcast::cli
