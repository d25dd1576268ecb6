// The marker API's entry points: the inactive path (one branch), the per-thread region stacks, declared
// work, and the library's load/unload hooks. Output merging and writing live in output.cpp.
#include "roofcast/marker.h"
#include "state.hpp"
#include "testing.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>

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

std::string quoted(std::string_view name) {
    std::string text(1, '\'');
    text.append(name);
    text.push_back('\'');
    return text;
}

// The parent of a thread's outermost region: its own root, or for threads other than the main one, the
// node of its own tree with the main thread's current call path (OpenMP regions inside main's regions).
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
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        node = node->child((*it)->name);
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

void begin(std::string_view name) {
    ThreadState& t = this_thread();
    Registry& r = registry();
    std::lock_guard lock(t.mutex);
    if (t.index < 0) {
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
    Node* parent = t.stack.empty() ? entry_parent(t) : t.stack.back().node;
    Node* node = parent->child(name);
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

void end(std::string_view name) {
    const auto now = Clock::now(); // clock first, for the same reason
    ThreadState& t = this_thread();
    Registry& r = registry();
    std::lock_guard lock(t.mutex);
    if (t.stack.empty()) {
        t.warnings.add("region " + quoted(name) + " ended but no region is open");
        return;
    }
    Frame& frame = t.stack.back();
    if (frame.node->name != name) {
        t.warnings.add("region " + quoted(name) + " ended but the innermost open region is " +
                       quoted(frame.node->name));
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

void work(double flops, double bytes) {
    ThreadState& t = this_thread();
    std::lock_guard lock(t.mutex);
    if (!(std::isfinite(flops) && std::isfinite(bytes) && flops >= 0.0 && bytes >= 0.0)) {
        t.warnings.add("declared work is not finite and non-negative (flops " + std::to_string(flops) +
                       ", bytes " + std::to_string(bytes) + "); ignored");
        return;
    }
    if (t.stack.empty()) {
        t.warnings.add("work declared outside any region; ignored");
        return;
    }
    Node& node = *t.stack.back().node;
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
        std::fputs("roofcast-marker: out of memory; call ignored\n", stderr);
    }
}

void null_name(const char* what) {
    guarded([&] { this_thread().warnings.add(std::string(what) + " called with a null name; ignored"); });
}

} // namespace

Node* Node::child(std::string_view child_name) {
    for (auto& c : children) {
        if (c->name == child_name) {
            return c.get();
        }
    }
    children.push_back(std::make_unique<Node>(std::string(child_name), this));
    return children.back().get();
}

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

} // namespace roofcast::marker::detail

namespace detail = roofcast::marker::detail;

extern "C" {

void roofcast_region_begin(const char* name) {
    if (!detail::active()) [[likely]] {
        return;
    }
    if (name == nullptr) {
        detail::null_name("roofcast_region_begin");
        return;
    }
    detail::guarded([&] { detail::begin(name); });
}

void roofcast_region_end(const char* name) {
    if (!detail::active()) [[likely]] {
        return;
    }
    if (name == nullptr) {
        detail::null_name("roofcast_region_end");
        return;
    }
    detail::guarded([&] { detail::end(name); });
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
    if (!detail::active()) [[likely]] {
        return;
    }
    if (name == nullptr) {
        detail::null_name("roofcast_region_begin_");
        return;
    }
    detail::guarded([&] { detail::begin(detail::fortran_name(name, len)); });
}

void roofcast_region_end_(const char* name, size_t len) {
    if (!detail::active()) [[likely]] {
        return;
    }
    if (name == nullptr) {
        detail::null_name("roofcast_region_end_");
        return;
    }
    detail::guarded([&] { detail::end(detail::fortran_name(name, len)); });
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
__attribute__((constructor)) void marker_load() {
    detail::guarded([] { detail::initialise(); });
}
__attribute__((destructor)) void marker_unload() {
    if (detail::active()) {
        detail::guarded([] { detail::write_output(true); });
    }
}
} // namespace
