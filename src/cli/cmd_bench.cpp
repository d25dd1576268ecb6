#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "cli/threads_option.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine.hpp"
#include "core/results.hpp"
#include "experiment/bench.hpp"
#include "experiment/suite_catalogue.hpp"
#include "report/bench_table.hpp"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <unistd.h>

namespace roofcast::cli {

namespace {

// The machine file `roofcast machine` writes by default in the working directory.
constexpr const char* k_default_machine = "roofcast-machine.yaml";

struct BenchArgs {
    model::BenchOptions bench;
    std::string machine;
    std::string json;
    std::string output;
    ThreadsOption threads;
    bool calibrate = false;
    bool no_probes = false;
    bool no_settle = false;
};

void run_bench_command(const BenchArgs& a) {
    std::string machine_file = a.machine;
    if (machine_file.empty()) {
        if (!std::filesystem::exists(k_default_machine))
            throw core::InputError("", "--machine",
                                   "no machine file: run `roofcast machine` or pass --machine");
        machine_file = k_default_machine;
    }
    if (a.calibrate && a.output.empty())
        throw core::InputError("", "-o", "--calibrate writes the calibrated machine file: give -o FILE");
    if (!a.output.empty() && !a.calibrate)
        throw core::InputError("", "-o", "-o is the calibrated machine file of --calibrate");
    resolve_thread_count(a.threads, 1, host_hardware_threads()); // syntax and bound before measuring
    // Outputs are checked before minutes of measurement, not after.
    if (!a.json.empty()) {
        core::check_output_writable(a.json, "--json");
        core::ensure_distinct_output(a.json, {machine_file}, "--json");
    }
    if (!a.output.empty())
        core::check_output_writable(a.output, "-o");
    const core::Machine machine = read_machine_file(machine_file);
    model::BenchOptions o = a.bench;
    o.machine_file = machine_file;
    o.probes = !a.no_probes;
    o.settle = !a.no_settle;
    o.threads = resolve_thread_count(a.threads, machine_cores(machine, true), host_hardware_threads());
    if (a.calibrate) {
        if (!o.kernel.empty() || (o.suite != "all" && o.suite != "calibrate"))
            throw core::InputError("", "--calibrate",
                                   "--calibrate runs the calibration suite; drop --suite/--kernel");
        o.suite = "calibrate";
    }
    const bool tty = isatty(fileno(stderr)) != 0;
    const model::BenchReport rep = model::run_bench(o, machine, [tty](const std::string& line) {
        if (tty)
            fmt::print(stderr, "\r\033[K{}", line);
        else
            fmt::print(stderr, "{}\n", line);
    });
    if (tty)
        fmt::print(stderr, "\n");
    fmt::print("{}", core::terminal_text(report::format_bench_table(rep)));
    if (!a.json.empty())
        core::save_results(a.json, rep.results);
    if (a.calibrate) {
        if (!rep.results.machine)
            throw core::Error("calibration produced no machine");
        core::save_machine(a.output, *rep.results.machine);
        fmt::print(stderr, "calibrated machine file written to {}\n", a.output);
    }
}

} // namespace

void add_bench_command(CLI::App& app) {
    auto [cmd, args] = add_command(app, "bench", run_bench_command,
                                   "Run the built-in kernel suite and compare every model with measurements");
    offer_choices(cmd->add_option("--suite", args->bench.suite, "stream | calibrate | mixed | apps | all"),
                  model::suite_choices())
        ->default_val("all");
    cmd->add_option("--kernel", args->bench.kernel, "run one kernel of the suite by name");
    add_threads_option(cmd, args->threads, "threads (default: every core of the machine)", false, true);
    cmd->add_option("--machine", args->machine,
                    std::string("machine file (default: ./") + k_default_machine + ")");
    cmd->add_option("--json", args->json, "also write the results (results.json format) to FILE");
    cmd->add_flag("--quick", args->bench.quick, "fewer, shorter repetitions");
    cmd->add_option("--rounds", args->bench.rounds,
                    "interleaved passes over the suite, 3 samples per kernel each (default 3; --quick 1)");
    cmd->add_flag("--no-probes", args->no_probes,
                  "no reference probes between kernels: about 10 % faster, but no host noise floor (rows "
                  "are then flagged NOISY by a fixed 5 % spread)");
    cmd->add_flag("--no-settle", args->no_settle,
                  "no extra rounds for kernels whose two best rounds disagree by more than 3 % (each kernel "
                  "then gets exactly --rounds rounds, and its best time depends more on the minute)");
    cmd->add_flag("--calibrate", args->calibrate,
                  "run the calibration loops and write the effective figures into the machine file -o FILE");
    cmd->add_option("-o,--output", args->output, "calibrated machine file (with --calibrate)");
}

} // namespace roofcast::cli
