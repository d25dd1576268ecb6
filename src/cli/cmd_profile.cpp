#include "cli/commands.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/profile.hpp"
#include "measure/profile/runner.hpp"

#include <charconv>
#include <cmath>
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
    std::vector<std::string> command;
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

void run_profile_command(const ProfileOptions& o) {
    core::Profile p;
    if (!o.import_tau.empty()) {
        if (!o.command.empty())
            throw core::InputError("", "--import-tau",
                                   "expected either --import-tau DIR or a PROGRAM, not both");
        p = import_profile("tau", o.import_tau);
    } else if (!o.import_likwid.empty()) {
        if (!o.command.empty())
            throw core::InputError("", "--import-likwid",
                                   "expected either --import-likwid FILE or a PROGRAM, not both");
        p = import_profile("likwid", o.import_likwid);
    } else if (!o.import_cube.empty()) {
        if (!o.command.empty())
            throw core::InputError("", "--import-cube",
                                   "expected either --import-cube FILE or a PROGRAM, not both");
        p = import_profile("cube", o.import_cube);
    } else {
        measure::profile::ProfileRequest req;
        req.backend = o.backend;
        req.ranks = o.ranks.empty() ? 0 : parse_ranks(o.ranks);
        for (const auto& s : o.params)
            req.parameters.push_back(parse_param(s));
        if (req.parameters.size() > 2)
            throw core::InputError("", "--param",
                                   "expected at most two parameters (roofcast scale fits 1 or 2)");
        req.repeat = o.repeat;
        req.command = o.command;
        if (!o.callgrind_out.empty()) {
            if (o.backend != "callgrind")
                throw core::InputError("", "--callgrind-out",
                                       "expected --backend callgrind (its counts per line)");
            core::check_output_writable(o.callgrind_out, "--callgrind-out");
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
        p = measure::profile::run_profile(req, [](const std::string& s) { fmt::print("{}\n", s); });
    }
    for (const auto& w : p.warnings)
        fmt::print(stderr, "roofcast: warning: {}\n", w);
    core::write_file_atomic(o.output, core::profile_to_json(p).dump(1) + "\n");
    fmt::print("wrote {} ({} functions/regions, {} rank(s), backend {})\n", o.output, p.functions.size(),
               p.ranks, p.backend);
}

} // namespace

void add_profile_command(CLI::App& app) {
    auto o = std::make_shared<ProfileOptions>();
    auto* cmd = app.add_subcommand("profile", "Profile a program (per function/region, per rank) into a "
                                              "roofcast profile for `scale`, `plot` and `report`");
    cmd->add_option(
        "--backend", o->backend,
        fmt::format("auto (default), {}", fmt::join(measure::profile::profile_backend_names(), ", ")));
    cmd->add_option("--ranks", o->ranks, "launch N ranks with mpirun -np N (default: one plain process)");
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
    cmd->add_option("PROGRAM", o->command, "-- PROGRAM [ARGS...]");
    cmd->callback([o] { run_profile_command(*o); });
}

} // namespace roofcast::cli
