// The one meaning of `--threads` on every subcommand, resolved and validated here and nowhere else.
//
// Contract (docs/design.md, README "--threads"):
//   - N >= 1 is that many threads; 0, or no --threads at all, is every core (`every_core`, which the
//     caller gives: the cores of this host when measuring, the machine file's cores when predicting);
//   - a comma list (e.g. 1,2,0) is accepted only where the command sweeps thread counts (machine,
//     threads); each entry follows the rules above;
//   - counts above `k_oversubscribe_factor` x the hardware threads of this host are refused unless
//     --oversubscribe is given (OpenMP runtimes crash or crawl with tens of thousands of threads), and
//     never above `k_max_threads`.
// Every bad value fails with the same one-line wording, naming --threads.
#pragma once

#include "core/machine.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace roofcast::cli {

inline constexpr int k_oversubscribe_factor = 4;
inline constexpr int k_max_threads = 1024;

// What the user wrote: the text of --threads ("" when absent) and whether --oversubscribe was given.
struct ThreadsOption {
    std::string text;
    bool oversubscribe = false;
};

// Adds --threads (with the shared help wording, `what` says what the threads do) and, when `measured`,
// --oversubscribe to `cmd`.
void add_threads_option(CLI::App* cmd, ThreadsOption& opt, const std::string& what, bool list, bool measured);

// Physical cores of this host that a measurement may use (one per pinned thread).
int host_cores();

// Every core of a machine file: its cores (1 when it has no topology), capped at this host's hardware
// threads when the threads run here (a machine file written by hand may describe a larger machine).
int machine_cores(const core::Machine& m, bool run_here);

// Hardware threads of this host (at least 1).
int host_hardware_threads();

// The largest count accepted: k_oversubscribe_factor x hardware threads, or k_max_threads with
// --oversubscribe.
int thread_limit(bool oversubscribe, int hardware_threads);

// One thread count: "" or "0" -> every_core; a list is refused. `hardware_threads` bounds the count
// (pass host_hardware_threads(); 0 disables the bound, for counts that are not run here).
int resolve_thread_count(const ThreadsOption& opt, int every_core, int hardware_threads);

// A list of thread counts for a sweep: "" -> `sweep_default` (entries 0 mean every core); otherwise the
// comma list, each entry resolved as above. Duplicates are kept in the order given.
std::vector<int> resolve_thread_counts(const ThreadsOption& opt, int every_core, int hardware_threads,
                                       const std::vector<int>& sweep_default);

} // namespace roofcast::cli
