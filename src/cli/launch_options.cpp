#include "cli/launch_options.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/process.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace roofcast::cli {

void check_command_output(const std::string& path, const std::string& field,
                          const std::vector<std::string>& inputs) {
    core::check_output_writable(path, field);
    core::ensure_distinct_output(path, inputs, field);
}

std::vector<std::string> program_inputs(const std::vector<std::string>& command) {
    std::vector<std::string> out;
    if (command.empty())
        return out;
    if (command.front().find('/') != std::string::npos)
        out.push_back(command.front());
    else if (const auto found = core::find_in_path(command.front()))
        out.push_back(found->string());
    for (std::size_t i = 1; i < command.size(); ++i) {
        std::error_code ec;
        if (!command[i].empty() && std::filesystem::is_regular_file(command[i], ec))
            out.push_back(command[i]);
    }
    return out;
}

std::vector<std::string> machine_inputs(const MachineArgs& a) {
    if (!a.file.empty())
        return {a.file};
    if (a.none)
        return {};
    return {host_machine_cache_path().string()};
}

void add_timeout_option(CLI::App* cmd, double& seconds, const std::string& what) {
    cmd->add_option("--timeout", seconds,
                    fmt::format("seconds: {} still going after this is stopped with every process it started "
                                "(default {:g}; 0 = no limit)",
                                what, seconds));
}

void check_timeout(double seconds) {
    if (!(seconds >= 0 && seconds <= k_max_timeout_s))
        throw core::InputError(
            "", "--timeout",
            fmt::format("expected seconds from 0 (no limit) to {:.0f}, got {}", k_max_timeout_s, seconds));
}

} // namespace roofcast::cli
