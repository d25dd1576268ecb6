// The profile backends' registry: one entry per backend file, unique names, and the choice `auto` makes.
#include "measure/profile/backend.hpp"
#include "measure/profile/runner.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

namespace fs = std::filesystem;
using namespace roofcast::measure::profile;

TEST(ProfileBackends, EveryBackendFileIsRegisteredOnceUnderItsName) {
    // docs/extending.md: a backend is one file src/measure/profile/backend_<name>.cpp and one registry line.
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(fs::path(ROOFCAST_SOURCE_DIR) / "src/measure/profile")) {
        const std::string n = e.path().filename().string();
        if (n.rfind("backend_", 0) == 0 && e.path().extension() == ".cpp" && n != "backend_registry.cpp")
            files.insert(n.substr(8, n.size() - 12));
    }
    const std::vector<std::string> names = profile_backend_names();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "a name twice";
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), files);
    for (const std::string& n : names) {
        const auto b = make_backend(n);
        EXPECT_EQ(b->name(), n);
        EXPECT_FALSE(b->summary().empty()) << n;
        EXPECT_FALSE(b->availability("").reason.empty()) << n << ": availability says why";
    }
}

TEST(ProfileBackends, UnknownNameListsTheRegistry) {
    try {
        (void)make_backend("gprof");
        FAIL() << "no error";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        for (const std::string& n : profile_backend_names())
            EXPECT_NE(what.find(n), std::string::npos) << what;
    }
}

TEST(ProfileBackends, AutoPicksAUsableBackendAndSaysWhy) {
    const BackendChoice c = choose_backend("auto");
    const auto b = make_backend(c.backend);
    const Availability a = b->availability("");
    EXPECT_TRUE(a.usable);
    EXPECT_NE(c.reason.find(a.reason), std::string::npos) << c.reason;
    // A backend that counts with hardware counters wins over every other that can run.
    bool counters = false;
    for (const std::string& n : profile_backend_names())
        counters = counters || make_backend(n)->availability("").hardware_counters;
    EXPECT_EQ(a.hardware_counters, counters);
    // The time backend runs everywhere.
    EXPECT_EQ(choose_backend("time").backend, "time");
}

TEST(PerfSamples, TheKernelsFunctionsAreKeptApartFromTheProgramsOwn) {
    PerfEventReport report;
    report.event = "cpu-clock";
    PerfSymbol own;
    own.name = "triad";
    own.dso = "prog";
    own.period = 2e8;
    own.percent = 80;
    PerfSymbol kernel = own;
    kernel.name = "clear_page_erms";
    kernel.dso = "[kernel.kallsyms]";
    kernel.kernel = true;
    kernel.period = 5e7;
    kernel.percent = 20;
    report.symbols = {own, kernel};
    Gather g(1, 1);
    add_perf_samples({report}, 0, 0, g, [](const PerfSymbol& s) { return s.name + "'"; });
    std::vector<std::string> warnings;
    const auto functions = g.take(warnings);
    ASSERT_EQ(functions.size(), 2u);
    EXPECT_EQ(functions[0].name, "triad'"); // under the name name_of gives
    EXPECT_EQ(functions[0].kind, "function");
    EXPECT_DOUBLE_EQ(functions[0].metrics.at("time").per_rank[0][0], 0.2);
    EXPECT_EQ(functions[1].kind, "library");
    EXPECT_DOUBLE_EQ(functions[1].metrics.at("time_percent").per_rank[0][0], 20);
}

// `ld.so --list-tunables` of glibc 2.36 on an AMD EPYC: the thresholds its string functions choose loops by.
TEST(GlibcTunables, ReadsTheCacheThresholdsAsATunablesValue) {
    const std::string listed =
        "glibc.malloc.hugetlb: 0x0 (min: 0x0, max: 0xffffffffffffffff)\n"
        "glibc.cpu.x86_shared_cache_size: 0x14000000 (min: 0x0, max: 0xffffffffffffffff)\n"
        "glibc.cpu.x86_rep_movsb_threshold: 0x840 (min: 0x200, max: 0xffffffffffffffff)\n"
        "glibc.cpu.x86_rep_stosb_threshold: 0x800 (min: 0x1, max: 0xffffffffffffffff)\n"
        "glibc.cpu.x86_non_temporal_threshold: 0xf000000 (min: 0x4040, max: 0xfff)\n"
        "glibc.cpu.x86_shstk:\n"
        "glibc.cpu.hwcaps:\n"
        "glibc.cpu.x86_data_cache_size: 0x8000 (min: 0x0, max: 0xffffffffffffffff)";
    EXPECT_EQ(glibc_cache_tunables(listed),
              "glibc.cpu.x86_shared_cache_size=0x14000000:glibc.cpu.x86_rep_movsb_threshold=0x840:"
              "glibc.cpu.x86_rep_stosb_threshold=0x800:glibc.cpu.x86_non_temporal_threshold=0xf000000:"
              "glibc.cpu.x86_data_cache_size=0x8000");
    EXPECT_EQ(glibc_cache_tunables("glibc.cpu.x86_rep_movsb_threshold: lots\nld.so: unrecognized option\n"),
              "");
    EXPECT_EQ(glibc_cache_tunables(""), "");
}

TEST(ProfileBackends, PassesAtOnceAsRequestedOrSharingTheCoresBest) {
    EXPECT_EQ(passes_at_once(2, 1, 3, 2), 2U); // as requested, whatever the cores
    EXPECT_EQ(passes_at_once(5, 4, 3, 64), 5U);
    // Three passes on two cores: 2 then 1 takes two passes' time, all three sharing them 1.5.
    EXPECT_EQ(passes_at_once(0, 1, 3, 2), 3U);
    // Enough cores: all at once. One core: one after another (no gain from sharing, one copy in memory).
    EXPECT_EQ(passes_at_once(0, 1, 3, 16), 3U);
    EXPECT_EQ(passes_at_once(0, 1, 3, 1), 1U);
    // Four passes on two cores: two at a time (2 rounds) ties all four at once (2 passes' time): fewer
    // copies.
    EXPECT_EQ(passes_at_once(0, 1, 4, 2), 2U);
    // Ranks poll: launches of 4 ranks never share cores: two at once on 8 cores, one on 2.
    EXPECT_EQ(passes_at_once(0, 4, 3, 8), 2U);
    EXPECT_EQ(passes_at_once(0, 4, 3, 2), 1U);
    EXPECT_EQ(passes_at_once(0, 1, 0, 2), 1U); // nothing simulated: one
    EXPECT_EQ(passes_at_once(0, 1, 3, 0), 1U); // unknown cores count as one
}

TEST(ValgrindLogs, OneLogPerProcessWithTheRanksProgramLast) {
    // --log-file with %p where children are followed: an MPI program started without mpirun and the
    // orted it spawned, and a rank's log of the older single-file layout.
    const auto dir =
        std::filesystem::temp_directory_path() /
        ("roofcast-test-vglogs-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto write = [&dir](const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
    };
    write("valgrind.0.900.log", "==900== Callgrind, a call-graph generating cache profiler\n"
                                "==900== Command: ./cg --n 32\n==900== Parent PID: 400\n==900== \n"
                                "==900== I   refs:      54,279,295\n");
    write("valgrind.0.901.log", "==901== Command: /usr/bin/orted --hnp --set-sid\n==901== Parent PID: 900\n");
    write("valgrind.1.log", "==950== Command: ./cg\n==950== Parent PID: 401\n==950== last words\n");
    write("valgrind.0.x.log", "not a process's log\n");
    write("valgrind.10.977.log", "==977== Command: another rank\n");

    const std::vector<ValgrindLog> rank0 = valgrind_logs(dir, "valgrind", 0);
    ASSERT_EQ(rank0.size(), 2U);
    EXPECT_EQ(rank0[0].pid, 901);
    EXPECT_EQ(rank0[0].parent, 900);
    EXPECT_EQ(rank0[0].command, "/usr/bin/orted --hnp --set-sid");
    EXPECT_EQ(rank0[1].pid, 900); // the program: its parent is no process of the logs
    EXPECT_EQ(rank0[1].command, "./cg --n 32");
    EXPECT_EQ(last_line(rank0[1].text), "==900== I   refs:      54,279,295");

    const std::vector<ValgrindLog> rank1 = valgrind_logs(dir, "valgrind", 1);
    ASSERT_EQ(rank1.size(), 1U);
    EXPECT_EQ(rank1[0].pid, 950);
    EXPECT_EQ(last_line(rank1[0].text), "==950== last words");
    EXPECT_TRUE(valgrind_logs(dir, "valgrind", 2).empty());
    EXPECT_TRUE(valgrind_logs(dir / "absent", "valgrind", 0).empty());
    std::filesystem::remove_all(dir);
}
