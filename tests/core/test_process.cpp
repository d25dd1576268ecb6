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

TEST(Process, FindCompanionPrefersTheEnvironmentThenBesideThenTheBuildPath) {
    ::setenv("ROOFCAST_TEST_COMPANION", "/bin/sh", 1);
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", nullptr), "/bin/sh");
    ::setenv("ROOFCAST_TEST_COMPANION", "/nonexistent/tool", 1);
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", "/bin/sh"), "");
    ::unsetenv("ROOFCAST_TEST_COMPANION");
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", "/bin/sh"), "/bin/sh");
    EXPECT_EQ(find_companion("no-such-companion", "ROOFCAST_TEST_COMPANION", nullptr), "");
}
