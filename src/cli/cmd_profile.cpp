#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "cli/launch_options.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/profile.hpp"
#include "measure/profile/runner.hpp"
#include "measure/profile/tau.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace roofcast::cli {

namespace {

struct ProfileOptions {
    std::string backend = "auto";
    std::string ranks;
    std::vector<std::string> params;
    int repeat = 1;
    MachineArgs machine;
    std::string output = "profile.json";
    std::string import_tau;
    std::string import_likwid;
    std::string import_cube;
    std::string callgrind_out;
    // A day: ten times the longest run of the shipped examples under valgrind's 50x slow-down would still
    // fit, while a program that hangs is stopped within a batch job's usual limit (docs/design.md).
    double timeout = 86400;
    int passes_at_once = 1;
    std::string launcher; // the cluster's launcher for --ranks ("srun -N 2"); empty: mpirun
    std::vector<std::string> command;
    bool ranks_given = false; // --ranks '' is refused, not taken for one plain process
};

int parse_ranks(const std::string& text) {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > 65536)
        throw core::InputError("", "--ranks",
                               fmt::format("expected a positive integer (1..65536), got '{}'", text));
    return v;
}

std::pair<std::string, double> parse_param(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw core::InputError("", "--param", fmt::format("expected NAME=VALUE, got '{}'", text));
    const std::string value = text.substr(eq + 1);
    double v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v))
        throw core::InputError("", "--param",
                               fmt::format("expected a finite number after '=' in '{}'", text));
    // What the profile's readers accept (docs/formats-profile.md), so the file written reads back.
    return {text.substr(0, eq), core::check_profile_parameter(v, "", "--param")};
}

// A profile comes from one place: a program run here or one imported file or directory.
void check_one_source(const ProfileOptions& o) {
    std::vector<std::string> given;
    if (!o.import_tau.empty())
        given.emplace_back("--import-tau");
    if (!o.import_likwid.empty())
        given.emplace_back("--import-likwid");
    if (!o.import_cube.empty())
        given.emplace_back("--import-cube");
    if (!o.command.empty() && !given.empty())
        throw core::InputError("", given.front(),
                               fmt::format("expected either {} or a PROGRAM, not both", given.front()));
    if (given.size() > 1)
        throw core::InputError("", given[1],
                               fmt::format("expected one import, not {} and {}", given[0], given[1]));
}

// Before anything runs or is read: -o (and --callgrind-out) can be written and name none of the command's
// inputs — the program, the files its arguments name, the machine file, the TAU files.
void check_profile_outputs(const ProfileOptions& o) {
    std::vector<std::string> inputs = machine_inputs(o.machine);
    if (!o.import_tau.empty()) {
        for (const auto& f : measure::profile::tau_profile_files(o.import_tau))
            inputs.push_back(f.path.string());
    } else if (!o.import_likwid.empty() || !o.import_cube.empty()) {
        inputs.push_back(o.import_likwid.empty() ? o.import_cube : o.import_likwid);
    } else {
        const auto program = program_inputs(o.command);
        inputs.insert(inputs.end(), program.begin(), program.end());
    }
    check_command_output(o.output, "--output", inputs);
    if (!o.callgrind_out.empty()) {
        check_command_output(o.callgrind_out, "--callgrind-out", inputs);
        std::error_code ec;
        if (std::filesystem::weakly_canonical(o.callgrind_out, ec) ==
            std::filesystem::weakly_canonical(o.output, ec))
            throw core::InputError(o.callgrind_out, "--callgrind-out", "names the profile's output (-o) too");
    }
}

void run_profile_command(const ProfileOptions& o) {
    core::Profile p;
    check_timeout(o.timeout);
    check_one_source(o);
    check_profile_outputs(o);
    if (!o.import_tau.empty()) {
        p = import_profile("tau", o.import_tau);
    } else if (!o.import_likwid.empty()) {
        p = import_profile("likwid", o.import_likwid);
    } else if (!o.import_cube.empty()) {
        p = import_profile("cube", o.import_cube);
    } else {
        measure::profile::ProfileRequest req;
        req.backend = o.backend;
        req.ranks = o.ranks_given ? parse_ranks(o.ranks) : 0;
        if (!o.launcher.empty() && req.ranks == 0)
            throw core::InputError("", "--launcher", "a launcher starts ranks: expected --ranks N beside it");
        req.launcher = o.launcher;
        for (const auto& s : o.params) {
            auto param = parse_param(s);
            for (const auto& [name, value] : req.parameters)
                if (name == param.first)
                    throw core::InputError(
                        "", "--param",
                        fmt::format("'{}' is given twice ({} and {}): expected each parameter "
                                    "once",
                                    name, value, param.second));
            req.parameters.push_back(std::move(param));
        }
        if (req.parameters.size() > 2)
            throw core::InputError("", "--param",
                                   "expected at most two parameters (roofcast scale fits 1 or 2)");
        req.repeat = o.repeat;
        req.timeout_s = o.timeout;
        req.passes_at_once = o.passes_at_once;
        req.command = o.command;
        if (!o.callgrind_out.empty()) {
            if (o.backend != "callgrind")
                throw core::InputError("", "--callgrind-out",
                                       "expected --backend callgrind (its counts per line)");
            req.callgrind_out = o.callgrind_out;
        }
        // Only the simulating backends (cachegrind, callgrind) use a machine: other backends read a given
        // file (so that a wrong one is named) but neither look for this host's nor measure one.
        const std::string chosen =
            o.backend == "auto" ? measure::profile::choose_backend("auto").backend : o.backend;
        const bool simulated = chosen == "cachegrind" || chosen == "callgrind";
        if (simulated || !o.machine.file.empty())
            if (auto used = use_machine(o.machine, WithoutCache::measure, machine_of_data_file))
                req.machine = std::move(used->machine);
        // Each progress line out at once: with the output in a file, a later error (standard error) then
        // follows the passes it ended rather than preceding them.
        p = measure::profile::run_profile(req, [](const std::string& s) {
            fmt::print("{}\n", core::terminal_text(s));
            std::fflush(stdout);
        });
    }
    core::fit_profile_to_format(p);
    // Names from the program reach the terminal escaped, each cut, and many of one kind counted.
    p.warnings = core::summarise_warnings(p.warnings);
    const std::string text = core::profile_file_text(p, o.output);
    for (const auto& w : p.warnings)
        fmt::print(stderr, "roofcast: warning: {}\n", core::terminal_safe(w));
    core::write_file_atomic(o.output, text);
    fmt::print("wrote {} ({} functions/regions, {} rank(s), backend {})\n", o.output, p.functions.size(),
               p.ranks, p.backend);
}

} // namespace

void add_profile_command(CLI::App& app) {
    auto o = std::make_shared<ProfileOptions>();
    auto* cmd = app.add_subcommand("profile", "Profile a program (per function/region, per rank) into a "
                                              "roofcast profile for `scale`, `plot` and `report`");
    std::vector<std::string> backends = measure::profile::profile_backend_names();
    const std::string help = fmt::format("auto (default), {}", fmt::join(backends, ", "));
    backends.insert(backends.begin(), "auto");
    offer_choices(cmd->add_option("--backend", o->backend, help), backends);
    auto* ranks =
        cmd->add_option("--ranks", o->ranks, "launch N ranks with mpirun -np N (default: one plain process)");
    cmd->add_option(
        "--launcher", o->launcher,
        "with --ranks: the cluster's launcher instead of mpirun, with its options (e.g. 'srun -N 2' "
        "or 'mpirun --hostfile hosts'); roofcast adds the rank count");
    cmd->add_option("--param", o->params, "NAME=VALUE parameter of this run (repeatable; default ranks=N)");
    cmd->add_option("--repeat", o->repeat, "repetitions (default 1)");
    add_machine_options(cmd, o->machine, "machine file: cache geometry for cachegrind");
    cmd->add_option("-o,--output", o->output, "profile JSON to write (default profile.json)");
    cmd->add_option("--import-tau", o->import_tau, "convert a TAU profile directory instead of running");
    cmd->add_option("--import-likwid", o->import_likwid,
                    "convert likwid-perfctr's marker output (CSV, likwid-perfctr -m -O) instead of running");
    cmd->add_option("--import-cube", o->import_cube,
                    "convert a Score-P/Scalasca CUBE4 profile (profile.cubex) instead of running");
    cmd->add_option("--callgrind-out", o->callgrind_out,
                    "callgrind backend: also write rank 0's counts per source line in callgrind's format "
                    "(KCachegrind, callgrind_annotate)");
    add_timeout_option(cmd, o->timeout, "a run of the program (each pass of a backend)");
    cmd->add_option(
        "--passes-at-once", o->passes_at_once,
        "run N of a backend's simulated passes (callgrind's one per cache level) at once; 0: as many as "
        "share the cores best (default 1: the program's copies would share its working directory)");
    cmd->add_option("PROGRAM", o->command, "-- PROGRAM [ARGS...]");
    cmd->callback([o, ranks] {
        o->ranks_given = ranks->count() > 0;
        run_profile_command(*o);
    });
}

} // namespace roofcast::cli
