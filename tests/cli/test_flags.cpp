// cli::describe: the one line an InputError becomes on the terminal.
#include "cli/flags.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>
#include <string>

using roofcast::cli::describe;
using roofcast::core::InputError;

TEST(Describe, AnErrorIsOneTerminalSafeLineWhateverTheFileHolds) {
    const std::string evil_file = "k\x1b[31mRED\nroofcast: error: INJECTED\x07.yaml";
    const std::string line =
        describe(InputError(evil_file, "name", "expected a number, got '" + std::string(200000, '9') + "'"));
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line.find('\x1b'), std::string::npos);
    EXPECT_LT(line.size(), 600u);
    EXPECT_NE(line.find("k\\x1b[31mRED\\x0aroofcast"), std::string::npos) << line;
    EXPECT_NE(line.find("more characters]"), std::string::npos) << line;
}
