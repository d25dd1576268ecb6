#include "core/error.hpp"
#include "core/io.hpp"

#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

namespace {

// A fresh directory per test, removed at the end.
struct Scratch {
    TempDirectory dir{"roofcast-io-test"};
    fs::path operator/(const std::string& name) const { return dir.path() / name; }
};

std::size_t entries(const fs::path& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++n;
    return n;
}

} // namespace

TEST(Io, ReadRefusesFifoAtOnceAndDevices) {
    Scratch s;
    const fs::path fifo = s / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    try {
        read_file(fifo); // must not block waiting for a writer
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_file("/dev/zero"), InputError);
    EXPECT_THROW(read_file(s.dir.path()), InputError);
}

TEST(Io, ReadRefusesFilesOverTheLimit) {
    Scratch s;
    write_file_atomic(s / "big", std::string(4096, 'x'));
    EXPECT_EQ(read_file(s / "big", 4096).size(), 4096u);
    try {
        read_file(s / "big", 4095);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("larger than the limit"), std::string::npos) << e.what();
    }
}

TEST(Io, ReadDropsALeadingUtf8ByteOrderMarkOnly) {
    Scratch s;
    const std::string bom = "\xEF\xBB\xBF";
    write_file_atomic(s / "bom.json", bom + "{\"a\": 1}\n");
    EXPECT_EQ(read_file(s / "bom.json"), "{\"a\": 1}\n");
    // Only the first three bytes, only the UTF-8 mark: a mark further in is content, a UTF-16 mark is not
    // UTF-8 text and is left for the reader to refuse.
    write_file_atomic(s / "two.txt", bom + bom + "x");
    EXPECT_EQ(read_file(s / "two.txt"), bom + "x");
    write_file_atomic(s / "inner.txt", "x" + bom);
    EXPECT_EQ(read_file(s / "inner.txt"), "x" + bom);
    write_file_atomic(s / "utf16.txt", std::string("\xFF\xFE{", 3));
    EXPECT_EQ(read_file(s / "utf16.txt"), std::string("\xFF\xFE{", 3));
    write_file_atomic(s / "only.txt", bom);
    EXPECT_EQ(read_file(s / "only.txt"), "");
}

// A file of more than 32 MiB is read in parts at once (one per core, up to four): every byte in its place,
// whatever the part boundaries, and a leading byte-order mark still dropped.
TEST(Io, ReadOfALargeFileInPartsKeepsEveryByte) {
    const fs::path dir = fs::temp_directory_path() / "roofcast-io-large";
    fs::remove_all(dir);
    fs::create_directories(dir);
    // 70 MiB of 64 KiB blocks, each of any bytes (the byte-order mark's included) and stamped with its
    // number.
    std::string block(std::size_t{1} << 16, '\0');
    std::uint32_t x = 12345;
    for (char& c : block) {
        x = x * 1103515245u + 12345u;
        c = static_cast<char>(x >> 24);
    }
    std::string text = "\xEF\xBB\xBF";
    for (std::size_t b = 0; b < 70 * 16; ++b) {
        text += block;
        text.replace(text.size() - block.size(), 16, fmt::format("{:016}", b));
    }
    text += "end";
    write_file_atomic(dir / "big.bin", text);
    const std::string read = read_file(dir / "big.bin");
    ASSERT_EQ(read.size(), text.size() - 3);
    EXPECT_TRUE(read == text.substr(3));
    fs::remove_all(dir);
}

TEST(Io, WriteThroughSymlinkReplacesTheTargetAndKeepsTheLink) {
    Scratch s;
    fs::create_directories(s / "real");
    write_file_atomic(s / "real" / "out.svg", "old");
    fs::create_symlink(s / "real" / "out.svg", s / "link.svg");
    write_file_atomic(s / "link.svg", "new");
    EXPECT_TRUE(fs::is_symlink(s / "link.svg"));
    EXPECT_EQ(read_file(s / "real" / "out.svg"), "new");
    EXPECT_EQ(entries(s / "real"), 1u); // no temporary left beside the target
    EXPECT_EQ(entries(s.dir.path()), 2u);
}

TEST(Io, CharacterDeviceIsWrittenInPlaceNeverReplaced) {
    write_file_atomic("/dev/null", "discarded");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    EXPECT_THROW(write_file_atomic("/dev/full", "x"), Error); // ENOSPC, reported
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(Io, FifoWithoutReaderIsAnErrorAndStaysAFifo) {
    Scratch s;
    const fs::path fifo = s / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THROW(write_file_atomic(fifo, "x"), Error);
    EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(Io, DirectoryTargetIsRefused) {
    Scratch s;
    fs::create_directories(s / "d");
    EXPECT_THROW(write_file_atomic(s / "d", "x"), Error);
    EXPECT_TRUE(fs::is_directory(s / "d"));
}

TEST(Io, OutputNamingAnInputIsRefused) {
    Scratch s;
    write_file_atomic(s / "in.json", "{}");
    fs::create_symlink(s / "in.json", s / "alias.json");
    EXPECT_THROW(ensure_distinct_output(s / "in.json", {(s / "in.json").string()}, "-o"), InputError);
    EXPECT_THROW(ensure_distinct_output(s / "alias.json", {(s / "in.json").string()}, "-o"), InputError);
    EXPECT_NO_THROW(ensure_distinct_output(s / "out.svg", {(s / "in.json").string()}, "-o"));
}

TEST(Io, TempDirectoryIsPrivateAndRemoved) {
    fs::path p;
    {
        TempDirectory t("roofcast-io-test");
        p = t.path();
        EXPECT_TRUE(fs::is_directory(p));
        EXPECT_EQ(fs::status(p).permissions() & fs::perms::all, fs::perms::owner_all);
    }
    EXPECT_FALSE(fs::exists(p));
}

TEST(Io, ReplaceDirectorySwapsTheWholeSet) {
    Scratch s;
    const fs::path dir = s / "report";
    const std::set<std::string> own = {"a.txt", "b.txt"};
    replace_directory(dir, own, [](const fs::path& st) {
        write_file_atomic(st / "a.txt", "1");
        write_file_atomic(st / "b.txt", "1");
    });
    replace_directory(dir, own, [](const fs::path& st) { write_file_atomic(st / "a.txt", "2"); });
    EXPECT_EQ(read_file(dir / "a.txt"), "2");
    EXPECT_FALSE(fs::exists(dir / "b.txt")); // the old set is gone whole, not merged
    EXPECT_EQ(entries(s.dir.path()), 1u);    // no staging or old directory left beside it
}

TEST(Io, ReplaceDirectoryKeepsTheOldSetWhenFillingFails) {
    Scratch s;
    const fs::path dir = s / "report";
    const std::set<std::string> own = {"a.txt"};
    replace_directory(dir, own, [](const fs::path& st) { write_file_atomic(st / "a.txt", "old"); });
    EXPECT_THROW(replace_directory(dir, own,
                                   [](const fs::path& st) {
                                       write_file_atomic(st / "a.txt", "half");
                                       throw Error("interrupted");
                                   }),
                 Error);
    EXPECT_EQ(read_file(dir / "a.txt"), "old");
    EXPECT_EQ(entries(s.dir.path()), 1u);
}

TEST(Io, ReplaceDirectoryRefusesADirectoryWithForeignFiles) {
    Scratch s;
    const fs::path dir = s / "home";
    fs::create_directories(dir);
    write_file_atomic(dir / "thesis.tex", "precious");
    try {
        replace_directory(dir, {"a.txt"}, [](const fs::path& st) { write_file_atomic(st / "a.txt", "x"); });
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("thesis.tex"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file(dir / "thesis.tex"), "precious");
    EXPECT_THROW(replace_directory(".", {}, [](const fs::path&) {}), Error);
}

namespace {

// The pid of a process that has exited and been reaped: nothing runs under it.
pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

} // namespace

TEST(Io, WritesRemoveTheTemporariesOfKilledWritersOnly) {
    Scratch s;
    const std::string prefix = temporary_prefix("a.txt");
    ASSERT_TRUE(prefix.starts_with(".a.txt.tmp.")) << prefix;
    const pid_t dead = dead_pid();
    const fs::path stale_file = s / (prefix + std::to_string(dead) + ".Ab3dE9");
    const fs::path stale_dir = s / (prefix + std::to_string(dead) + ".Zz0yX1");
    const fs::path stale_link = s / (prefix + std::to_string(dead) + ".qQ7wW7");
    const fs::path live = s / (prefix + std::to_string(::getppid()) + ".Ab3dE9");
    const fs::path other_host = s / (".a.txt.tmp.some-other-host." + std::to_string(dead) + ".Ab3dE9");
    const fs::path not_a_temp = s / (prefix + std::to_string(dead) + ".short");
    const fs::path outside = s / "outside.txt";
    write_file_atomic(outside, "keep");
    for (const auto& p : {stale_file, live, other_host, not_a_temp})
        write_file_atomic(p, "x");
    fs::create_directories(stale_dir / "sub");
    write_file_atomic(stale_dir / "sub" / "f", "x");
    fs::create_symlink(outside, stale_link);

    write_file_atomic(s / "a.txt", "new");
    EXPECT_EQ(read_file(s / "a.txt"), "new");
    EXPECT_FALSE(fs::exists(fs::symlink_status(stale_file)));
    EXPECT_FALSE(fs::exists(fs::symlink_status(stale_dir)));
    EXPECT_FALSE(fs::exists(fs::symlink_status(stale_link))); // the link itself, not what it names
    EXPECT_EQ(read_file(outside), "keep");
    EXPECT_TRUE(fs::exists(live));       // a process that runs may still be writing it
    EXPECT_TRUE(fs::exists(other_host)); // another host's pids say nothing here
    EXPECT_TRUE(fs::exists(not_a_temp)); // not a name the writer makes
}

TEST(Io, ReplaceDirectoryRemovesTheStagingOfAKilledRun) {
    Scratch s;
    const fs::path stale = s / (temporary_prefix("report") + std::to_string(dead_pid()) + ".Ab3dE9");
    fs::create_directories(stale);
    write_file_atomic(stale / "a.txt", "half");
    replace_directory(s / "report", {"a.txt"},
                      [](const fs::path& st) { write_file_atomic(st / "a.txt", "1"); });
    EXPECT_EQ(read_file(s / "report" / "a.txt"), "1");
    EXPECT_EQ(entries(s.dir.path()), 1u);
}

TEST(Io, TemporaryNamesOfLongTargetsFitAFileName) {
    const std::string name(250, 'n');
    EXPECT_LE(temporary_prefix(name).size() + 10 + 7, 255u);
    Scratch s;
    write_file_atomic(s / name, "fits");
    EXPECT_EQ(read_file(s / name), "fits");
}

TEST(Io, TempDirectoryRemovesThoseOfKilledRuns) {
    // The host tag is the part of a sibling prefix after ".x.tmp.".
    const std::string sibling = temporary_prefix("x");
    const std::string host = sibling.substr(std::string(".x.tmp.").size());
    const TempDirectory first("roofcast-io-stale-test");
    const fs::path base = first.path().parent_path();
    const fs::path stale = base / ("roofcast-io-stale-test." + host + std::to_string(dead_pid()) + ".Ab3dE9");
    fs::create_directories(stale);
    const TempDirectory second("roofcast-io-stale-test");
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(first.path())); // this process's own, still in use
    EXPECT_NE(first.path(), second.path());
}

TEST(Io, ADanglingLinkNamesTheFileToCreateAndStays) {
    Scratch s;
    fs::create_directories(s / "real");
    fs::create_symlink("real/new.svg", s / "dl.svg");  // relative, to a file not there yet
    fs::create_symlink(s / "dl.svg", s / "chain.svg"); // a link to the link
    write_file_atomic(s / "chain.svg", "chart");
    EXPECT_TRUE(fs::is_symlink(s / "dl.svg"));
    EXPECT_TRUE(fs::is_symlink(s / "chain.svg"));
    EXPECT_EQ(read_file(s / "real" / "new.svg"), "chart");
    fs::create_symlink(s / "loop-b", s / "loop-a");
    fs::create_symlink(s / "loop-a", s / "loop-b");
    EXPECT_THROW(write_file_atomic(s / "loop-a", "x"), Error);
    EXPECT_TRUE(fs::is_symlink(s / "loop-a"));
}
