#include "core/error.hpp"
#include "core/io.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace roofcast::core;

TEST(Io, AtomicWriteLeavesNoTemporaryAndReplaces) {
    const fs::path dir = fs::temp_directory_path() / "roofcast-io-test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_file_atomic(dir / "a.txt", "first");
    write_file_atomic(dir / "a.txt", "second");
    EXPECT_EQ(read_file(dir / "a.txt"), "second");
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++files;
    EXPECT_EQ(files, 1);
    fs::remove_all(dir);
}

TEST(Io, UnwritableDirectoryIsAnErrorNamingThePath) {
    try {
        write_file_atomic("/nonexistent-dir/x.yaml", "x");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.yaml"), std::string::npos);
    }
}

TEST(Io, MissingFileIsInputError) {
    EXPECT_THROW(read_file("/nonexistent-file.yaml"), InputError);
}
