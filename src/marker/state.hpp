// Internal state of the marker library: one call tree per thread, a registry of all threads, and the
// configuration read from the environment. Contract: every ThreadState is owned by the registry and lives
// until the next re-initialisation, so figures of finished threads are kept; a thread touches only its own
// state, under its own mutex, which the writer takes in turn when it merges the threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace roofcast::marker::detail {

using Clock = std::chrono::steady_clock;

// One node per distinct call path of one thread; its ancestors are the enclosing regions.
struct Node {
    Node(std::string node_name, Node* node_parent) : name(std::move(node_name)), parent(node_parent) {}
    Node* child(std::string_view child_name); // finds or creates

    const std::string name; // immutable: other threads read the main thread's chain of names
    Node* const parent;     // nullptr for the root
    std::vector<std::unique_ptr<Node>> children;
    std::uint64_t calls = 0;
    double seconds = 0.0;
    double flops = 0.0;
    double bytes = 0.0;
    bool has_work = false;
    std::vector<double> counters; // one per counted PAPI event, inclusive like `seconds`
};

struct Frame {
    Node* node;
    Clock::time_point start;
};

// Warnings are kept once each with a count, so a mismatch inside a loop cannot grow memory without bound.
class Warnings {
public:
    void add(std::string text, std::uint64_t count = 1);
    void merge_into(Warnings& other) const;
    std::vector<std::string> lines() const;

private:
    static constexpr std::size_t k_max_distinct = 100;
    std::vector<std::pair<std::string, std::uint64_t>> m_items;
    std::uint64_t m_dropped = 0;
};

struct ThreadState {
    std::mutex mutex;
    std::atomic<int> index{-1}; // order of first region entry; -1 until this thread begins a region
    bool is_main = false;
    Node root{"", nullptr};
    std::vector<Frame> stack;
    std::vector<long long> counter_starts; // counted events' values at each open frame's begin
    int event_set = -1;                    // PAPI event set of this thread, -1 when not counting
    Warnings warnings;
};

// The launcher-given identity and what was asked for, read from the environment at (re)initialisation.
struct Config {
    std::string output_dir;
    int rank = 0;
    int ranks = 1;
    std::vector<std::string> papi_requested; // ROOFCAST_MARKER_PAPI split at commas
    std::vector<std::string> env_warnings;
};
Config config_from_env();

// PAPI counting (marker_papi.cpp); every function is a no-op that reports why in builds without PAPI.
struct PapiSetup {
    std::vector<std::string> events; // events that will be counted (empty when counting is off)
    std::vector<int> codes;
    std::string error; // why counting is off, empty when it is on or was not asked for
};
PapiSetup papi_setup(const std::vector<std::string>& requested);
// Creates and starts the calling thread's event set; on failure returns -1 and sets `error`.
int papi_thread_start(const PapiSetup& setup, std::string& error);
// Reads the running counters of `event_set` into values[0..n); false on failure.
bool papi_read(int event_set, long long* values);

struct Registry {
    std::mutex mutex; // guards the members below except the atomics
    std::vector<std::unique_ptr<ThreadState>> threads;
    Config config;
    PapiSetup papi;
    std::atomic<bool> counting{false}; // PAPI counting on; switched off for good at the first failure
    // A thread holding its own mutex may record a counting failure: that takes papi_mutex, never `mutex`
    // (the writer holds `mutex` while it takes the threads' mutexes), so the two orders cannot deadlock.
    std::mutex papi_mutex;
    std::string papi_failure; // the first failure after set-up (guarded by papi_mutex)
    std::thread::id main_thread;
    std::atomic<int> next_index{0};
    std::atomic<Node*> main_current{nullptr}; // innermost open region of the main thread
    Clock::time_point start;
};

Registry& registry();
ThreadState& this_thread();
// Writes <dir>/marker.<rank>.<pid>.json; at_exit closes the regions still open (with warnings) first.
void write_output(bool at_exit);
// Re-reads the environment and drops every figure (library load, and tests).
void initialise();

} // namespace roofcast::marker::detail
