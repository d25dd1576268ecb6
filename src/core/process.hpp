// Finding and running external programs (rsvg-convert for --png, mpirun for the MPI ping-pong, the user's
// programs of `profile` and `threads --command`). Every program runs as the leader of a process group of
// its own, registered with core/interrupt.hpp while it runs: a SIGINT, SIGTERM or SIGHUP roofcast receives
// is forwarded to the whole group, roofcast waits for it (a bounded grace, then SIGKILL) and the launch
// throws core::Interrupted; a time limit kills the whole group, so nothing the program started is left.
#pragma once

#include <cstddef>
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
    // > 0: past this many seconds the program's group gets SIGTERM, and SIGKILL k_timeout_grace_s later if
    // it has not ended; 0 = no limit.
    double timeout_s = 0;
    // After a caught signal has been forwarded to the program: how long it may take to end (saving what
    // it must, as at a batch system's time limit) before its group is killed.
    double stop_grace_s = 10;
};

// How long a program stopped at its time limit has between SIGTERM and SIGKILL.
inline constexpr double k_timeout_grace_s = 2;

// run_program's status for a program killed at RunOptions::timeout_s.
inline constexpr int k_timed_out = -2;

// Runs args[0] (looked up in $PATH) with args, stdin from /dev/null, and waits for it; whatever the
// program leaves running in its process group is killed when it ends. Returns its exit
// status (128 + the signal when a signal ended it), -1 when it could not be started (errno then says why),
// or k_timed_out when it ran past opt.timeout_s and was killed. Throws core::Interrupted, after the
// program has ended, when roofcast caught a signal before or while it ran. The wait wakes when the program
// ends (a pidfd), so the caller's wall-clock time around the call is the program's, not a polling interval's.
int run_program(const std::vector<std::string>& args, const RunOptions& opt = {});

// Processor time (user + system, seconds) of this process's children that have ended and been waited for,
// with their own waited-for descendants (getrusage(RUSAGE_CHILDREN), POSIX). The difference across a
// run_program call is what the program's process tree consumed, whether or not it waited for a core.
double children_cpu_seconds();

// A helper executable that ships beside roofcast (the MPI probe, the stencil runner): the path in
// $env_var when that is set (empty when it is not executable), else `name` in the directory of the running
// executable, else `build_path` (the build tree's copy; null or empty where there is none). Empty when none
// is executable.
std::string find_companion(const std::string& name, const char* env_var, const char* build_path);

// The program's own last line in a log file, for a one-line reason: the last non-empty line outside a
// launcher's banners (blocks between lines of dashes, as mpirun prints) and its "[host:pid] " diagnostics;
// where there is none, the last non-empty line that is not a rule; "no output" when the log is empty or
// cannot be read. Used when mpirun or a tool it starts fails.
std::string last_line_of_log(const std::filesystem::path& log);

// A program's standard output captured in memory, bounded in size and time, for tools whose output is
// parsed (nm, objdump). stderr and stdin are /dev/null. A caught signal kills the program at once and
// throws core::Interrupted, as run_program does.
struct CaptureOptions {
    std::size_t max_bytes = std::size_t{64} << 20; // output past this is cut and the program killed
    double timeout_s = 60;                         // the program is killed (SIGKILL) past this
};
struct CapturedOutput {
    int status = -1; // as run_program: exit status, 128 + signal, -1 when it could not be started
    std::string output;
    bool truncated = false; // output reached max_bytes
    bool timed_out = false;
};
CapturedOutput capture_program(const std::vector<std::string>& args, const CaptureOptions& opt = {});

} // namespace roofcast::core
