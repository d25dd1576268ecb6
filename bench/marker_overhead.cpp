// roofcast-marker-overhead: times N begin/end pairs of the marker API in a loop and prints the cost per
// pair (median, min, max over R repetitions). Whether the library is active is decided by the environment
// at load (ROOFCAST_MARKER_OUTPUT), so bench/marker-overhead.sh runs it once each way.
// Usage: roofcast-marker-overhead [--pairs N] [--reps R] [--nested | --clock]
#include "roofcast/marker.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// The clock reads an active begin/end pair cannot avoid, for comparison.
__attribute__((noinline)) void clock_pairs(long n) {
    for (long i = 0; i < n; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto t1 = std::chrono::steady_clock::now();
        asm volatile("" : : "r"(t0.time_since_epoch().count()), "r"(t1.time_since_epoch().count()));
    }
}

__attribute__((noinline)) void pairs(long n, bool nested) {
    if (nested) {
        roofcast_region_begin("outer");
    }
    for (long i = 0; i < n; ++i) {
        roofcast_region_begin("pair");
        roofcast_region_end("pair");
    }
    if (nested) {
        roofcast_region_end("outer");
    }
}

long parse_positive(const char* text, const char* option) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 1) {
        std::fprintf(stderr, "roofcast-marker-overhead: error: %s: expected a positive integer\n", option);
        std::exit(2);
    }
    return value;
}

} // namespace

int main(int argc, char** argv) {
    long n = 1000000;
    long reps = 11;
    bool nested = false;
    bool clock_only = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--pairs" && i + 1 < argc) {
            n = parse_positive(argv[++i], "--pairs");
        } else if (arg == "--reps" && i + 1 < argc) {
            reps = parse_positive(argv[++i], "--reps");
        } else if (arg == "--nested") {
            nested = true;
        } else if (arg == "--clock") {
            clock_only = true;
        } else {
            std::fprintf(stderr, "roofcast-marker-overhead: error: %s: unknown option\n", arg.c_str());
            return 2;
        }
    }
    const auto run = [&](long count) { clock_only ? clock_pairs(count) : pairs(count, nested); };
    run(n / 10 + 1); // warm-up: first-use allocations and page faults
    std::vector<double> ns;
    for (long r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        run(n);
        const auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
    }
    std::sort(ns.begin(), ns.end());
    const double median =
        ns.size() % 2 ? ns[ns.size() / 2] : 0.5 * (ns[ns.size() / 2 - 1] + ns[ns.size() / 2]);
    const char* what = clock_only                  ? "two steady_clock reads (the active path's floor)"
                       : !roofcast_marker_active() ? "inactive"
                       : nested                    ? "active, inside an open region"
                                                   : "active";
    std::printf("%s: ns per pair: median %.2f  min %.2f  max %.2f  (n = %ld repetitions of %ld pairs)\n",
                what, median, ns.front(), ns.back(), reps, n);
    return 0;
}
