#include "core/process.hpp"

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/io.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace roofcast::core {

namespace {

// A null-terminated array of pointers into `store`, for exec's argv and envp.
std::vector<char*> c_strings(std::vector<std::string>& store) {
    std::vector<char*> out;
    for (auto& s : store)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

using Clock = std::chrono::steady_clock;

// Now plus `seconds`, bounded to about 30 years so that a limit of 1e300 s cannot overflow the clock.
Clock::time_point after(double seconds) {
    const double bounded = std::min(seconds, 1e9);
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(bounded));
}

// Starts args[0] (looked up in $PATH) as the leader of a new process group, registered for the signals
// roofcast forwards (core/interrupt.hpp); the caller reaps it with reap(). The three signals are blocked
// from before the start until the group is registered, so none is missed; the program starts with the
// mask roofcast had and with SIGINT and SIGTERM at their default actions. Returns -1 with errno set when
// it cannot be started (EAGAIN: the registry is full).
pid_t start_in_group(const std::vector<std::string>& args, const posix_spawn_file_actions_t* actions,
                     char* const* envp) {
    std::vector<std::string> arg_store(args);
    const std::vector<char*> argv = c_strings(arg_store);
    const InterruptsBlocked blocked;
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &blocked.previous());
    const sigset_t defaults = signals_reset_in_child();
    posix_spawnattr_setsigdefault(&attr, &defaults);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, argv[0], actions, &attr, argv.data(), envp);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    if (!register_child_group(pid)) {
        ::kill(-pid, SIGKILL);
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        errno = EAGAIN;
        return -1;
    }
    return pid;
}

// Whether the group leader `pid` has ended, without reaping it (its zombie keeps the group's id taken).
bool has_ended(pid_t pid, int pidfd, int wait_ms) {
    if (pidfd >= 0) { // a pidfd (Linux 5.3) becomes readable when the process ends
        pollfd p{pidfd, POLLIN, 0};
        return ::poll(&p, 1, wait_ms) > 0;
    }
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
        return true;
    ::usleep(static_cast<useconds_t>(std::min(wait_ms, 1) * 1000));
    return false;
}

enum class Ending { exited, timed_out, interrupted };

// Waits until the program started by start_in_group ends. Past `timeout_s` (> 0) its group is killed
// (SIGKILL). Once a caught signal has been forwarded to it (by the handler), it has `grace_s` to end, or
// no time after a second signal, before its group is killed. The wait wakes when the program ends, so the
// caller's wall-clock time around the call is the program's, not a polling interval's; a signal is
// looked at within 100 ms when another thread received it (EINTR wakes this one at once).
Ending wait_in_group(pid_t pid, double timeout_s, double grace_s) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    const auto deadline = timeout_s > 0 ? after(timeout_s) : Clock::time_point::max();
    std::optional<Clock::time_point> stop_at, term_at;
    Ending ending = Ending::exited;
    bool killed = false;
    for (;;) {
        const auto now = Clock::now();
        if (interrupt_signal() != 0) {
            ending = Ending::interrupted;
            if (!stop_at)
                stop_at = after(grace_s);
            if (!killed && (now >= *stop_at || interrupt_count() > 1)) {
                ::kill(-pid, SIGKILL);
                killed = true;
            }
        } else if (!killed && now >= deadline) {
            // Asked first (mpirun then stops its ranks and removes its session directory), killed if it
            // has not ended k_timeout_grace_s later.
            ending = Ending::timed_out;
            if (!term_at) {
                ::kill(-pid, SIGTERM);
                term_at = after(k_timeout_grace_s);
            } else if (now >= *term_at) {
                ::kill(-pid, SIGKILL);
                killed = true;
            }
        }
        if (has_ended(pid, fd, 100))
            break;
    }
    if (fd >= 0)
        ::close(fd);
    if (interrupt_signal() != 0)
        ending = Ending::interrupted;
    // What the program left running in its group goes with it, whether roofcast stopped it or it ended
    // (a background child it never waited for); the leader is not reaped yet, so the group id is still its.
    ::kill(-pid, SIGKILL);
    return ending;
}

// Reaps the program started by start_in_group and takes its group out of the registry; its status.
int reap(pid_t pid) {
    unregister_child_group(pid);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

// A wait status as a shell reports it: the exit status, or 128 + the signal that ended the program.
int exit_code(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace

std::optional<std::filesystem::path> find_in_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (!path)
        return std::nullopt;
    const std::string dirs(path);
    for (std::size_t start = 0; start <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::filesystem::path candidate =
            std::filesystem::path(dirs.substr(start, end - start)) / program;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return std::nullopt;
}

double children_cpu_seconds() {
    struct rusage ru {};
    if (::getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return 0.0;
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
    return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

int run_program(const std::vector<std::string>& args, const RunOptions& opt) {
    if (args.empty()) {
        errno = EINVAL;
        return -1;
    }
    const InterruptScope scope;
    throw_if_interrupted();
    std::vector<std::string> env_store(opt.extra_env);
    for (char** e = environ; e && *e; ++e)
        env_store.emplace_back(*e);
    const std::vector<char*> envp = c_strings(env_store);

    // stdin is /dev/null: the program runs in a process group of its own, which the terminal would stop
    // (SIGTTIN) if it read from it.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!opt.output_log.empty()) {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, opt.output_log.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const pid_t pid = start_in_group(args, &actions, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (pid < 0)
        return -1;
    const Ending ending = wait_in_group(pid, opt.timeout_s, opt.stop_grace_s);
    const int status = reap(pid);
    if (ending == Ending::interrupted)
        throw Interrupted(interrupt_signal());
    if (ending == Ending::timed_out)
        return k_timed_out;
    return status < 0 ? -1 : exit_code(status);
}

std::string find_companion(const std::string& name, const char* env_var, const char* build_path) {
    if (const char* env = std::getenv(env_var); env && *env)
        return ::access(env, X_OK) == 0 ? std::string(env) : std::string();
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        std::string beside = (self.parent_path() / name).string();
        if (::access(beside.c_str(), X_OK) == 0)
            return beside;
    }
    if (build_path && *build_path && ::access(build_path, X_OK) == 0)
        return build_path;
    return {};
}

std::string last_line_of_log(const std::filesystem::path& log) {
    std::string text;
    try {
        text = read_file(log);
    } catch (const Error&) {
        return "no output";
    }
    // A launcher's banner is a block between two rules (a line of one repeated '-', '=' or '*'), and its
    // own diagnostics are tagged "[host:pid] ": the program's own last line is the last one outside both;
    // where the program wrote none, the banner's last line, which names what happened.
    const auto trim = [](std::string_view l) {
        while (!l.empty() && (l.back() == ' ' || l.back() == '\r' || l.back() == '\t'))
            l.remove_suffix(1);
        while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
            l.remove_prefix(1);
        return l;
    };
    const auto is_rule = [](std::string_view l) {
        return l.size() >= 3 && (l[0] == '-' || l[0] == '=' || l[0] == '*') &&
               l.find_first_not_of(l[0]) == std::string_view::npos;
    };
    const auto is_tagged = [](std::string_view l) {
        const auto close = l.find("] ");
        const auto colon = l.find(':');
        return !l.empty() && l[0] == '[' && close != std::string_view::npos && colon < close &&
               close > colon + 1 &&
               l.substr(colon + 1, close - colon - 1).find_first_not_of("0123456789") ==
                   std::string_view::npos;
    };
    std::string_view own, any;
    bool in_banner = false;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t nl = std::min(text.find('\n', at), text.size());
        const std::string_view line = trim(std::string_view(text).substr(at, nl - at));
        at = nl + 1;
        if (line.empty())
            continue;
        if (is_rule(line)) {
            in_banner = !in_banner;
            continue;
        }
        any = line;
        if (!in_banner && !is_tagged(line))
            own = line;
    }
    if (!own.empty())
        return std::string(own);
    return any.empty() ? std::string("no output") : std::string(any);
}

CapturedOutput capture_program(const std::vector<std::string>& args, const CaptureOptions& opt) {
    CapturedOutput out;
    if (args.empty()) {
        errno = EINVAL;
        return out;
    }
    const InterruptScope scope;
    throw_if_interrupted();
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return out;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const pid_t pid = start_in_group(args, &actions, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (pid < 0) {
        const int err = errno;
        ::close(fds[0]);
        errno = err;
        return out;
    }
    // Read until end of file, the size bound, the deadline or a caught signal; a program stopped early
    // is killed with its group, so a tool that hangs or floods never holds roofcast.
    const auto deadline = after(opt.timeout_s);
    std::array<char, 65536> buf{};
    bool kill_it = false;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            out.timed_out = kill_it = true;
            break;
        }
        if (interrupt_signal() != 0) {
            kill_it = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 100)));
        if (ready < 0 && errno != EINTR) {
            kill_it = true;
            break;
        }
        if (ready <= 0)
            continue;
        const ssize_t n = ::read(fds[0], buf.data(), buf.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        const std::size_t room = opt.max_bytes - out.output.size();
        out.output.append(buf.data(), std::min(room, static_cast<std::size_t>(n)));
        if (static_cast<std::size_t>(n) >= room) {
            out.truncated = kill_it = true;
            break;
        }
    }
    if (kill_it)
        ::kill(-pid, SIGKILL); // before closing the pipe, so the status says killed, not SIGPIPE
    ::close(fds[0]);
    const int status = reap(pid);
    if (interrupt_signal() != 0)
        throw Interrupted(interrupt_signal());
    if (status >= 0)
        out.status = exit_code(status);
    return out;
}

} // namespace roofcast::core
