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
#include <unordered_map>
#include <utility>
#include <vector>

namespace roofcast::marker::detail {

using Clock = std::chrono::steady_clock;

// The library's bounds (docs/formats-marker.md, "Limits"): whatever a program does, the library's memory,
// its time per call and the file it writes stay bounded, and the file stays one that `roofcast profile`'s
// reader accepts (measure/profile/marker_file.hpp: at most 100,000 regions and 256 MiB).
inline constexpr std::uint32_t k_max_depth = 1024;            // levels of one call path
inline constexpr std::size_t k_max_name_bytes = 256;          // bytes of a stored region name
inline constexpr std::size_t k_max_regions = 100000;          // call paths per thread and per file
inline constexpr std::size_t k_max_region_bytes = 192u << 20; // bytes of the file's regions
// Declared flops or bytes of one region: roofcast's bound on the events of a whole run (core/doc.hpp,
// k_max_events: an exascale machine counts 1e25 over four months), so a profile made from the file is one
// `roofcast validate` accepts.
inline constexpr double k_max_work = 1e30;
// The name stored for "" (and an all-blank Fortran name): a call path is never empty.
inline constexpr std::string_view k_empty_name = "(unnamed)";

// One node per distinct call path of one thread; its ancestors are the enclosing regions.
struct Node {
    Node(std::string node_name, Node* node_parent)
        : name(std::move(node_name)), parent(node_parent), depth(node_parent ? node_parent->depth + 1 : 0) {}
    ~Node(); // iterative: a recursive destruction of a deep tree could overflow the stack
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    const std::string name;    // immutable: other threads read the main thread's chain of names
    Node* const parent;        // nullptr for the root
    const std::uint32_t depth; // levels of the call path: 0 for the root, 1 for an outermost region
    std::vector<std::unique_ptr<Node>> children;
    std::uint64_t calls = 0;
    double seconds = 0.0;
    double flops = 0.0;
    double bytes = 0.0;
    bool has_work = false;
    std::vector<double> counters; // one per counted PAPI event, inclusive like `seconds`
};

// Finds a node's child by name: a scan of the children while they are few (the common case, as fast as
// it gets), a hash table of (parent, name) once a node has many, so 100,000 siblings cost no more per call.
class ChildIndex {
public:
    // The child, created when missing; nullptr when it is missing and the thread has k_max_regions nodes.
    // `created` tells whether it was created by this call. The scan is inline: it is every begin's cost.
    Node* find_or_add(Node& parent, std::string_view name, bool& created) {
        created = false;
        if (parent.children.size() <= k_scan_children) {
            for (auto& c : parent.children) {
                if (c->name == name) {
                    return c.get();
                }
            }
            return add(parent, name, created);
        }
        return find_or_add_hashed(parent, name, created);
    }

private:
    Node* find_or_add_hashed(Node& parent, std::string_view name, bool& created);
    Node* add(Node& parent, std::string_view name, bool& created);

    static constexpr std::size_t k_scan_children = 8;
    struct Key {
        const Node* parent;
        std::string_view name; // views the child's own name, which never moves (the node is heap-allocated)
        bool operator==(const Key&) const = default;
    };
    struct Hash {
        std::size_t operator()(const Key& k) const noexcept;
    };
    std::unordered_map<Key, Node*, Hash> m_table;
    std::size_t m_nodes = 0;
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

// Why begins are not recorded as regions of their own (each open level above the innermost recorded one).
enum class Skip { none, too_deep, too_many_paths };

struct ThreadState {
    std::mutex mutex;
    std::atomic<int> index{-1}; // order of first region entry; -1 until this thread begins a region
    bool is_main = false;
    Node root{"", nullptr};
    ChildIndex paths; // finds a node's child (every node of `root`'s tree was created through it)
    std::vector<Frame> stack;
    std::vector<long long> counter_starts; // counted events' values at each open frame's begin
    int event_set = -1;                    // PAPI event set of this thread, -1 when not counting
    // Levels open above the innermost recorded region, matched by count (their names are not kept), and
    // why the outermost of them was not recorded.
    std::uint64_t skipped_open = 0;
    Skip skip_reason = Skip::none;
    std::uint64_t too_deep_begins = 0; // begins not recorded: nested deeper than k_max_depth
    std::uint64_t too_many_begins = 0; // begins not recorded: a new path past k_max_regions
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

// Messages on stderr (text.cpp). Each kind is printed the first time only and counted after that; the
// exit hook prints one line per kind that was repeated, so a fault inside a loop gives two lines, not
// one per call.
enum class Notice { out_of_memory, too_deep, too_many_paths, write_failed, count };
bool notice_first(Notice kind); // counts one; true the first time (the caller then prints)
void notice(Notice kind, std::string_view line);
void print_line(std::string_view text); // "roofcast-marker: TEXT" on stderr
void notice_summary();
void notice_reset();

// `name` shortened to k_max_name_bytes at a UTF-8 character boundary; "" becomes k_empty_name.
std::string_view stored_name_slow(std::string_view name);
inline std::string_view stored_name(std::string_view name) {
    return !name.empty() && name.size() <= k_max_name_bytes ? name : stored_name_slow(name);
}
// `text` for a message: control characters (C0, DEL, C1) and invalid UTF-8 escaped as \n, \t or \xHH,
// longer than `max_bytes` shortened with its length noted; quoted in single quotes.
std::string display(std::string_view text, std::size_t max_bytes = 64);
// The same without the quotes (paths and system messages).
std::string escaped_text(std::string_view text, std::size_t max_bytes = 512);

} // namespace roofcast::marker::detail
