// The signal mechanism of core/interrupt.hpp through the launchers of core/process.hpp. A caught signal
// stays recorded for the life of the process, so each case runs in a child process (a death test) and
// reports by its exit status: 0 when every check held, else the number of the first that failed.
#include "core/interrupt.hpp"
#include "core/io.hpp"
#include "core/process.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <unistd.h>

using namespace roofcast::core;
namespace fs = std::filesystem;

namespace {

// Whether process `pid` runs (a zombie does not): /proc/PID/stat's state after the command's ")".
bool running(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(") ");
    return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

// Waits up to 10 s for `pid` to end (an orphan is reaped by init meanwhile).
bool ends(pid_t pid) {
    for (int i = 0; i < 1000 && running(pid); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return !running(pid);
}

pid_t pid_in(const fs::path& file) {
    pid_t pid = 0;
    std::ifstream(file) >> pid;
    return pid;
}

void check(bool ok, int code) {
    if (!ok)
        std::_Exit(code);
}

// The program: starts a child, writes the child's pid to $0, sends its parent (roofcast) `signal` as a
// batch system would, and waits; `deaf` ignores the three signals first, child included.
std::vector<std::string> program(const fs::path& pid_file, const char* signal, bool deaf) {
    return {"sh", "-c",
            std::string(deaf ? "trap '' INT TERM HUP; " : "") + "sleep 60 & echo $! >\"$0\"; kill -" +
                signal + " $PPID; wait",
            pid_file.string()};
}

} // namespace

TEST(InterruptDeathTest, RunProgramForwardsTheSignalWaitsAndThrows) {
    EXPECT_EXIT(
        {
            const TempDirectory dir("roofcast-test-interrupt");
            const fs::path pids = dir.path() / "pid";
            try {
                run_program(program(pids, "TERM", false));
                check(false, 1); // returned instead of throwing
            } catch (const Interrupted& e) {
                check(e.signal() == SIGTERM, 2);
                check(e.exit_status() == 143, 3);
            }
            check(interrupt_signal() == SIGTERM, 4);
            check(pid_in(pids) > 0 && ends(pid_in(pids)), 5); // the program's child is gone too
            // Outside the scope the disposition is the default again.
            struct sigaction now {};
            sigaction(SIGTERM, nullptr, &now);
            check(now.sa_handler == SIG_DFL, 6);
            // Once a signal came, nothing more is started.
            try {
                run_program({"sh", "-c", "touch \"$0\"", (dir.path() / "started").string()});
                check(false, 7);
            } catch (const Interrupted&) {
            }
            check(!fs::exists(dir.path() / "started"), 8);
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(InterruptDeathTest, SigintIgnoredAtStartIsCaughtAndReachesTheProgram) {
    // A non-interactive shell starts a background job with SIGINT ignored; `kill -INT` must still stop it.
    EXPECT_EXIT(
        {
            ::signal(SIGINT, SIG_IGN);
            const TempDirectory dir("roofcast-test-interrupt");
            const fs::path pids = dir.path() / "pid";
            try {
                run_program(program(pids, "INT", false));
                check(false, 1);
            } catch (const Interrupted& e) {
                check(e.signal() == SIGINT && e.exit_status() == 130, 2);
            }
            check(pid_in(pids) > 0 && ends(pid_in(pids)), 3);
            struct sigaction now {};
            sigaction(SIGINT, nullptr, &now);
            check(now.sa_handler == SIG_IGN, 4); // restored as found
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(InterruptDeathTest, AProgramDeafToTheSignalIsKilledWithItsGroupAfterTheGrace) {
    EXPECT_EXIT(
        {
            const TempDirectory dir("roofcast-test-interrupt");
            const fs::path pids = dir.path() / "pid";
            RunOptions o;
            o.stop_grace_s = 0.3;
            try {
                run_program(program(pids, "TERM", true), o);
                check(false, 1);
            } catch (const Interrupted& e) {
                check(e.signal() == SIGTERM, 2);
            }
            check(pid_in(pids) > 0 && ends(pid_in(pids)), 3);
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(InterruptDeathTest, NohupsIgnoredHangupStaysIgnored) {
    EXPECT_EXIT(
        {
            ::signal(SIGHUP, SIG_IGN);
            {
                const InterruptScope scope;
                struct sigaction now {};
                sigaction(SIGHUP, nullptr, &now);
                check(now.sa_handler == SIG_IGN, 1);
                sigaction(SIGTERM, nullptr, &now);
                check(now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN, 2);
                ::raise(SIGHUP); // ignored: nothing recorded
                check(interrupt_signal() == 0, 3);
            }
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(InterruptDeathTest, CaptureProgramKillsTheToolAndThrows) {
    EXPECT_EXIT(
        {
            const TempDirectory dir("roofcast-test-interrupt");
            const fs::path pids = dir.path() / "pid";
            try {
                capture_program(program(pids, "HUP", false));
                check(false, 1);
            } catch (const Interrupted& e) {
                check(e.signal() == SIGHUP && e.exit_status() == 129, 2);
            }
            check(pid_in(pids) > 0 && ends(pid_in(pids)), 3);
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(Interrupt, ATimeLimitKillsTheProgramsWholeGroup) {
    const TempDirectory dir("roofcast-test-interrupt");
    const fs::path pids = dir.path() / "pid";
    RunOptions o;
    o.timeout_s = 0.3;
    EXPECT_EQ(run_program({"sh", "-c", "sleep 60 & echo $! >\"$0\"; wait", pids.string()}, o), k_timed_out);
    ASSERT_GT(pid_in(pids), 0);
    EXPECT_TRUE(ends(pid_in(pids))) << "the program's child outlived the time limit";
    EXPECT_EQ(interrupt_signal(), 0);
}

// A child the program started in the background and never waited for goes with the program.
TEST(Interrupt, WhatAProgramLeavesInItsGroupEndsWithIt) {
    const TempDirectory dir("roofcast-test-interrupt");
    const fs::path pids = dir.path() / "pid";
    EXPECT_EQ(run_program({"sh", "-c", "sleep 60 & echo $! >\"$0\"", pids.string()}), 0);
    ASSERT_GT(pid_in(pids), 0);
    EXPECT_TRUE(ends(pid_in(pids))) << "the program's background child outlived it";
}

// At the time limit the group is asked first (SIGTERM: a program may clean up, as mpirun removes its
// session directory), then killed: a program that ignores SIGTERM is killed k_timeout_grace_s later.
TEST(Interrupt, ATimeLimitAsksBeforeItKills) {
    const TempDirectory dir("roofcast-test-interrupt");
    const fs::path done = dir.path() / "cleaned";
    RunOptions o;
    o.timeout_s = 0.3;
    EXPECT_EQ(
        run_program({"sh", "-c", "trap 'echo x >\"$0\"; exit 1' TERM; sleep 60 & wait", done.string()}, o),
        k_timed_out);
    EXPECT_TRUE(fs::exists(done)) << "the program was not asked to stop before it was killed";
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(run_program({"sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"}, o), k_timed_out);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(took, o.timeout_s + k_timeout_grace_s - 0.1);
    EXPECT_LT(took, o.timeout_s + k_timeout_grace_s + 5);
}

TEST(Interrupt, TheRegistryRefusesWhenFullAndFreesItsSlots) {
    std::vector<pid_t> taken;
    for (pid_t g = 1'000'000; register_child_group(g); ++g)
        taken.push_back(g);
    EXPECT_EQ(taken.size(), 32u);
    errno = 0;
    EXPECT_EQ(run_program({"true"}), -1); // not started: a signal could not reach it
    EXPECT_EQ(errno, EAGAIN);
    for (pid_t g : taken)
        unregister_child_group(g);
    EXPECT_EQ(run_program({"true"}), 0);
}

TEST(Interrupt, LastLineOfLogSkipsALaunchersBanners) {
    const TempDirectory dir("roofcast-test-interrupt");
    const fs::path log = dir.path() / "mpirun.log";
    const std::string rule(74, '-');
    write_file_atomic(log, "roofcast-stencil: cannot allocate 8 PB\n" + rule +
                               "\nPrimary job  terminated normally, but 1 process returned\n" + rule + "\n" +
                               rule + "\nmpirun noticed that process rank 0 exited on signal 6 (Aborted).\n" +
                               rule + "\n[vm:01234] *** Process received signal ***\n\n");
    EXPECT_EQ(last_line_of_log(log), "roofcast-stencil: cannot allocate 8 PB");
    // Only a banner: its last line, which names what happened; never a rule.
    write_file_atomic(log, rule + "\nmpirun was unable to launch the specified application\n" + rule + "\n");
    EXPECT_EQ(last_line_of_log(log), "mpirun was unable to launch the specified application");
    write_file_atomic(log, "plain last line  \n");
    EXPECT_EQ(last_line_of_log(log), "plain last line");
    write_file_atomic(log, "");
    EXPECT_EQ(last_line_of_log(log), "no output");
    EXPECT_EQ(last_line_of_log(dir.path() / "missing"), "no output");
}
