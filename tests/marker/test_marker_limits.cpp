// Tests of the marker library past its bounds (docs/formats-marker.md, "Limits"): deep nesting, many call
// paths, forks while other threads are inside the library, huge and control-character names, declared work
// past the range of a double. Each file written must still be one roofcast's reader accepts (the fixture
// checks). The process-level cases under a time limit are tests/e2e/marker_limits.sh.
#include "core/doc.hpp"
#include "marker_fixture.hpp"
#include "state.hpp" // the library's bounds, as constants

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

// Set in a forked child, whose exit must not run LeakSanitizer (in ASan builds): the threads of the parent
// do not exist in the child, so what they held looks leaked, and stopping them for the check can hang.
// LeakSanitizer asks this hook before its check at exit; other builds never call it.
static bool g_forked_child = false;
extern "C" int __lsan_is_turned_off() {
    return g_forked_child ? 1 : 0;
}

namespace {

using roofcast::marker::detail::k_max_depth;
using roofcast::marker::detail::k_max_name_bytes;
using roofcast::marker::detail::k_max_regions;
using roofcast::marker::detail::k_max_work;

// prefix + number + suffix (built by appending: GCC 12's -Wrestrict misfires on `"x" + std::to_string(n)`).
std::string numbered(const char* prefix, long n, const char* suffix = "") {
    std::string text = prefix;
    text += std::to_string(n);
    text += suffix;
    return text;
}

// The lines of `text` (stderr as captured).
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

bool has_control_character(const std::string& text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7F;
    });
}

TEST_F(Marker, ReadersBoundsAreTheLibrarys) {
    // The library's bounds keep its files inside what roofcast's reader takes.
    EXPECT_LE(k_max_regions, roofcast::measure::profile::k_marker_max_regions);
    EXPECT_LT(roofcast::marker::detail::k_max_region_bytes + (std::uintmax_t{1} << 20),
              roofcast::measure::profile::k_marker_max_file_bytes);
    EXPECT_EQ(k_max_work, roofcast::core::k_max_events);
}

// Past k_max_depth levels begins and ends are counted, not recorded: the levels below stay balanced, the
// work declared inside goes to the deepest recorded region, and stderr hears of it once.
TEST_F(Marker, DeepNestingIsBoundedCountedAndWarnedOnce) {
    roofcast_marker_testing_reinit();
    const long levels = 3 * static_cast<long>(k_max_depth);
    testing::internal::CaptureStderr();
    for (int round = 0; round < 2; ++round) {
        for (long i = 0; i < levels; ++i) {
            roofcast_region_begin(i == 0 ? "top" : "level");
        }
        roofcast_region_work(2.0, 16.0);
        for (long i = levels - 1; i >= 0; --i) {
            roofcast_region_end(i == 0 ? "top" : "level");
        }
    }
    roofcast_region_begin("after"); // balanced: the next region is an outermost one again
    roofcast_region_end("after");
    roofcast_marker_flush();
    const std::vector<std::string> err = lines_of(testing::internal::GetCapturedStderr());
    ASSERT_EQ(err.size(), 1u) << testing::PrintToString(err);
    EXPECT_NE(err[0].find(numbered("nested deeper than ", k_max_depth, " levels")), std::string::npos)
        << err[0];

    const json doc = read_only_file();
    ASSERT_EQ(doc.at("regions").size(), k_max_depth + 1) << "the recorded levels and 'after'";
    const json& deepest = doc.at("regions")[k_max_depth - 1];
    const std::string deepest_path = deepest.at("path");
    EXPECT_EQ(std::count(deepest_path.begin(), deepest_path.end(), '>'), static_cast<long>(k_max_depth) - 1);
    EXPECT_EQ(deepest.at("calls"), 2);
    EXPECT_EQ(deepest.at("flops").get<double>(), 4.0);
    ASSERT_NE(region(doc, "after"), nullptr);
    EXPECT_EQ(region(doc, "after")->at("calls"), 1);
    EXPECT_EQ(region(doc, "top")->at("calls"), 2);
    const std::string expected = numbered("", 2 * (levels - static_cast<long>(k_max_depth))) +
                                 numbered(" region begins nested deeper than ", k_max_depth, " levels");
    ASSERT_EQ(doc.at("warnings").size(), 1u) << doc.at("warnings").dump();
    EXPECT_EQ(doc.at("warnings")[0].get<std::string>().rfind(expected, 0), 0u) << doc.at("warnings")[0];
}

// Levels past the bound still open at exit are closed then, counted in one warning.
TEST_F(Marker, DeepLevelsOpenAtExitAreCounted) {
    const int status = run_driver({"deep-open", std::to_string(k_max_depth + 10)});
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const json doc = read_only_file();
    EXPECT_EQ(doc.at("regions").size(), k_max_depth);
    const std::string warnings = doc.at("warnings").dump();
    EXPECT_NE(warnings.find("10 levels past the library's bounds were still open at exit"), std::string::npos)
        << warnings;
}

// 150,000 distinct regions: the first k_max_regions paths are recorded (the reader's bound), the rest
// counted; looking a child up costs the same with 100,000 siblings as with 10 (hashed), so this test takes
// a second where a linear lookup took minutes (no time is asserted: the e2e test bounds it).
TEST_F(Marker, ManyDistinctRegionsAreBoundedAndCounted) {
    roofcast_marker_testing_reinit();
    constexpr long k_regions = 150000;
    testing::internal::CaptureStderr();
    roofcast_region_begin("main");
    for (long round = 0; round < 2; ++round) {
        for (long i = 0; i < k_regions; ++i) {
            const std::string name = numbered("r", i);
            roofcast_region_begin(name.c_str());
            roofcast_region_work(1.0, 0.0);
            roofcast_region_end(name.c_str());
        }
    }
    roofcast_region_end("main");
    roofcast_marker_flush();
    const std::vector<std::string> err = lines_of(testing::internal::GetCapturedStderr());
    EXPECT_EQ(err.size(), 1u) << testing::PrintToString(err);

    const json doc = read_only_file();
    ASSERT_EQ(doc.at("regions").size(), k_max_regions);
    const long recorded = static_cast<long>(k_max_regions) - 1; // "main" is one of the paths
    for (long i : {0L, 1L, 9L, 10L, recorded - 1}) {
        const json* r = region(doc, numbered("main->r", i));
        ASSERT_NE(r, nullptr) << i;
        EXPECT_EQ(r->at("calls"), 2) << i;
        EXPECT_EQ(r->at("flops").get<double>(), 2.0) << i;
    }
    EXPECT_EQ(region(doc, numbered("main->r", recorded)), nullptr);
    // Work of the regions not recorded is in the enclosing one, "main".
    EXPECT_EQ(region(doc, "main")->at("flops").get<double>(), 2.0 * (k_regions - recorded));
    ASSERT_EQ(doc.at("warnings").size(), 1u) << doc.at("warnings").dump();
    EXPECT_EQ(doc.at("warnings")[0].get<std::string>().rfind(
                  std::to_string(2 * (k_regions - recorded)) + " region begins on new call paths", 0),
              0u)
        << doc.at("warnings")[0];
}

// The hashed lookup finds the same child as the scan: many siblings, each entered several times, in an
// order that is not the order of creation.
TEST_F(Marker, SiblingsPastTheScanAreFoundAgain) {
    roofcast_marker_testing_reinit();
    constexpr int k_siblings = 40;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < k_siblings; ++i) {
            const std::string name = numbered("s", (i * 7 + round) % k_siblings);
            roofcast_region_begin(name.c_str());
            roofcast_region_end(name.c_str());
        }
    }
    roofcast_marker_flush();
    const json doc = read_only_file();
    ASSERT_EQ(doc.at("regions").size(), static_cast<std::size_t>(k_siblings));
    for (const json& r : doc.at("regions")) {
        EXPECT_EQ(r.at("calls"), 3) << r.at("path");
    }
}

// Forks while two threads are inside the library without pause (so one of them holds its lock at most
// forks): every child begins and ends a region and exits within the time limit; the library is inactive in
// a child (it writes no file: the file is per rank, a child's would stand for its parent's); the parent's
// file has every call of its threads.
TEST_F(Marker, ForkedChildrenUseAndExitTheLibrary) {
    roofcast_marker_testing_reinit();
    constexpr int k_children = 40;
    std::atomic<bool> stop{false};
    std::atomic<long> calls{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w) {
        workers.emplace_back([&] {
            long mine = 0;
            while (!stop.load(std::memory_order_relaxed)) {
                roofcast_region_begin("work");
                roofcast_region_work(1.0, 8.0);
                roofcast_region_end("work");
                ++mine;
            }
            calls += mine;
        });
    }
    roofcast_region_begin("main");
    int clean = 0;
    for (int c = 0; c < k_children; ++c) {
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            g_forked_child = true;
            roofcast_region_begin("child");
            roofcast_region_work(1.0, 1.0);
            roofcast_region_end("child");
            roofcast_marker_flush();
            std::exit(roofcast_marker_active() == 0 ? 0 : 3); // exit(): the library's unload hook runs
        }
        const int status = wait_bounded(child, 60);
        clean += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : 0;
    }
    roofcast_region_end("main");
    stop = true;
    for (auto& w : workers) {
        w.join();
    }
    EXPECT_EQ(clean, k_children);
    roofcast_marker_flush();
    const json doc = read_only_file(); // one file: the children wrote none
    EXPECT_EQ(doc.at("pid"), static_cast<int>(getpid()));
    EXPECT_EQ(region(doc, "main")->at("calls"), 1);
    long work_calls = 0;
    for (const json& r : doc.at("regions")) {
        EXPECT_EQ(r.at("path").get<std::string>().find("child"), std::string::npos) << r.at("path");
        if (r.at("name") == "work") {
            work_calls += r.at("calls").get<long>();
        }
    }
    EXPECT_EQ(work_calls, calls.load());
    EXPECT_EQ(doc.at("warnings"), json::array());
}

// A 1 MB name is stored as its first k_max_name_bytes bytes (cut before a character, not inside one), with
// one warning; begin and end still match. Control characters reach the file JSON-escaped and the warnings
// escaped as \n or \xHH; 200,000 warnings are summarised in at most 101 lines.
TEST_F(Marker, HugeAndControlCharacterNamesAreBoundedAndEscaped) {
    roofcast_marker_testing_reinit();
    std::string huge(k_max_name_bytes - 1, 'h');
    huge += "\xc3\xa9"; // U+00E9 across the bound: not cut in half
    huge += std::string(1 << 20, '\x1b');
    roofcast_region_begin(huge.c_str());
    roofcast_region_end(huge.c_str());
    const char* odd = "line\nbreak \x1b[31mred\x1b[0m";
    roofcast_region_begin(odd);
    roofcast_region_end("other"); // a mismatch names both regions
    roofcast_region_end(odd);
    roofcast_region_begin("");
    roofcast_region_end("");
    constexpr long k_bad_ends = 200000;
    for (long i = 0; i < k_bad_ends; ++i) {
        roofcast_region_end(numbered("\x1b]0;x\x07 ", i).c_str());
    }
    testing::internal::CaptureStderr();
    roofcast_marker_flush();
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

    const json doc = read_only_file();
    ASSERT_EQ(doc.at("regions").size(), 3u) << doc.at("regions").dump();
    EXPECT_EQ(doc.at("regions")[0].at("name"), std::string(k_max_name_bytes - 1, 'h'));
    EXPECT_EQ(doc.at("regions")[0].at("calls"), 1);
    EXPECT_EQ(doc.at("regions")[1].at("name"), odd);
    EXPECT_EQ(doc.at("regions")[1].at("calls"), 1);
    EXPECT_EQ(doc.at("regions")[2].at("path"), "(unnamed)");
    const auto warnings = doc.at("warnings").get<std::vector<std::string>>();
    ASSERT_EQ(warnings.size(), 101u);
    for (const std::string& w : warnings) {
        EXPECT_FALSE(has_control_character(w)) << w;
        EXPECT_LT(w.size(), 400u) << w;
    }
    EXPECT_EQ(warnings[0].rfind("region name 'hhh", 0), 0u) << warnings[0];
    EXPECT_NE(warnings[0].find(numbered("(", static_cast<long>(huge.size()), " bytes) is longer than")),
              std::string::npos)
        << warnings[0];
    EXPECT_EQ(warnings[1],
              "region 'other' ended but the innermost open region is 'line\\nbreak \\x1b[31mred\\x1b[0m'");
    EXPECT_EQ(warnings[2], "region '\\x1b]0;x\\x07 0' ended but no region is open");
    EXPECT_EQ(warnings[100], std::to_string(k_bad_ends - 98) + " further warnings not recorded");
}

// Declared work that would take a region's sum past k_max_work (roofcast's bound on a run's events, 1e30)
// is refused with a warning; sums over threads past it are written as k_max_work with a warning: the file
// never holds inf or null, nor a figure a profile made from it could not hold.
TEST_F(Marker, WorkPastTheBoundIsRefusedOrSaturated) {
    roofcast_marker_testing_reinit();
    roofcast_region_begin("big");
    roofcast_region_work(1e300, 1.0); // past the bound alone
    for (int i = 0; i < 3; ++i) {
        roofcast_region_work(4e29, 1.0); // the third would pass it
    }
    roofcast_region_end("big");
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([] {
            roofcast_region_begin("shared");
            roofcast_region_work(6e29, 8.0); // each within the bound, their sum past it
            roofcast_region_end("shared");
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    roofcast_marker_flush();
    const json doc = read_only_file();
    EXPECT_EQ(region(doc, "big")->at("flops").get<double>(), 8e29);
    EXPECT_EQ(region(doc, "big")->at("bytes").get<double>(), 2.0) << "a refused declaration is refused whole";
    EXPECT_EQ(region(doc, "shared")->at("flops").get<double>(), k_max_work);
    EXPECT_EQ(region(doc, "shared")->at("bytes").get<double>(), 16.0);
    EXPECT_EQ(doc.at("warnings"),
              json::array({"declared work of region 'big' would sum past 1e+30 (roofcast's bound on a run's "
                           "events); ignored (2 times)",
                           "region 'shared': flops summed over threads exceeds 1e+30; written as 1e+30"}));
}

// A write that fails is said once on stderr, escaped, however often the program flushes; the exit hook adds
// the count.
TEST_F(Marker, RepeatedWriteFailuresAreSaidOnce) {
    setenv("ROOFCAST_MARKER_OUTPUT", "/proc/roofcast-no-such-dir/\x1b[2J", 1);
    roofcast_marker_testing_reinit();
    testing::internal::CaptureStderr();
    for (int i = 0; i < 1000; ++i) {
        roofcast_marker_flush();
    }
    const std::vector<std::string> err = lines_of(testing::internal::GetCapturedStderr());
    ASSERT_EQ(err.size(), 1u) << testing::PrintToString(err);
    EXPECT_EQ(err[0].rfind(
                  "roofcast-marker: cannot write the marker file: /proc/roofcast-no-such-dir/\\x1b[2J: ", 0),
              0u)
        << err[0];
}

} // namespace
