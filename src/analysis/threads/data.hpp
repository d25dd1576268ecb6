// Input of the thread-count models (`roofcast threads`): measured times T(n, s) with their spread, and
// what the machine says about where the regimes change (cache capacities, core and hardware-thread
// counts, memory bandwidth per thread count). Filled by the CLI from a sweep, or read back from the
// JSON that `roofcast threads --json` writes (docs/threads.md), so the report and a re-analysis fit
// exactly the data that was measured. Contract: the reader validates every field it uses and throws
// core::InputError(file, field, expected) on bad input; it bounds the number of points it accepts.
#pragma once

#include "core/stats.hpp"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::model::threads {

struct Measurement {
    double n = 0.0; // problem size (elements)
    int s = 1;      // threads
    core::Summary seconds;
};

struct Cache {
    std::string name;   // L1, L2, L3
    double bytes = 0.0; // usable capacity of one instance (the effective size where one was measured)
    // Cores sharing one instance (1: private); 0: unknown (the capacity is not scaled with s).
    int shared_by_cores = 0;
};

struct Context {
    std::string kernel;        // norm2, triad, or "command"
    double bytes_per_n = 8.0;  // working-set bytes per unit of n
    std::vector<Cache> caches; // closest to the core first
    int cores = 1;             // physical cores the threads may use
    int hw_threads = 1;        // hardware threads (> cores with SMT)
    // Memory bandwidth per thread count, decimal GB/s, sorted by threads (may be empty: then the models
    // estimate it from the largest measured size, see docs/threads.md).
    std::vector<std::pair<int, double>> bandwidth_gbs;
    std::string bandwidth_source; // which file and kernel it came from, or why it is absent
    std::string machine_source;   // "machine file X" or "hwloc topology of this machine"
};

struct Failure {
    double n = 0.0;
    int s = 1;
    std::string reason;
};

// θ(s) measured on its own (an empty OpenMP region, or creating and joining s std::threads), as Doda
// measures it; printed beside the fitted θ(s), never fitted.
struct Overhead {
    int s = 1;
    core::Summary seconds;
};

struct Series {
    std::string api; // omp, pthread, command
    std::vector<Measurement> points;
    std::vector<Failure> failures;
    std::vector<Overhead> overhead; // empty for programs
};

struct ThreadsData {
    Context context;
    int holdout = 0;     // the sizes held out when the file was analysed (--holdout), 0: none
    std::string command; // the --command text, when a program was measured
    std::vector<Series> series;
};

// The ranges a threads results file is held to (docs/formats.md, "Threads results file").
inline constexpr int k_max_threads = 1 << 20;        // threads, cores, hardware threads
inline constexpr int k_max_holdout = 100;            // as --holdout
inline constexpr double k_max_bytes_per_n = 1 << 30; // working-set bytes per unit of n
inline constexpr double k_max_cache_bytes = 0x1p50;  // 1 PiB
inline constexpr double k_max_gbs = 1e6;             // GB/s
inline constexpr double k_max_n = 1e18;              // problem size
inline constexpr double k_max_seconds = 1e7;         // one timed sample (about 116 days)
inline constexpr std::size_t k_max_samples = 100'000;
inline constexpr std::size_t k_max_text = 4096; // characters of a name, source or command

nlohmann::json data_to_json(const ThreadsData& d);
// Reads a threads results file (`roofcast threads --json`): its context, command, holdout and each
// series' measurements, failures and overhead samples; the analysis stored beside them is derived again
// from the measurements. Every number is checked against its range above; the members the format does not
// read are listed in `unread_keys` when given (a warning, or with validate --strict an error).
ThreadsData data_from_json(const nlohmann::json& j, const std::string& file,
                           std::vector<std::string>* unread_keys = nullptr);

} // namespace roofcast::model::threads
