// Measurement of T(n, s) for `roofcast threads`: the execution time of a multithreaded kernel over a
// problem size n (elements) and a thread count s, including the creation and joining of the threads
// (the quantity Doda's execution-time model describes). Built-in kernels (norm2, triad) are timed with
// the one timing harness (measure/harness.hpp), once with an OpenMP parallel region per call and once
// with s std::threads created and joined per call. A user's program is run through core::run_program
// with {n} and {s} substituted and OMP_NUM_THREADS set; its time is the process's wall time or a number
// it prints. Contract: every point keeps its samples (core::Summary); a program that fails at a point
// is recorded in `failures` and the sweep goes on; nothing here formats output or fits anything.
#pragma once

#include "core/stats.hpp"
#include "measure/command_text.hpp"
#include "measure/harness.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

enum class ThreadApi { omp, pthread };
const char* to_string(ThreadApi api); // "omp" | "pthread"

struct SweepPoint {
    std::uint64_t n = 0;
    int threads = 1;
    core::Summary seconds; // per call (kernels) or per run (programs)
};

struct SweepFailure {
    std::uint64_t n = 0;
    int threads = 1;
    std::string reason; // "exit status 3", "could not start: ..."
};

struct SweepResult {
    std::vector<SweepPoint> points;
    std::vector<SweepFailure> failures;
};

// The built-in kernels: "norm2", "triad".
const std::vector<std::string>& sweep_kernel_names();
// Working-set bytes per element of a built-in kernel: norm2 reads one double array (8), triad
// a[i] = b[i] + q*c[i] touches three (24). Throws core::InputError(field "kernel") for other names.
double kernel_bytes_per_element(const std::string& kernel);

// Times `kernel` at every (n, s) of the grid with one API.
SweepResult sweep_kernel(const std::string& kernel, ThreadApi api, const std::vector<std::uint64_t>& sizes,
                         const std::vector<int>& threads, const HarnessOptions& opt);

struct CommandOptions {
    std::vector<std::string> args; // program and arguments, with {n} and optionally {s}
    std::string time_regex;        // "" = wall time; else the first group (or the match) is seconds
    int repetitions = 3;
    double timeout_s = 0; // > 0: a run still going after this many seconds is killed and left out
};

// Runs the program at every (n, s). Throws core::InputError (field "time_regex") when a run succeeds
// but its output holds no parsable time, and core::Error when no point could be measured at all. A run
// killed at opt.timeout_s is a failure of its point, like a non-zero exit.
SweepResult sweep_command(const CommandOptions& opt, const std::vector<std::uint64_t>& sizes,
                          const std::vector<int>& threads);

// A geometric sweep of sizes (elements) from a quarter of the first cache to four times the last one
// (cache sizes in bytes, ascending), `per_octave` sizes per doubling, at most `max_bytes` of working set
// and k_max_auto_size elements; empty for a size per element that is not positive and finite.
inline constexpr double k_max_auto_size = 1e13;
std::vector<std::uint64_t> auto_sizes(const std::vector<double>& cache_bytes, double bytes_per_element,
                                      int per_octave = 2, double max_bytes = 2.0 * (1ULL << 30));

// 1 ... 4 x hw_threads: every count up to 16, then a geometric progression (ratio ~1.25) that keeps
// the physical core count and the hardware-thread count.
std::vector<int> auto_threads(int cores, int hw_threads);

} // namespace roofcast::measure
