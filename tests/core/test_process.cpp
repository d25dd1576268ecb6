#include "core/io.hpp"
#include "core/process.hpp"

#include <cerrno>
#include <filesystem>
#include <gtest/gtest.h>

using namespace roofcast::core;

TEST(Process, FindInPathFindsShellAndNotNonsense) {
    const auto sh = find_in_path("sh");
    ASSERT_TRUE(sh);
    EXPECT_EQ(sh->filename(), "sh");
    EXPECT_FALSE(find_in_path("no-such-program-roofcast"));
}

TEST(Process, RunProgramReturnsStatusAndWritesTheLog) {
    EXPECT_EQ(run_program({"sh", "-c", "exit 3"}), 3);
    EXPECT_EQ(run_program({"sh", "-c", "kill -TERM $$"}), 128 + 15);
    const auto log = std::filesystem::temp_directory_path() / "roofcast-test-process.log";
    RunOptions o;
    o.extra_env = {"ROOFCAST_TEST_VALUE=42"};
    o.output_log = log.string();
    EXPECT_EQ(run_program({"sh", "-c", "echo out $ROOFCAST_TEST_VALUE; echo err >&2"}, o), 0);
    EXPECT_EQ(read_file(log), "out 42\nerr\n");
    std::filesystem::remove(log);
    errno = 0;
    EXPECT_EQ(run_program({"no-such-program-roofcast"}), -1);
    EXPECT_NE(errno, 0);
    EXPECT_EQ(run_program({}), -1);
}

TEST(Process, RunProgramKillsAProgramPastItsTimeoutAndWaitsForOneThatEndsInTime) {
    RunOptions o;
    o.timeout_s = 0.3;
    EXPECT_EQ(run_program({"sleep", "30"}, o), k_timed_out);
    EXPECT_EQ(run_program({"sh", "-c", "exit 3"}, o), 3);
    o.timeout_s = 30;
    EXPECT_EQ(run_program({"sh", "-c", "sleep 0.05; exit 4"}, o), 4);
}

TEST(Process, FindCompanionPrefersTheEnvironmentThenBesideThenTheBuildPath) {
    ::setenv("ROOFCAST_TEST_COMPANION", "/bin/sh", 1);
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", nullptr), "/bin/sh");
    ::setenv("ROOFCAST_TEST_COMPANION", "/nonexistent/tool", 1);
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", "/bin/sh"), "");
    ::unsetenv("ROOFCAST_TEST_COMPANION");
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", "/bin/sh"), "/bin/sh");
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", nullptr), "");
}

TEST(Process, CaptureProgramBoundsOutputAndTime) {
    const CapturedOutput ok = capture_program({"sh", "-c", "echo out; echo err >&2; exit 2"});
    EXPECT_EQ(ok.status, 2);
    EXPECT_EQ(ok.output, "out\n");
    EXPECT_FALSE(ok.truncated);
    EXPECT_FALSE(ok.timed_out);

    CaptureOptions small;
    small.max_bytes = 10;
    const CapturedOutput flood = capture_program({"sh", "-c", "while :; do echo 0123456789; done"}, small);
    EXPECT_TRUE(flood.truncated);
    EXPECT_EQ(flood.output, "0123456789");
    EXPECT_EQ(flood.status, 128 + 9); // killed

    CaptureOptions quick;
    quick.timeout_s = 0.2;
    const CapturedOutput hang = capture_program({"sh", "-c", "echo started; exec sleep 30"}, quick);
    EXPECT_TRUE(hang.timed_out);
    EXPECT_EQ(hang.output, "started\n");
    EXPECT_EQ(hang.status, 128 + 9);

    EXPECT_EQ(capture_program({"no-such-program-roofcast"}).status, -1);
    EXPECT_EQ(capture_program({}).status, -1);
}
