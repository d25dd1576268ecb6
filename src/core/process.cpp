#include "core/process.hpp"

#include "core/error.hpp"
#include "core/io.hpp"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace roofcast::core {

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

int run_program(const std::vector<std::string>& args, const RunOptions& opt) {
    if (args.empty()) {
        errno = EINVAL;
        return -1;
    }
    std::vector<std::string> arg_store(args);
    std::vector<char*> argv;
    for (auto& a : arg_store)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_store(opt.extra_env);
    for (char** e = environ; e && *e; ++e)
        env_store.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_store)
        envp.push_back(e.data());
    envp.push_back(nullptr);

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
    if (::waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string find_companion(const std::string& name, const char* env_var, const char* build_path) {
    if (const char* env = std::getenv(env_var); env && *env)
        return ::access(env, X_OK) == 0 ? std::string(env) : std::string();
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::string beside = (self.parent_path() / name).string();
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

} // namespace roofcast::core
