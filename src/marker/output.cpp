// Merges the threads' call trees into one list of regions and writes the marker file
// (docs/formats-marker.md) atomically: a temporary file beside the target, then rename.
#include "state.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace roofcast::marker::detail {
namespace {

struct Merged {
    std::string name;
    std::uint64_t calls = 0;
    std::vector<double> thread_seconds;
    double flops = 0.0;
    double bytes = 0.0;
    bool has_work = false;
    std::vector<double> counters;
};

struct MergedList {
    std::vector<std::string> order; // first appearance: threads by index, each tree depth-first
    std::map<std::string, Merged> by_path;
};

void collect(const Node& node, const std::string& path, int thread, int threads, std::size_t n_counters,
             MergedList& out) {
    // A node nobody closed (a prefix copied from the main thread, or a region open at a flush) has no
    // figures of its own on this thread.
    if (node.calls > 0 || node.has_work) {
        auto [it, inserted] = out.by_path.try_emplace(path);
        Merged& m = it->second;
        if (inserted) {
            out.order.push_back(path);
            m.name = node.name;
            m.thread_seconds.assign(static_cast<std::size_t>(threads), 0.0);
            m.counters.assign(n_counters, 0.0);
        }
        m.calls += node.calls;
        m.thread_seconds[static_cast<std::size_t>(thread)] += node.seconds;
        m.flops += node.flops;
        m.bytes += node.bytes;
        m.has_work = m.has_work || node.has_work;
        for (std::size_t i = 0; i < n_counters && i < node.counters.size(); ++i) {
            m.counters[i] += node.counters[i];
        }
    }
    for (const auto& child : node.children) {
        collect(*child, path.empty() ? child->name : path + "->" + child->name, thread, threads, n_counters,
                out);
    }
}

// Closes a thread's open regions at exit, innermost first, each with a warning naming it.
void close_open_regions(ThreadState& t, Clock::time_point now) {
    while (!t.stack.empty()) {
        Frame& frame = t.stack.back();
        frame.node->calls += 1;
        frame.node->seconds += std::chrono::duration<double>(now - frame.start).count();
        t.warnings.add("region '" + frame.node->name + "' was still open at exit (thread " +
                       std::to_string(t.index) + "); closed at exit");
        t.stack.pop_back();
    }
}

bool write_atomically(const std::string& dir, const std::string& name, const std::string& text,
                      std::string& error) {
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
        error = dir + ": " + std::strerror(errno);
        return false;
    }
    const std::string target = dir + "/" + name;
    std::string temp = dir + "/." + name + ".XXXXXX";
    const int fd = mkstemp(temp.data());
    if (fd < 0) {
        error = temp + ": " + std::strerror(errno);
        return false;
    }
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            error = temp + ": " + std::strerror(errno);
            ::close(fd);
            ::unlink(temp.c_str());
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0 || std::rename(temp.c_str(), target.c_str()) != 0) {
        error = target + ": " + std::strerror(errno);
        ::unlink(temp.c_str());
        return false;
    }
    return true;
}

} // namespace

void Warnings::add(std::string text, std::uint64_t count) {
    for (auto& [item, n] : m_items) {
        if (item == text) {
            n += count;
            return;
        }
    }
    if (m_items.size() >= k_max_distinct) {
        m_dropped += count;
        return;
    }
    m_items.emplace_back(std::move(text), count);
}

void Warnings::merge_into(Warnings& other) const {
    for (const auto& [item, count] : m_items) {
        other.add(item, count);
    }
    other.m_dropped += m_dropped;
}

std::vector<std::string> Warnings::lines() const {
    std::vector<std::string> out;
    for (const auto& [item, count] : m_items) {
        out.push_back(count > 1 ? item + " (" + std::to_string(count) + " times)" : item);
    }
    if (m_dropped > 0) {
        out.push_back(std::to_string(m_dropped) + " further warnings not recorded");
    }
    return out;
}

void write_output(bool at_exit) {
    Registry& r = registry();
    const auto now = Clock::now();
    std::lock_guard lock(r.mutex);

    // Thread states sorted by the order of their first region entry; threads that never entered one only
    // contribute warnings. The indices are read once: a thread entering its first region during this write
    // is left for the next write, so every index used below is smaller than `entered`.
    std::vector<std::pair<int, ThreadState*>> threads;
    for (auto& t : r.threads) {
        threads.emplace_back(t->index.load(), t.get());
    }
    std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const int entered = static_cast<int>(
        std::count_if(threads.begin(), threads.end(), [](const auto& t) { return t.first >= 0; }));

    const bool counting = r.counting.load();
    const std::size_t n_counters = counting ? r.papi.codes.size() : 0;
    MergedList merged;
    Warnings warnings;
    for (const std::string& w : r.config.env_warnings) {
        warnings.add(w);
    }
    for (auto& [index, t] : threads) {
        std::lock_guard thread_lock(t->mutex);
        if (at_exit) {
            close_open_regions(*t, now);
        }
        if (index >= 0) {
            collect(t->root, "", index, entered, n_counters, merged);
        }
        t->warnings.merge_into(warnings);
    }

    const int pid = static_cast<int>(getpid()); // at write time: a forked child writes a file of its own
    nlohmann::ordered_json doc;
    doc["format"] = "roofcast-marker";
    doc["format_version"] = 1;
    doc["rank"] = r.config.rank;
    doc["ranks"] = r.config.ranks;
    doc["pid"] = pid;
    doc["wall_seconds"] = std::chrono::duration<double>(now - r.start).count();
    doc["threads"] = entered;
    doc["papi_events"] = counting ? r.papi.events : std::vector<std::string>{};
    if (!r.config.papi_requested.empty() && !counting) {
        std::lock_guard papi_lock(r.papi_mutex);
        doc["papi_error"] = !r.papi.error.empty()     ? r.papi.error
                            : !r.papi_failure.empty() ? r.papi_failure
                                                      : std::string("PAPI counting failed");
    }
    auto regions = nlohmann::ordered_json::array();
    for (const std::string& path : merged.order) {
        const Merged& m = merged.by_path.at(path);
        nlohmann::ordered_json region;
        region["path"] = path;
        region["name"] = m.name;
        region["calls"] = m.calls;
        region["seconds"] = *std::max_element(m.thread_seconds.begin(), m.thread_seconds.end());
        region["thread_seconds"] = m.thread_seconds;
        if (m.has_work) {
            region["flops"] = m.flops;
            region["bytes"] = m.bytes;
        }
        if (n_counters > 0) {
            auto counters = nlohmann::ordered_json::object();
            for (std::size_t i = 0; i < n_counters; ++i) {
                counters[r.papi.events[i]] = m.counters[i];
            }
            region["counters"] = counters;
        }
        regions.push_back(std::move(region));
    }
    doc["regions"] = std::move(regions);
    doc["warnings"] = warnings.lines();

    const std::string name = "marker." + std::to_string(r.config.rank) + "." + std::to_string(pid) + ".json";
    std::string error;
    if (!write_atomically(r.config.output_dir, name,
                          doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n",
                          error)) {
        std::fprintf(stderr, "roofcast-marker: cannot write the marker file: %s\n", error.c_str());
    }
}

} // namespace roofcast::marker::detail
