// Stopping what roofcast launched when roofcast itself is told to stop (SIGINT, SIGTERM, SIGHUP).
//
// Contract. Every program roofcast starts (core::run_program, core::capture_program) runs in a process
// group of its own, registered here while it runs. While at least one InterruptScope exists, the three
// signals are caught: the handler records the first and forwards it to every registered group (a second
// signal sends SIGKILL instead), and does nothing else. The launcher waiting for the program sees the
// signal, waits a bounded grace for the group to end (then SIGKILL), reaps it and throws Interrupted, so
// unwinding removes the temporary directories (core::TempDirectory) and no output is written; cli/app.cpp
// prints one line and exits 128 + the signal. Outside every scope the signals keep their dispositions.
// A SIGHUP that was ignored when roofcast started (nohup) stays ignored, for roofcast and what it starts; a
// SIGINT ignored because a non-interactive shell started roofcast in the background is caught all the
// same, since a SIGINT sent from outside means "stop".
#pragma once

#include <csignal>
#include <stdexcept>
#include <string>
#include <sys/types.h>

namespace roofcast::core {

// Thrown by a launcher (and by throw_if_interrupted) once a caught signal has stopped what it launched.
class Interrupted : public std::runtime_error {
public:
    explicit Interrupted(int signal);
    int signal() const { return m_signal; }
    int exit_status() const { return 128 + m_signal; } // as a shell reports a process ended by it

private:
    int m_signal;
};

// While one exists (they nest), SIGINT, SIGTERM and SIGHUP are caught as described above; the last one
// to go restores the dispositions found by the first. A command holds one across all of its launches,
// so that a signal arriving between two programs is acted on at the next check instead of ending roofcast
// with its temporary files in place; every launch holds one of its own.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;
};

// The first signal caught, 0 when none was. It stays set for the life of the process (one command).
int interrupt_signal();
// How many signals were caught (a second one means "stop now").
int interrupt_count();
// Throws Interrupted when a signal was caught.
void throw_if_interrupted();

// The registry of running process groups that caught signals are forwarded to; it holds 32. A full
// registry refuses (false): the caller then does not start the program.
bool register_child_group(pid_t group);
void unregister_child_group(pid_t group);

// Blocks the three signals in this thread while a program is started and registered, so that none can
// arrive between the two; the destructor restores the mask, and a signal that came meanwhile is then
// handled (and forwarded to the now registered group). previous() is the mask the program starts with.
class InterruptsBlocked {
public:
    InterruptsBlocked();
    ~InterruptsBlocked();
    InterruptsBlocked(const InterruptsBlocked&) = delete;
    InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;
    const sigset_t& previous() const { return m_previous; }

private:
    sigset_t m_previous{};
};

// The signals a started program gets at their default action although roofcast's own were ignored:
// SIGINT and SIGTERM (an ignored SIGHUP stays ignored, as nohup asked).
sigset_t signals_reset_in_child();

// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string signal_name(int signal);

} // namespace roofcast::core
