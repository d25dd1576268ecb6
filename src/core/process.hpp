// Finding and running external programs (rsvg-convert for --png, mpirun for the MPI ping-pong).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::core {

// The first executable `program` in the directories of $PATH; nullopt when there is none.
std::optional<std::filesystem::path> find_in_path(const std::string& program);

struct RunOptions {
    std::vector<std::string> extra_env; // "NAME=value" entries added to this process's environment
    std::string output_log; // stdout and stderr to this file ("" = inherited); stdin from /dev/null
};

// Runs args[0] (looked up in $PATH) with args and waits for it. Returns its exit status (128 + the signal
// when a signal ended it), or -1 when it could not be started (errno then says why).
int run_program(const std::vector<std::string>& args, const RunOptions& opt = {});

} // namespace roofcast::core
