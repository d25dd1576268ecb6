// The marker API's entry points: the inactive path (one branch), the per-thread region stacks, declared
// work, and the library's load/unload hooks. Output merging and writing live in output.cpp.
#include "roofcast/marker.h"
#include "state.hpp"
#include "testing.h"

#include <cmath>
#include <cstdio>
#include <pthread.h>
#include <string>

namespace roofcast::marker::detail {
namespace {

// Read on every call: a relaxed load of a byte, so the inactive path is one compare and one branch.
std::atomic<bool> g_active{false};
// Bumped by every re-initialisation, so threads drop their cached pointer to a discarded state.
std::atomic<std::uint64_t> g_generation{1};

// OpenMP's nesting level where the program runs OpenMP: a weak reference, so the library links no OpenMP
// runtime of its own; without one the symbol stays null and every call counts as outside a parallel region.
extern "C" int omp_get_level(void) __attribute__((weak));

// The main thread's path is what the other threads' outermost regions nest under: the path at which a
// parallel region began. Regions the main thread opens or closes inside a parallel region (as its thread 0)
// are its own and must not move that path, or a worker entering its first region while thread 0 is inside one
// of them would nest under it.
bool outside_parallel_region() {
    return omp_get_level == nullptr || omp_get_level() == 0;
}

struct ThreadCache {
    std::uint64_t generation = 0;
    ThreadState* state = nullptr;
};
thread_local ThreadCache t_cache;

// The child of a fork records and writes nothing: the library is inactive in it from the fork on, so every
// call returns after the one branch and the exit hook writes no file. The child therefore never takes one
// of the library's locks, which another thread of the parent may have held at the fork (POSIX: only the
// forking thread exists in the child), and needs no prepare or parent handler. It writes no file of its
// own because the file is named by rank: a child's file would stand for its parent's rank in `roofcast
// profile`, which keeps one file per rank.
void forked_child() {
    g_active.store(false, std::memory_order_relaxed);
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

// The parent of a thread's outermost region: its own root, or for threads other than the main one, the
// node of its own tree with the main thread's current call path (OpenMP regions inside main's regions);
// nullptr when that path cannot be added (the thread has k_max_regions paths).
Node* entry_parent(ThreadState& t) {
    Node* node = &t.root;
    if (t.is_main) {
        return node;
    }
    const Node* main_node = registry().main_current.load(std::memory_order_acquire);
    std::vector<const Node*> chain;
    for (; main_node != nullptr && main_node->parent != nullptr; main_node = main_node->parent) {
        chain.push_back(main_node);
    }
    bool created = false;
    for (auto it = chain.rbegin(); it != chain.rend() && node != nullptr; ++it) {
        node = t.paths.find_or_add(*node, (*it)->name, created);
    }
    return node;
}

void read_counters(ThreadState& t, long long* values) {
    if (t.event_set >= 0 && !papi_read(t.event_set, values)) {
        Registry& r = registry();
        std::lock_guard lock(r.papi_mutex);
        r.counting.store(false);
        if (r.papi_failure.empty()) {
            r.papi_failure = "PAPI_read failed on thread " + std::to_string(t.index);
        }
    }
}

void first_entry(ThreadState& t, Registry& r) {
    t.index = r.next_index.fetch_add(1);
    if (r.counting.load()) {
        std::string error;
        t.event_set = papi_thread_start(r.papi, error);
        if (t.event_set < 0) {
            std::lock_guard papi_lock(r.papi_mutex);
            r.counting.store(false);
            if (r.papi_failure.empty()) {
                r.papi_failure = error;
            }
        }
    }
}

// A begin not recorded as a region of its own: counted, so that its end is matched by count. Its time and
// work stay with the innermost recorded region, which encloses it. stderr hears of each bound once.
void skip_level(ThreadState& t, Skip reason, std::string_view name, const Node* parent) {
    if (t.skipped_open == 0) {
        t.skip_reason = reason;
        static constexpr const char* effect =
            ": their begins and ends are counted, not recorded; their time and "
            "work are in the enclosing region's (warned once; the marker file "
            "counts them)";
        if (reason == Skip::too_deep && notice_first(Notice::too_deep)) {
            print_line("regions nested deeper than " + std::to_string(k_max_depth) + " levels (" +
                       display(name) + " inside " + display(parent->name) + ", thread " +
                       std::to_string(t.index) + ")" + effect);
        }
        if (reason == Skip::too_many_paths && notice_first(Notice::too_many_paths)) {
            print_line("regions on call paths past the first " + std::to_string(k_max_regions) +
                       " of thread " + std::to_string(t.index) + " (" + display(name) + " the first)" +
                       effect);
        }
    }
    t.skipped_open += 1;
    (t.skip_reason == Skip::too_deep ? t.too_deep_begins : t.too_many_begins) += 1;
}

void begin(std::string_view raw_name) {
    ThreadState& t = this_thread();
    Registry& r = registry();
    std::lock_guard lock(t.mutex);
    if (t.index < 0) [[unlikely]] {
        first_entry(t, r);
    }
    if (t.skipped_open > 0) [[unlikely]] {
        skip_level(t, t.skip_reason, raw_name, nullptr);
        return;
    }
    const std::string_view name = stored_name(raw_name);
    Node* parent = t.stack.empty() ? entry_parent(t) : t.stack.back().node;
    if (parent == nullptr || parent->depth >= k_max_depth) [[unlikely]] {
        skip_level(t, parent == nullptr ? Skip::too_many_paths : Skip::too_deep, raw_name, parent);
        return;
    }
    bool created = false;
    Node* node = t.paths.find_or_add(*parent, name, created);
    if (node == nullptr) [[unlikely]] {
        skip_level(t, Skip::too_many_paths, raw_name, parent);
        return;
    }
    if (created && raw_name.size() > name.size()) [[unlikely]] {
        t.warnings.add("region name " + display(raw_name) + " is longer than " +
                       std::to_string(k_max_name_bytes) + " bytes: recorded as its first " +
                       std::to_string(name.size()) + " bytes");
    }
    if (t.event_set >= 0) {
        const std::size_t n = r.papi.codes.size();
        t.counter_starts.resize((t.stack.size() + 1) * n);
        read_counters(t, t.counter_starts.data() + t.stack.size() * n);
    }
    if (t.is_main && outside_parallel_region()) {
        r.main_current.store(node, std::memory_order_release);
    }
    t.stack.push_back({node, Clock::now()}); // clock last: the bookkeeping above is outside the region
}

void end(std::string_view raw_name) {
    const auto now = Clock::now(); // clock first, for the same reason
    ThreadState& t = this_thread();
    Registry& r = registry();
    std::lock_guard lock(t.mutex);
    if (t.skipped_open > 0) [[unlikely]] {
        t.skipped_open -= 1; // the levels past a bound are matched by count, their names are not kept
        return;
    }
    if (t.stack.empty()) {
        t.warnings.add("region " + display(raw_name) + " ended but no region is open");
        return;
    }
    Frame& frame = t.stack.back();
    if (frame.node->name != stored_name(raw_name)) {
        t.warnings.add("region " + display(raw_name) + " ended but the innermost open region is " +
                       display(frame.node->name));
        return;
    }
    Node& node = *frame.node;
    node.calls += 1;
    node.seconds += std::chrono::duration<double>(now - frame.start).count();
    if (t.event_set >= 0 && r.counting.load(std::memory_order_relaxed)) {
        const std::size_t n = r.papi.codes.size();
        std::vector<long long> values(n);
        read_counters(t, values.data());
        node.counters.resize(n, 0.0);
        const long long* starts = t.counter_starts.data() + (t.stack.size() - 1) * n;
        for (std::size_t i = 0; i < n; ++i) {
            node.counters[i] += static_cast<double>(values[i] - starts[i]);
        }
    }
    t.stack.pop_back();
    if (t.is_main && outside_parallel_region()) {
        r.main_current.store(t.stack.empty() ? nullptr : t.stack.back().node, std::memory_order_release);
    }
}

// Declared work is refused, with a warning, when a region's running sum would pass k_max_work: a sum is
// then never inf (which the file would hold as null) nor past what roofcast's readers take.
void work(double flops, double bytes) {
    ThreadState& t = this_thread();
    std::lock_guard lock(t.mutex);
    if (!(std::isfinite(flops) && std::isfinite(bytes) && flops >= 0.0 && bytes >= 0.0)) {
        t.warnings.add("declared work is not finite and non-negative (flops " + number(flops) + ", bytes " +
                       number(bytes) + "); ignored");
        return;
    }
    if (t.stack.empty()) {
        t.warnings.add(t.skipped_open > 0
                           ? "work declared in a region past the library's bounds, outside any "
                             "recorded region; ignored"
                           : "work declared outside any region; ignored");
        return;
    }
    Node& node = *t.stack.back().node;
    if (!(node.flops + flops <= k_max_work && node.bytes + bytes <= k_max_work)) {
        t.warnings.add("declared work of region " + display(node.name) + " would sum past " +
                       number(k_max_work) + " (roofcast's bound on a run's events); ignored");
        return;
    }
    node.flops += flops;
    node.bytes += bytes;
    node.has_work = true;
}

// Fortran passes blank-padded names of known length.
std::string_view fortran_name(const char* name, std::size_t len) {
    std::string_view view(name, len);
    const auto last = view.find_last_not_of(' ');
    return last == std::string_view::npos ? std::string_view() : view.substr(0, last + 1);
}

// No exception may cross the C interface (it would terminate the user's program).
template <class F> void guarded(F&& f) noexcept {
    try {
        f();
    } catch (...) {
        // Printed once: the exit hook counts the rest. No allocation here, memory is what ran out.
        if (notice_first(Notice::out_of_memory)) {
            std::fputs("roofcast-marker: out of memory; call ignored\n", stderr);
        }
    }
}

void null_name(const char* what) {
    guarded([&] { this_thread().warnings.add(std::string(what) + " called with a null name; ignored"); });
}

} // namespace

Registry& registry() {
    static Registry* r = new Registry(); // never destroyed: the exit hook runs after static destructors
    return *r;
}

ThreadState& this_thread() {
    const std::uint64_t generation = g_generation.load(std::memory_order_acquire);
    if (t_cache.generation != generation) [[unlikely]] {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        auto state = std::make_unique<ThreadState>();
        state->is_main = std::this_thread::get_id() == r.main_thread;
        t_cache.state = state.get();
        t_cache.generation = generation;
        r.threads.push_back(std::move(state));
    }
    return *t_cache.state;
}

void initialise() {
    Registry& r = registry();
    g_active.store(false);
    {
        std::lock_guard lock(r.mutex);
        r.threads.clear();
        r.config = config_from_env();
        r.papi = PapiSetup{};
        r.papi_failure.clear();
        r.counting.store(false);
        r.main_thread = std::this_thread::get_id();
        r.next_index.store(0);
        r.main_current.store(nullptr);
        r.start = Clock::now();
        notice_reset();
        if (!r.config.output_dir.empty() && !r.config.papi_requested.empty()) {
            r.papi = papi_setup(r.config.papi_requested);
            r.counting.store(r.papi.error.empty() && !r.papi.events.empty());
        }
    }
    g_generation.fetch_add(1, std::memory_order_acq_rel);
    g_active.store(!r.config.output_dir.empty());
}

bool active() {
    return g_active.load(std::memory_order_relaxed);
}

// A region call of the API (`caller` names it): nothing while the library is inactive, a notice (not a
// crash) for a null name, else `call(name)` guarded as every entry point is.
template <class Call> inline void region_call(const char* caller, const char* name, Call call) {
    if (!active()) [[likely]] {
        return;
    }
    if (name == nullptr) {
        null_name(caller);
        return;
    }
    guarded([&] { call(name); });
}

} // namespace roofcast::marker::detail

namespace detail = roofcast::marker::detail;

extern "C" {

void roofcast_region_begin(const char* name) {
    detail::region_call("roofcast_region_begin", name, [](const char* n) { detail::begin(n); });
}

void roofcast_region_end(const char* name) {
    detail::region_call("roofcast_region_end", name, [](const char* n) { detail::end(n); });
}

void roofcast_region_work(double flops, double bytes) {
    if (!detail::active()) [[likely]] {
        return;
    }
    detail::guarded([&] { detail::work(flops, bytes); });
}

void roofcast_marker_flush(void) {
    if (!detail::active()) {
        return;
    }
    detail::guarded([] { detail::write_output(false); });
}

int roofcast_marker_active(void) {
    return detail::active() ? 1 : 0;
}

void roofcast_region_begin_(const char* name, size_t len) {
    detail::region_call("roofcast_region_begin_", name,
                        [len](const char* n) { detail::begin(detail::fortran_name(n, len)); });
}

void roofcast_region_end_(const char* name, size_t len) {
    detail::region_call("roofcast_region_end_", name,
                        [len](const char* n) { detail::end(detail::fortran_name(n, len)); });
}

void roofcast_region_work_(const double* flops, const double* bytes) {
    if (!detail::active()) [[likely]] {
        return;
    }
    roofcast_region_work(flops != nullptr ? *flops : 0.0, bytes != nullptr ? *bytes : 0.0);
}

void roofcast_marker_flush_(void) {
    roofcast_marker_flush();
}

int roofcast_marker_active_(void) {
    return roofcast_marker_active();
}

void roofcast_marker_testing_reinit(void) {
    detail::guarded([] { detail::initialise(); });
}

} // extern "C"

namespace {
// Library load: read the environment once and start the wall clock. Unload (exit or dlclose): write.
// Once per load: glibc removes the handler when the library is unloaded (dlclose).
__attribute__((constructor)) void marker_load() {
    detail::guarded([] { detail::initialise(); });
    pthread_atfork(nullptr, nullptr, detail::forked_child);
}
__attribute__((destructor)) void marker_unload() {
    if (detail::active()) {
        detail::guarded([] { detail::write_output(true); });
        detail::notice_summary();
    }
}
} // namespace
