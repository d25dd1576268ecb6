// The marker tests' fixture: a fresh output directory in ROOFCAST_MARKER_OUTPUT and the launchers' variables
// unset for each test, the file read back (and read by roofcast's own reader of marker files, which must
// accept every file the library writes), and the driver program for what needs a process of its own.
#pragma once

#include "measure/profile/marker_file.hpp"
#include "roofcast/marker.h"
#include "testing.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

inline const char* const k_env_vars[] = {"ROOFCAST_MARKER_OUTPUT",
                                         "ROOFCAST_MARKER_PAPI",
                                         "OMPI_COMM_WORLD_RANK",
                                         "OMPI_COMM_WORLD_SIZE",
                                         "PMIX_RANK",
                                         "PMI_RANK",
                                         "PMI_SIZE",
                                         "SLURM_PROCID",
                                         "SLURM_NTASKS"};

// A marker file's text, parsed; a failure of roofcast's own reader on it fails the test.
inline json parse_marker(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    try {
        (void)roofcast::measure::profile::parse_marker_file(text.str(), file.string());
    } catch (const std::exception& e) {
        ADD_FAILURE() << "roofcast's reader refuses the library's file: " << e.what();
    }
    return json::parse(text.str());
}

// Waits for `child` at most `seconds`; a child still running then is killed and the test fails.
inline int wait_bounded(pid_t child, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (waitpid(child, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            ADD_FAILURE() << "process " << child << " still running after " << seconds << " s: killed";
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return status;
}

class Marker : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* name : k_env_vars) {
            unsetenv(name);
        }
        std::string pattern = (fs::temp_directory_path() / "roofcast-marker-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        m_dir = pattern;
        setenv("ROOFCAST_MARKER_OUTPUT", m_dir.c_str(), 1);
    }
    void TearDown() override {
        for (const char* name : k_env_vars) {
            unsetenv(name);
        }
        roofcast_marker_testing_reinit(); // inactive again: nothing is written when the test binary exits
        fs::remove_all(m_dir);
    }

    // The one marker file in the output directory (no temporary file left beside it), parsed.
    json read_only_file() const {
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(m_dir)) {
            files.push_back(entry.path());
        }
        EXPECT_EQ(files.size(), 1u);
        if (files.size() != 1) {
            return json();
        }
        EXPECT_EQ(files[0].filename().string().rfind("marker.", 0), 0u) << files[0];
        return parse_marker(files[0]);
    }

    // Runs roofcast-marker-driver with `args` in this environment (so writing into m_dir) and returns its
    // wait status; a run past `seconds` is killed and fails the test.
    static int run_driver(std::vector<std::string> args, double seconds = 120) {
        args.insert(args.begin(), ROOFCAST_MARKER_DRIVER);
        std::vector<char*> argv;
        for (auto& a : args) {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        pid_t child = 0;
        if (posix_spawn(&child, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
            ADD_FAILURE() << "cannot start " << argv[0];
            return -1;
        }
        return wait_bounded(child, seconds);
    }

    // A fresh marker state; "main" open on this thread while every thread of an OpenMP team of `threads` runs
    // `body(thread number)`; then the file written. Returns the team size the runtime gave (a test skips when
    // it is not `threads`).
    template <class Body> static int in_team_inside_main(int threads, Body body) {
        roofcast_marker_testing_reinit();
        int team = 0;
        roofcast_region_begin("main");
#pragma omp parallel num_threads(threads)
        {
#pragma omp single
            team = omp_get_num_threads();
            body(omp_get_thread_num());
        }
        roofcast_region_end("main");
        roofcast_marker_flush();
        return team;
    }

    static const json* region(const json& doc, const std::string& path) {
        for (const json& r : doc.at("regions")) {
            if (r.at("path") == path) {
                return &r;
            }
        }
        return nullptr;
    }

    fs::path m_dir;
};
