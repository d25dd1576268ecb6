// roofcast-marker-driver: programs that take the marker library past its bounds, each in a process of its
// own (the library reads its environment at load and writes at exit). tests/e2e/marker_limits.sh runs them
// under a time limit; test_marker runs the ones whose exit it checks.
// Usage: roofcast-marker-driver SCENARIO [N]
//   deep N          N nested regions, work declared in the innermost, then N ends
//   deep-open N     N nested regions left open at exit
//   distinct N      N distinct regions, each begun and ended once, inside "main"
//   fork N          2 threads begin and end "work" without pause while the main thread forks N children,
//                   each of which begins and ends "child" and calls exit(); prints the threads' calls
//   open-at-exit    "main" and "main->never_ended" left open, a flush, then exit()
//   names N         a 1 MB name with control characters, a name with a newline and an escape sequence,
//                   and N ends of regions that are not open (N distinct names)
//   work-overflow   work of 1e300 and twice 6e29 declared in one region (past the library's bound of
//                   1e30), and 6e29 by each of two threads in one path (the sum over threads is past it)
#include "roofcast/marker.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

// Set in a forked child, whose exit must not run LeakSanitizer (in ASan builds): the threads of the parent
// do not exist in the child, so what they held looks leaked, and stopping them for the check can hang.
// LeakSanitizer asks this hook before its check at exit; other builds never call it.
static bool g_forked_child = false;
extern "C" int __lsan_is_turned_off() {
    return g_forked_child ? 1 : 0;
}

namespace {

long parse_count(const char* text) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 0) {
        std::fprintf(stderr, "roofcast-marker-driver: error: %s: expected a non-negative integer\n", text);
        std::exit(2);
    }
    return value;
}

void deep(long n) {
    for (long i = 0; i < n; ++i) {
        roofcast_region_begin("level");
    }
    roofcast_region_work(1.0, 8.0);
    for (long i = 0; i < n; ++i) {
        roofcast_region_end("level");
    }
}

void distinct(long n) {
    roofcast_region_begin("main");
    for (long i = 0; i < n; ++i) {
        const std::string name = "region " + std::to_string(i);
        roofcast_region_begin(name.c_str());
        roofcast_region_end(name.c_str());
    }
    roofcast_region_end("main");
}

int forks(long n) {
    std::atomic<bool> stop{false};
    std::atomic<long> calls{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w) {
        workers.emplace_back([&] {
            long mine = 0;
            while (!stop.load(std::memory_order_relaxed)) {
                roofcast_region_begin("work");
                roofcast_region_end("work");
                ++mine;
            }
            calls += mine;
        });
    }
    int failed = 0;
    roofcast_region_begin("main");
    for (long c = 0; c < n; ++c) {
        const pid_t child = fork();
        if (child < 0) {
            std::perror("roofcast-marker-driver: fork");
            failed = 1;
            break;
        }
        if (child == 0) {
            g_forked_child = true;
            roofcast_region_begin("child");
            roofcast_region_work(1.0, 1.0);
            roofcast_region_end("child");
            roofcast_marker_flush();
            std::exit(roofcast_marker_active() == 0 ? 0 : 3);
        }
        int status = 0;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "roofcast-marker-driver: child %ld ended with status %d\n", c, status);
            failed = 1;
        }
    }
    roofcast_region_end("main");
    stop = true;
    for (auto& w : workers) {
        w.join();
    }
    std::printf("work calls: %ld\n", calls.load());
    return failed;
}

void names(long n) {
    std::string huge(1 << 20, 'x');
    for (std::size_t i = 0; i < huge.size(); i += 1000) {
        huge[i] = static_cast<char>(1 + i % 31); // control characters all along
    }
    roofcast_region_begin(huge.c_str());
    roofcast_region_end(huge.c_str());
    const char* odd = "line\nbreak \x1b[31mred\x1b[0m \x07";
    roofcast_region_begin(odd);
    roofcast_region_end(odd);
    for (long i = 0; i < n; ++i) {
        const std::string name = "\x1b]0;title\x07 " + std::to_string(i) + "\n";
        roofcast_region_end(name.c_str());
    }
}

void work_overflow() {
    roofcast_region_begin("big");
    roofcast_region_work(1e300, 1.0);
    roofcast_region_work(6e29, 1.0);
    roofcast_region_work(6e29, 1.0);
    roofcast_region_end("big");
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([] {
            roofcast_region_begin("shared");
            roofcast_region_work(6e29, 6e29);
            roofcast_region_end("shared");
        });
    }
    for (auto& t : threads) {
        t.join();
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: roofcast-marker-driver SCENARIO [N]\n");
        return 2;
    }
    const std::string scenario = argv[1];
    const long n = argc > 2 ? parse_count(argv[2]) : 0;
    if (scenario == "deep") {
        deep(n);
    } else if (scenario == "deep-open") {
        for (long i = 0; i < n; ++i) {
            roofcast_region_begin("level");
        }
    } else if (scenario == "distinct") {
        distinct(n);
    } else if (scenario == "fork") {
        return forks(n);
    } else if (scenario == "open-at-exit") {
        roofcast_region_begin("main");
        roofcast_region_begin("never_ended");
        roofcast_marker_flush(); // a flush writes closed regions only
        std::exit(0);            // the library's unload hook writes the final file
    } else if (scenario == "names") {
        names(n);
    } else if (scenario == "work-overflow") {
        work_overflow();
    } else {
        std::fprintf(stderr, "roofcast-marker-driver: error: %s: unknown scenario\n", scenario.c_str());
        return 2;
    }
    return 0;
}
