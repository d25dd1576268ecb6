// Tests of the marker library (include/roofcast/marker.h) through its C API, linked against the shared
// library itself. Each test sets the environment, re-initialises the library with its test hook (the
// library reads the environment once, at load) and parses the file it writes.
#include "marker_fixture.hpp"

#include <omp.h>
#include <thread>

namespace {

TEST_F(Marker, NestingGivesCallPathsInFirstEntryOrder) {
    roofcast_marker_testing_reinit();
    ASSERT_EQ(roofcast_marker_active(), 1);
    roofcast_region_begin("main");
    for (int i = 0; i < 3; ++i) {
        roofcast_region_begin("solve");
        roofcast_region_begin("dot");
        roofcast_region_end("dot");
        roofcast_region_begin("axpy");
        roofcast_region_end("axpy");
        roofcast_region_end("solve");
    }
    roofcast_region_begin("main"); // recursion is a path of its own
    roofcast_region_end("main");
    roofcast_region_end("main");
    roofcast_marker_flush();

    const json doc = read_only_file();
    EXPECT_EQ(doc.at("format"), "roofcast-marker");
    EXPECT_EQ(doc.at("format_version"), 1);
    EXPECT_EQ(doc.at("pid"), static_cast<int>(getpid()));
    EXPECT_EQ(doc.at("threads"), 1);
    EXPECT_EQ(doc.at("papi_events"), json::array());
    EXPECT_FALSE(doc.contains("papi_error"));
    EXPECT_EQ(doc.at("warnings"), json::array());
    std::vector<std::string> paths;
    for (const json& r : doc.at("regions")) {
        paths.push_back(r.at("path"));
    }
    EXPECT_EQ(paths, (std::vector<std::string>{"main", "main->solve", "main->solve->dot", "main->solve->axpy",
                                               "main->main"}));
    EXPECT_EQ(region(doc, "main")->at("calls"), 1);
    EXPECT_EQ(region(doc, "main->solve")->at("calls"), 3);
    EXPECT_EQ(region(doc, "main->solve->dot")->at("calls"), 3);
    EXPECT_EQ(region(doc, "main->solve->dot")->at("name"), "dot");
    EXPECT_FALSE(region(doc, "main->solve->dot")->contains("flops")); // never declared
    // Inclusive times: a region's interval encloses its children's, and the run encloses all of them.
    const double main_s = region(doc, "main")->at("seconds");
    const double solve_s = region(doc, "main->solve")->at("seconds");
    const double dot_s = region(doc, "main->solve->dot")->at("seconds");
    const double axpy_s = region(doc, "main->solve->axpy")->at("seconds");
    EXPECT_GE(solve_s, dot_s + axpy_s);
    EXPECT_GE(main_s, solve_s);
    EXPECT_GE(doc.at("wall_seconds").get<double>(), main_s);
    EXPECT_EQ(region(doc, "main")->at("thread_seconds"), json::array({main_s}));
}

TEST_F(Marker, OpenMpThreadsMergeIntoOnePathWithPerThreadSeconds) {
    constexpr int k_threads = 4;
    // Thread t opens the region t + 1 times and declares 2 flops and 16 bytes each time.
    const int team = in_team_inside_main(k_threads, [](int t) {
        for (int i = 0; i <= t; ++i) {
            roofcast_region_begin("par");
            roofcast_region_work(2.0, 16.0);
            roofcast_region_end("par");
        }
    });
    if (team != k_threads) {
        GTEST_SKIP() << "the OpenMP runtime gave " << team << " threads instead of " << k_threads;
    }

    const json doc = read_only_file();
    EXPECT_EQ(doc.at("threads"), k_threads);
    EXPECT_EQ(doc.at("warnings"), json::array());
    const json* par = region(doc, "main->par");
    ASSERT_NE(par, nullptr) << doc.dump(1);
    EXPECT_EQ(region(doc, "par"), nullptr) << "worker threads must inherit the main thread's path";
    const int calls = k_threads * (k_threads + 1) / 2;
    EXPECT_EQ(par->at("calls"), calls);
    EXPECT_EQ(par->at("flops").get<double>(), 2.0 * calls);
    EXPECT_EQ(par->at("bytes").get<double>(), 16.0 * calls);
    const auto per_thread = par->at("thread_seconds").get<std::vector<double>>();
    ASSERT_EQ(per_thread.size(), static_cast<std::size_t>(k_threads));
    double max_s = 0.0;
    for (double s : per_thread) {
        EXPECT_GT(s, 0.0);
        max_s = std::max(max_s, s);
    }
    EXPECT_EQ(par->at("seconds").get<double>(), max_s);
    // Only the main thread entered "main": the other threads' entries are zero.
    const auto main_threads = region(doc, "main")->at("thread_seconds").get<std::vector<double>>();
    ASSERT_EQ(main_threads.size(), static_cast<std::size_t>(k_threads));
    EXPECT_EQ(std::count(main_threads.begin(), main_threads.end(), 0.0), k_threads - 1);
}

// Thread 0 (the main thread) is inside its own "par" while the other threads enter theirs: they nest under
// the path at which the parallel region began ("main"), not under thread 0's open region ("main->par->par"
// before).
TEST_F(Marker, WorkersNestUnderThePathWhereTheParallelRegionBegan) {
    constexpr int k_threads = 3;
    const int team = in_team_inside_main(k_threads, [](int t) {
        if (t == 0)
            roofcast_region_begin("par");
#pragma omp barrier
        if (t != 0) {
            roofcast_region_begin("par");
            roofcast_region_end("par");
        }
#pragma omp barrier
        if (t == 0)
            roofcast_region_end("par");
    });
    if (team != k_threads) {
        GTEST_SKIP() << "the OpenMP runtime gave " << team << " threads instead of " << k_threads;
    }
    const json doc = read_only_file();
    const json* par = region(doc, "main->par");
    ASSERT_NE(par, nullptr) << doc.dump(1);
    EXPECT_EQ(par->at("calls"), k_threads) << doc.dump(1);
    EXPECT_EQ(region(doc, "main->par->par"), nullptr) << doc.dump(1);
}

TEST_F(Marker, FiguresOfFinishedThreadsAreKept) {
    roofcast_marker_testing_reinit();
    std::thread worker([] {
        roofcast_region_begin("io");
        roofcast_region_work(0.0, 4096.0);
        roofcast_region_end("io");
    });
    worker.join();
    roofcast_marker_flush();
    const json doc = read_only_file();
    EXPECT_EQ(doc.at("threads"), 1);
    ASSERT_NE(region(doc, "io"), nullptr);
    EXPECT_EQ(region(doc, "io")->at("bytes").get<double>(), 4096.0);
}

// Writes while other threads are inside regions see consistent figures; the final write has every call.
TEST_F(Marker, FlushWhileThreadsRunIsSafe) {
    roofcast_marker_testing_reinit();
    constexpr int k_threads = 3;
    constexpr int k_calls = 2000;
    std::vector<std::thread> workers;
    for (int w = 0; w < k_threads; ++w) {
        workers.emplace_back([] {
            for (int i = 0; i < k_calls; ++i) {
                roofcast_region_begin("loop");
                roofcast_region_work(1.0, 8.0);
                roofcast_region_end("loop");
            }
        });
    }
    for (int i = 0; i < 20; ++i) {
        roofcast_marker_flush();
    }
    for (auto& w : workers) {
        w.join();
    }
    roofcast_marker_flush();
    const json doc = read_only_file();
    EXPECT_EQ(doc.at("threads"), k_threads);
    ASSERT_NE(region(doc, "loop"), nullptr);
    EXPECT_EQ(region(doc, "loop")->at("calls"), k_threads * k_calls);
    EXPECT_EQ(region(doc, "loop")->at("flops").get<double>(), 1.0 * k_threads * k_calls);
    EXPECT_EQ(doc.at("warnings"), json::array());
}

TEST_F(Marker, MismatchedEndIsAWarningAndLeavesTheStack) {
    roofcast_marker_testing_reinit();
    roofcast_region_end("nothing");
    roofcast_region_begin("outer");
    roofcast_region_begin("inner");
    roofcast_region_end("outer"); // wrong: inner is open; the stack stays as it is
    roofcast_region_end("outer");
    roofcast_region_end("inner");
    roofcast_region_end("outer");
    roofcast_region_begin(nullptr);
    roofcast_marker_flush();

    const json doc = read_only_file();
    EXPECT_EQ(doc.at("warnings"),
              json::array({"region 'nothing' ended but no region is open",
                           "region 'outer' ended but the innermost open region is 'inner' (2 times)",
                           "roofcast_region_begin called with a null name; ignored"}));
    EXPECT_EQ(region(doc, "outer")->at("calls"), 1);
    EXPECT_EQ(region(doc, "outer->inner")->at("calls"), 1);
}

// The exit hook writes the file: a process of its own (the driver) leaves two regions open and exits.
TEST_F(Marker, RegionsOpenAtExitAreClosedWithAWarning) {
    const int status = run_driver({"open-at-exit"});
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const json doc = read_only_file();
    EXPECT_NE(doc.at("pid"), static_cast<int>(getpid()));
    EXPECT_EQ(region(doc, "main")->at("calls"), 1);
    EXPECT_EQ(region(doc, "main->never_ended")->at("calls"), 1);
    EXPECT_EQ(doc.at("warnings"),
              json::array({"region 'never_ended' was still open at exit (thread 0); closed at exit",
                           "region 'main' was still open at exit (thread 0); closed at exit"}));
}

TEST_F(Marker, DeclaredWorkAccumulatesInTheInnermostRegion) {
    roofcast_marker_testing_reinit();
    roofcast_region_work(1.0, 1.0); // outside any region
    roofcast_region_begin("cg");
    for (int i = 0; i < 5; ++i) {
        roofcast_region_begin("spmv");
        roofcast_region_work(1.5e6, 1.2e7);
        roofcast_region_work(0.5e6, 0.0);
        roofcast_region_end("spmv");
    }
    roofcast_region_work(-1.0, 8.0);
    const double flops = 3.0, bytes = 24.0;
    roofcast_region_work_(&flops, &bytes); // the Fortran twin
    roofcast_region_end("cg");
    roofcast_marker_flush();

    const json doc = read_only_file();
    EXPECT_EQ(region(doc, "cg->spmv")->at("flops").get<double>(), 5 * 2.0e6);
    EXPECT_EQ(region(doc, "cg->spmv")->at("bytes").get<double>(), 5 * 1.2e7);
    EXPECT_EQ(region(doc, "cg")->at("flops").get<double>(), 3.0); // exclusive: children's work is theirs
    EXPECT_EQ(region(doc, "cg")->at("bytes").get<double>(), 24.0);
    EXPECT_EQ(doc.at("warnings").size(), 2u);
    EXPECT_EQ(doc.at("warnings")[0], "work declared outside any region; ignored");
    EXPECT_EQ(
        doc.at("warnings")[1].get<std::string>().rfind("declared work is not finite and non-negative", 0),
        0u);
}

TEST_F(Marker, FortranNamesAreTrimmedOfTrailingBlanks) {
    roofcast_marker_testing_reinit();
    const char solve[] = "solve   ";
    roofcast_region_begin_(solve, sizeof solve - 1);
    roofcast_region_end_("solve", 5);
    roofcast_marker_flush_();
    EXPECT_EQ(roofcast_marker_active_(), 1);
    const json doc = read_only_file();
    ASSERT_EQ(doc.at("regions").size(), 1u);
    EXPECT_EQ(doc.at("regions")[0].at("path"), "solve");
    EXPECT_EQ(doc.at("regions")[0].at("calls"), 1);
}

TEST_F(Marker, InactiveWritesNothing) {
    unsetenv("ROOFCAST_MARKER_OUTPUT");
    roofcast_marker_testing_reinit();
    EXPECT_EQ(roofcast_marker_active(), 0);
    roofcast_region_begin("main");
    roofcast_region_work(1.0, 1.0);
    roofcast_region_end("other");
    roofcast_marker_flush();
    EXPECT_TRUE(fs::is_empty(m_dir));
}

TEST_F(Marker, RepeatedFlushReplacesTheFileAtomically) {
    roofcast_marker_testing_reinit();
    roofcast_region_begin("a");
    roofcast_region_end("a");
    roofcast_marker_flush();
    roofcast_region_begin("a");
    roofcast_region_end("a");
    roofcast_marker_flush();
    const json doc = read_only_file(); // one file, no temporary left
    EXPECT_EQ(region(doc, "a")->at("calls"), 2);
}

TEST_F(Marker, OutputDirectoryIsCreated) {
    const fs::path sub = m_dir / "out";
    setenv("ROOFCAST_MARKER_OUTPUT", sub.c_str(), 1);
    roofcast_marker_testing_reinit();
    roofcast_region_begin("a");
    roofcast_region_end("a");
    roofcast_marker_flush();
    EXPECT_TRUE(fs::exists(sub / ("marker.0." + std::to_string(getpid()) + ".json")));
}

TEST_F(Marker, RelativeOutputDirectoryIsTakenFromTheStartDirectory) {
    const fs::path start = fs::current_path();
    fs::current_path(m_dir);
    setenv("ROOFCAST_MARKER_OUTPUT", "rel", 1);
    roofcast_marker_testing_reinit();
    fs::create_directory(m_dir / "elsewhere");
    fs::current_path(m_dir / "elsewhere");
    roofcast_region_begin("a");
    roofcast_region_end("a");
    roofcast_marker_flush();
    fs::current_path(start);
    EXPECT_TRUE(fs::exists(m_dir / "rel" / ("marker.0." + std::to_string(getpid()) + ".json")));
}

TEST_F(Marker, UnwritableOutputIsAMessageNotACrash) {
    setenv("ROOFCAST_MARKER_OUTPUT", "/proc/roofcast-no-such-dir/out", 1);
    roofcast_marker_testing_reinit();
    roofcast_region_begin("a");
    roofcast_region_end("a");
    testing::internal::CaptureStderr();
    roofcast_marker_flush();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind("roofcast-marker: cannot write the marker file: /proc/roofcast-no-such-dir/out: ", 0),
              0u)
        << err;
}

TEST_F(Marker, NamesAreEscapedAndInvalidUtf8Replaced) {
    roofcast_marker_testing_reinit();
    const char* name = "say \"hi\"\n\xff";
    roofcast_region_begin(name);
    roofcast_region_end(name);
    roofcast_marker_flush();
    const json doc = read_only_file();
    ASSERT_EQ(doc.at("regions").size(), 1u);
    EXPECT_EQ(doc.at("regions")[0].at("name"), "say \"hi\"\n\xef\xbf\xbd"); // U+FFFD for the bad byte
}

TEST_F(Marker, EmptyOutputVariableIsInactive) {
    setenv("ROOFCAST_MARKER_OUTPUT", "", 1);
    roofcast_marker_testing_reinit();
    EXPECT_EQ(roofcast_marker_active(), 0);
}

struct RankCase {
    std::vector<std::pair<const char*, const char*>> env;
    int rank;
    int ranks;
    std::size_t warnings;
};

TEST_F(Marker, RankAndSizeFromTheLaunchersEnvironment) {
    const std::vector<RankCase> cases = {
        {{}, 0, 1, 0},
        {{{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"PMI_RANK", "1"}}, 3, 4, 0},
        {{{"PMIX_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "8"}}, 2, 8, 0},
        {{{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}, 1, 2, 0},
        {{{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}}, 5, 6, 0},
        {{{"OMPI_COMM_WORLD_RANK", "x1"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}, 1, 2, 1},
        {{{"PMIX_RANK", "4"}}, 4, 5, 1},
        // Out of range (past 2^30, past a long, negative, not written as an integer): ignored with a warning
        // each, never wrapped into a negative rank.
        {{{"OMPI_COMM_WORLD_RANK", "10000000000"}, {"PMI_RANK", "1e10"}, {"SLURM_PROCID", "-1"}}, 0, 1, 3},
        {{{"PMI_RANK", "99999999999999999999"}, {"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "1e10"}}, 2, 3, 3},
        {{{"PMIX_RANK", "1073741824"}}, 1073741824, 1073741825, 1},
        {{{"PMIX_RANK", "1073741825"}}, 0, 1, 1},
    };
    for (const RankCase& c : cases) {
        for (const char* name : k_env_vars) {
            if (std::string(name) != "ROOFCAST_MARKER_OUTPUT") {
                unsetenv(name);
            }
        }
        for (const auto& [name, value] : c.env) {
            setenv(name, value, 1);
        }
        roofcast_marker_testing_reinit();
        roofcast_marker_flush();
        const fs::path file =
            m_dir / ("marker." + std::to_string(c.rank) + "." + std::to_string(getpid()) + ".json");
        ASSERT_TRUE(fs::exists(file)) << file;
        const json doc = parse_marker(file);
        EXPECT_EQ(doc.at("rank"), c.rank);
        EXPECT_EQ(doc.at("ranks"), c.ranks);
        EXPECT_EQ(doc.at("warnings").size(), c.warnings) << doc.at("warnings").dump();
        EXPECT_EQ(doc.at("regions"), json::array());
        fs::remove(file);
    }
}

TEST_F(Marker, PapiFailureIsRecordedNotFatal) {
    setenv("ROOFCAST_MARKER_PAPI", "ROOFCAST_NO_SUCH_EVENT", 1);
    roofcast_marker_testing_reinit();
    roofcast_region_begin("a");
    roofcast_region_end("a");
    roofcast_marker_flush();
    const json doc = read_only_file();
    EXPECT_EQ(doc.at("papi_events"), json::array());
    ASSERT_TRUE(doc.contains("papi_error"));
    EXPECT_FALSE(doc.at("papi_error").get<std::string>().empty());
    EXPECT_FALSE(region(doc, "a")->contains("counters"));
}

// PAPI_TOT_INS is counted where the machine has counters; elsewhere (VMs) the file must say why.
TEST_F(Marker, PapiPresetIsCountedOrExplained) {
    setenv("ROOFCAST_MARKER_PAPI", "PAPI_TOT_INS", 1);
    roofcast_marker_testing_reinit();
    roofcast_region_begin("a");
    volatile double sink = 0.0;
    for (int i = 0; i < 1000; ++i) {
        sink = sink + i;
    }
    roofcast_region_end("a");
    roofcast_marker_flush();
    const json doc = read_only_file();
    if (doc.contains("papi_error")) {
        EXPECT_EQ(doc.at("papi_events"), json::array());
        EXPECT_FALSE(region(doc, "a")->contains("counters"));
        GTEST_SKIP() << "PAPI_TOT_INS not countable here: " << doc.at("papi_error").get<std::string>();
    }
    EXPECT_EQ(doc.at("papi_events"), json::array({"PAPI_TOT_INS"}));
    EXPECT_GT(region(doc, "a")->at("counters").at("PAPI_TOT_INS").get<double>(), 1000.0);
}

} // namespace
