#include "cli/host_machine.hpp"

#include "cli/data_file.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "measure/host_identity.hpp"
#include "measure/machine_run.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace roofcast::cli {

namespace fs = std::filesystem;

void add_machine_options(CLI::App* cmd, MachineArgs& a, const std::string& help, WithoutCache without) {
    cmd->add_option(
        "--machine", a.file,
        help + (without == WithoutCache::measure
                    ? " (default: this host's cached machine file, measured quickly when there is none)"
                    : " (default: this host's cached machine file; never measured here)"));
    cmd->add_flag("--no-machine", a.none,
                  "use no machine file: neither this host's cached one nor a measurement");
}

fs::path host_machine_cache_path() {
    fs::path base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = fs::path(home) / ".cache";
    else
        base = fs::temp_directory_path();
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        std::snprintf(host, sizeof host, "localhost");
    // The host name only spreads the files of a shared home directory over its nodes; whether a file is
    // this host's is decided by its contents (measure/host_identity.hpp). Kept to a safe file name.
    std::string name = host;
    for (char& c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'))
            c = '_';
    return base / "roofcast" / fmt::format("machine-{}.yaml", name);
}

std::optional<core::Machine> cached_host_machine(const fs::path& cache, const std::string& then) {
    std::error_code ec;
    if (!fs::exists(cache, ec))
        return std::nullopt;
    try {
        core::Machine m = core::load_machine(cache.string());
        if (const auto differs = measure::differs_from_this_host(m)) {
            fmt::print(stderr, "roofcast: cached machine file {} {}: {}\n",
                       core::terminal_safe(cache.string()), differs->reason, then);
            return std::nullopt;
        }
        return m;
    } catch (const core::InputError& e) {
        fmt::print(stderr, "roofcast: warning: ignoring the cached machine file: {}; {}\n", e.what(), then);
    }
    return std::nullopt;
}

void status_line(const std::string& line) {
    if (isatty(fileno(stderr)))
        fmt::print(stderr, "\r\033[K{}", line);
    else
        fmt::print(stderr, "{}\n", line);
}

core::Machine measure_host_machine(bool full, const fs::path& cache, const std::string& why) {
    fmt::print(stderr, "roofcast: {}characterizing this machine ({} mode)\n", why, full ? "full" : "quick");
    measure::MachineOptions opt;
    opt.quick = !full;
    opt.progress = [](double fraction, const std::string& what) {
        status_line(fmt::format("machine {:3.0f}% {}", 100 * fraction, what));
    };
    core::Machine m = measure::measure_machine(opt);
    if (isatty(fileno(stderr)))
        fmt::print(stderr, "\n");
    try {
        core::make_directories(cache.parent_path());
        core::save_machine(cache.string(), m);
        fmt::print(stderr, "roofcast: machine file cached at {}\n", core::terminal_safe(cache.string()));
    } catch (const core::Error& e) {
        fmt::print(stderr, "roofcast: warning: the machine file was not cached: {}\n", e.what());
    }
    return m;
}

std::optional<UsedMachine> use_machine(const MachineArgs& a, WithoutCache without,
                                       const std::function<core::Machine(const std::string&)>& read) {
    if (a.none && !a.file.empty())
        throw core::InputError("", "--no-machine",
                               "expected either --machine FILE or --no-machine, not both");
    if (a.none)
        return std::nullopt;
    if (!a.file.empty())
        return UsedMachine{read ? read(a.file) : read_machine_file(a.file), a.file};
    const fs::path cache = host_machine_cache_path();
    const bool measure = without == WithoutCache::measure;
    if (auto m = cached_host_machine(cache, measure ? "measuring this one" : "not used")) {
        fmt::print(
            stderr,
            "roofcast: no --machine given: using this host's cached machine file {} (--machine FILE for "
            "another machine, --no-machine for none)\n",
            core::terminal_safe(cache.string()));
        return UsedMachine{std::move(*m), cache.string()};
    }
    if (!measure)
        return std::nullopt;
    return UsedMachine{measure_host_machine(false, cache,
                                            "no --machine given and no cached machine file of this host "
                                            "(--no-machine for none): "),
                       cache.string()};
}

core::Machine machine_for_profile(const MachineArgs& a, const std::string& profile_file) {
    if (auto used = use_machine(a, WithoutCache::none, machine_of_data_file))
        return std::move(used->machine);
    throw core::InputError(
        profile_file, "",
        a.none ? "a profile's regions need a machine to be placed under: --machine FILE"
               : "a profile's regions need a machine to be placed under: --machine FILE (this "
                 "host has no cached machine file; `roofcast run` caches one)");
}

} // namespace roofcast::cli
