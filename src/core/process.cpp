#include "core/process.hpp"

#include "core/error.hpp"
#include "core/io.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
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

// Waits until `pid` ends or `timeout_s` passes, without reaping it; false at the timeout. A pidfd
// (Linux 5.3) becomes readable when the process ends; where pidfd_open is missing, a 1 ms polling
// loop of waitid(WNOWAIT) stands in.
bool wait_until_exit(pid_t pid, double timeout_s) {
    using Clock = std::chrono::steady_clock;
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            if (fd >= 0)
                ::close(fd);
            return false;
        }
        if (fd >= 0) {
            pollfd p{fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
            if (ready > 0) {
                ::close(fd);
                return true;
            }
            continue;
        }
        siginfo_t info{};
        if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid)
            return true;
        ::usleep(1000);
    }
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
    std::vector<std::string> arg_store(args);
    const std::vector<char*> argv = c_strings(arg_store);
    std::vector<std::string> env_store(opt.extra_env);
    for (char** e = environ; e && *e; ++e)
        env_store.emplace_back(*e);
    const std::vector<char*> envp = c_strings(env_store);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!opt.output_log.empty()) {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, opt.output_log.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    }
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status = 0;
    if (opt.timeout_s > 0 && !wait_until_exit(pid, opt.timeout_s)) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return k_timed_out;
    }
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return exit_code(status);
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
    if (build_path && ::access(build_path, X_OK) == 0)
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
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    const auto nl = text.find_last_of('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

CapturedOutput capture_program(const std::vector<std::string>& args, const CaptureOptions& opt) {
    CapturedOutput out;
    if (args.empty()) {
        errno = EINVAL;
        return out;
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return out;
    std::vector<std::string> arg_store(args);
    const std::vector<char*> argv = c_strings(arg_store);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        errno = rc;
        return out;
    }
    // Read until end of file, the size bound or the deadline; a program stopped early is killed, so a
    // tool that hangs or floods never holds roofcast.
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(opt.timeout_s));
    std::array<char, 65536> buf{};
    bool kill_it = false;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            out.timed_out = kill_it = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
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
        ::kill(pid, SIGKILL); // before closing the pipe, so the status says killed, not SIGPIPE
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return out;
    out.status = exit_code(status);
    return out;
}

} // namespace roofcast::core
