#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/host_machine.hpp"
#include "cli/threads_option.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine.hpp"
#include "core/results.hpp"
#include "experiment/bench.hpp"
#include "experiment/suite_catalogue.hpp"
#include "report/html.hpp"
#include "report/run_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <unistd.h>

namespace roofcast::cli {

namespace {

namespace fs = std::filesystem;

struct RunArgs {
    std::string output = "roofcast-report";
    std::string suite = "all";
    ThreadsOption threads;
    bool fresh = false;
    bool full = false;
};

// This host's cached machine file when it describes this host (cli/host_machine.hpp), else a measurement,
// cached for the next run and the other commands.
core::Machine obtain_machine(const RunArgs& a) {
    const fs::path cache = host_machine_cache_path();
    if (!a.fresh)
        if (auto m = cached_host_machine(cache, "measuring this one")) {
            fmt::print(stderr, "roofcast: using the cached machine file {} (--fresh measures again)\n",
                       core::terminal_safe(cache.string()));
            return std::move(*m);
        }
    return measure_host_machine(a.full, cache, "");
}

// Everything that can be checked without measuring is checked before the minutes of measurement.
void check_run_args(const RunArgs& a) {
    if (a.suite != "all" && std::find(model::k_suite_names.begin(), model::k_suite_names.end(), a.suite) ==
                                model::k_suite_names.end())
        throw core::InputError("", "--suite",
                               fmt::format("unknown suite '{}'; valid: {}, all", a.suite,
                                           fmt::join(model::k_suite_names, ", ")));
    // Syntax and bound before measuring; every core is resolved once the machine file is known.
    resolve_thread_count(a.threads, 0, host_hardware_threads());
    const std::filesystem::path out = core::check_replaceable_directory(a.output, report::k_report_files);
    core::check_output_writable(out.has_parent_path() ? out.parent_path() / ".roofcast-report-probe"
                                                      : std::filesystem::path(".roofcast-report-probe"),
                                "--output");
}

void run_main_job(const RunArgs& a) {
    check_run_args(a);
    const core::Machine machine = obtain_machine(a);
    model::BenchOptions o;
    o.suite = a.suite;
    o.threads = resolve_thread_count(a.threads, machine_cores(machine, true), host_hardware_threads());
    o.quick = !a.full;
    o.machine_file = host_machine_cache_path().string();
    const model::BenchReport rep = model::run_bench(o, machine, status_line);
    if (isatty(fileno(stderr)))
        fmt::print(stderr, "\n");
    core::Results results = rep.results;
    if (!results.machine)
        results.machine = machine;
    report::write_report_dir(a.output, results);
    fmt::print("{}", core::terminal_text(report::format_run_summary(results)));
    fmt::print("\nreport written to {}/index.html (charts: roofline.svg, bandwidth.svg; data: results.json, "
               "machine.yaml)\n",
               a.output);
}

} // namespace

void add_run_command(CLI::App& app) {
    auto [cmd, a] = add_command(
        app, "run", run_main_job,
        "The main job: characterize this machine (cached), run the kernel suite, write the report");
    cmd->add_option("-o,--output", a->output, "report directory")->capture_default_str();
    offer_choices(cmd->add_option("--suite", a->suite, "stream | calibrate | mixed | apps | all"),
                  model::suite_choices())
        ->capture_default_str();
    add_threads_option(cmd, a->threads, "threads for the suite (default: every core)", false, true);
    cmd->add_flag("--fresh", a->fresh, "measure the machine again instead of using the cached file");
    cmd->add_flag("--full", a->full,
                  "full (slower) machine characterization and suite instead of quick mode");
}

} // namespace roofcast::cli
