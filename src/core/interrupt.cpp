#include "core/interrupt.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <pthread.h>

namespace roofcast::core {

namespace {

constexpr std::array<int, 3> k_signals{SIGINT, SIGTERM, SIGHUP};

// The handler touches only these lock-free atomics and kill(), both async-signal-safe (POSIX.1-2017,
// 2.4.3 Signal Actions; C++20 [support.signal]: lock-free atomic operations are signal-safe).
std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};
std::array<std::atomic<pid_t>, 32> g_groups{};
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

// Installing and restoring the handlers: not touched by the handler.
std::mutex g_scope_mutex;
int g_scope_depth = 0;
std::array<struct sigaction, k_signals.size()> g_previous{};
std::array<bool, k_signals.size()> g_installed{};

void on_signal(int sig) {
    const int saved_errno = errno;
    int none = 0;
    g_signal.compare_exchange_strong(none, sig);
    const int n = g_count.fetch_add(1) + 1;
    for (auto& slot : g_groups) {
        const pid_t group = slot.load();
        if (group > 0)
            ::kill(-group, n > 1 ? SIGKILL : sig);
    }
    errno = saved_errno;
}

sigset_t caught_set() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : k_signals)
        sigaddset(&set, s);
    return set;
}

} // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error("stopped by " + signal_name(signal)), m_signal(signal) {}

InterruptScope::InterruptScope() {
    const std::lock_guard lock(g_scope_mutex);
    if (g_scope_depth++ > 0)
        return;
    struct sigaction action {};
    action.sa_handler = on_signal;
    action.sa_mask = caught_set();
    action.sa_flags = 0; // no SA_RESTART: a blocking wait returns EINTR and looks at the signal
    for (std::size_t i = 0; i < k_signals.size(); ++i) {
        g_installed[i] = false;
        if (::sigaction(k_signals[i], nullptr, &g_previous[i]) != 0)
            continue;
        if (k_signals[i] == SIGHUP && g_previous[i].sa_handler == SIG_IGN)
            continue; // nohup: hang-ups were meant to be ignored
        g_installed[i] = ::sigaction(k_signals[i], &action, nullptr) == 0;
    }
}

InterruptScope::~InterruptScope() {
    const std::lock_guard lock(g_scope_mutex);
    if (--g_scope_depth > 0)
        return;
    for (std::size_t i = 0; i < k_signals.size(); ++i)
        if (g_installed[i])
            ::sigaction(k_signals[i], &g_previous[i], nullptr);
}

int interrupt_signal() {
    return g_signal.load();
}

int interrupt_count() {
    return g_count.load();
}

void throw_if_interrupted() {
    if (const int sig = interrupt_signal())
        throw Interrupted(sig);
}

bool register_child_group(pid_t group) {
    for (auto& slot : g_groups) {
        pid_t empty = 0;
        if (slot.compare_exchange_strong(empty, group))
            return true;
    }
    return false;
}

void unregister_child_group(pid_t group) {
    for (auto& slot : g_groups) {
        pid_t expected = group;
        if (slot.compare_exchange_strong(expected, 0))
            return;
    }
}

InterruptsBlocked::InterruptsBlocked() {
    const sigset_t set = caught_set();
    ::pthread_sigmask(SIG_BLOCK, &set, &m_previous);
}

InterruptsBlocked::~InterruptsBlocked() {
    ::pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
}

sigset_t signals_reset_in_child() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

std::string signal_name(int signal) {
    switch (signal) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "signal " + std::to_string(signal);
    }
}

} // namespace roofcast::core
