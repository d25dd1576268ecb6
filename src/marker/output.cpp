// Merges the threads' call trees into one list of regions and writes the marker file
// (docs/formats-marker.md) atomically: a temporary file beside the target, then rename. The merge walks
// the trees with an explicit stack (no recursion, whatever the depth), and what is written is bounded and
// range-checked, so the file is always one `roofcast profile` reads (measure/profile/marker_file.cpp).
#include "state.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace roofcast::marker::detail {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::uint32_t k_no_parent = std::numeric_limits<std::uint32_t>::max();

// One call path over all threads.
struct Merged {
    std::uint32_t parent = k_no_parent; // index into MergedTree::nodes
    std::string name;
    bool listed = false; // has figures of its own on some thread, so it is a region of the file
    std::uint64_t calls = 0;
    std::vector<double> thread_seconds;
    double flops = 0.0;
    double bytes = 0.0;
    bool has_work = false;
    std::vector<double> counters;
};

class MergedTree {
public:
    std::uint32_t find_or_add(std::uint32_t parent, const std::string& name) {
        if (const auto it = m_index.find(Key{parent, name}); it != m_index.end()) {
            return it->second;
        }
        nodes.emplace_back();
        nodes.back().parent = parent;
        nodes.back().name = name;
        const auto id = static_cast<std::uint32_t>(nodes.size() - 1);
        m_index.emplace(Key{parent, nodes.back().name}, id); // views the name kept in `nodes` (a deque)
        return id;
    }
    // Adds a thread's figures of one node; the first figures of a path list it, in that order.
    void add(std::uint32_t id, const Node& node, int thread, int threads, std::size_t n_counters) {
        Merged& m = nodes[id];
        if (!m.listed) {
            m.listed = true;
            m.thread_seconds.assign(static_cast<std::size_t>(threads), 0.0);
            m.counters.assign(n_counters, 0.0);
            order.push_back(id);
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
    std::string path(std::uint32_t id) const {
        std::vector<const std::string*> names;
        for (; id != k_no_parent; id = nodes[id].parent) {
            names.push_back(&nodes[id].name);
        }
        std::string out;
        for (auto it = names.rbegin(); it != names.rend(); ++it) {
            out += it == names.rbegin() ? "" : "->";
            out += **it;
        }
        return out;
    }

    std::deque<Merged> nodes;         // a deque: the index views names inside it, which must not move
    std::vector<std::uint32_t> order; // listed paths: threads by index, each tree depth-first

private:
    struct Key {
        std::uint32_t parent;
        std::string_view name;
        bool operator==(const Key&) const = default;
    };
    struct Hash {
        std::size_t operator()(const Key& k) const noexcept {
            // boost::hash_combine's mixing of two hashes (Boost.ContainerHash, hash_combine).
            std::size_t h = std::hash<std::string_view>{}(k.name);
            return h ^ (std::hash<std::uint32_t>{}(k.parent) + 0x9e3779b9 + (h << 6) + (h >> 2));
        }
    };
    std::unordered_map<Key, std::uint32_t, Hash> m_index;
};

// One thread's tree into `out`, depth-first in the order the children were entered, with an explicit
// stack. A node nobody closed (a prefix copied from the main thread, or a region open at a flush) has no
// figures of its own on this thread and is a path only.
void collect(const Node& root, int thread, int threads, std::size_t n_counters, MergedTree& out) {
    std::vector<std::pair<const Node*, std::uint32_t>> todo; // node, its parent's merged index
    for (auto it = root.children.rbegin(); it != root.children.rend(); ++it) {
        todo.emplace_back(it->get(), k_no_parent);
    }
    while (!todo.empty()) {
        const auto [node, parent] = todo.back();
        todo.pop_back();
        const std::uint32_t id = out.find_or_add(parent, node->name);
        if (node->calls > 0 || node->has_work) {
            out.add(id, *node, thread, threads, n_counters);
        }
        for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) {
            todo.emplace_back(it->get(), id);
        }
    }
}

// Closes a thread's open regions at exit, innermost first, each with a warning naming it.
void close_open_regions(ThreadState& t, Clock::time_point now) {
    if (t.skipped_open > 0) {
        t.warnings.add(std::to_string(t.skipped_open) +
                       " levels past the library's bounds were still open at " + "exit (thread " +
                       std::to_string(t.index) + "); closed at exit");
        t.skipped_open = 0;
    }
    while (!t.stack.empty()) {
        Frame& frame = t.stack.back();
        frame.node->calls += 1;
        frame.node->seconds += std::chrono::duration<double>(now - frame.start).count();
        t.warnings.add("region " + display(frame.node->name) + " was still open at exit (thread " +
                       std::to_string(t.index) + "); closed at exit");
        t.stack.pop_back();
    }
}

// The counts of begins past the bounds, as warnings of the file.
void bound_warnings(const ThreadState& t, Warnings& out) {
    const std::string thread = " (thread " + std::to_string(t.index) + ")";
    if (t.too_deep_begins > 0) {
        out.add(std::to_string(t.too_deep_begins) + " region begins nested deeper than " +
                std::to_string(k_max_depth) + " levels" + thread +
                " were counted but not recorded: their time and work are in the enclosing region's");
    }
    if (t.too_many_begins > 0) {
        out.add(std::to_string(t.too_many_begins) + " region begins on new call paths past " +
                std::to_string(k_max_regions) + " paths" + thread +
                " were counted but not recorded: their time and work are in the enclosing region's");
    }
}

// A sum written into the file, at most `limit`: declared work summed over threads may pass k_max_work (each
// thread's sum is bounded when it is declared) and is then written as k_max_work, with a warning naming the
// region and the field; any other figure past the largest double is written as the largest double. The
// file never holds inf (JSON null) nor a figure roofcast's readers refuse.
double in_range(double value, double limit, const std::string& path, const char* field, Warnings& warnings) {
    if (value <= limit && value >= -limit) {
        return value;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%g", limit);
    warnings.add("region " + display(path) + ": " + field + " summed over threads exceeds " + text +
                 "; written as " + (value < 0 ? "-" : "") + text);
    return value < 0 ? -limit : limit;
}

std::string dump(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// One region of the file, its figures range-checked.
Json region_json(const Merged& m, const std::string& path, const std::vector<std::string>& events,
                 Warnings& warnings) {
    Json region;
    region["path"] = path;
    region["name"] = m.name;
    region["calls"] = m.calls;
    constexpr double k_largest = std::numeric_limits<double>::max();
    std::vector<double> thread_seconds;
    for (double s : m.thread_seconds) {
        thread_seconds.push_back(in_range(s, k_largest, path, "seconds", warnings));
    }
    region["seconds"] = *std::max_element(thread_seconds.begin(), thread_seconds.end());
    region["thread_seconds"] = thread_seconds;
    if (m.has_work) {
        region["flops"] = in_range(m.flops, k_max_work, path, "flops", warnings);
        region["bytes"] = in_range(m.bytes, k_max_work, path, "bytes", warnings);
    }
    if (!events.empty()) {
        auto counters = Json::object();
        for (std::size_t i = 0; i < events.size(); ++i) {
            counters[events[i]] = in_range(m.counters[i], k_largest, path, events[i].c_str(), warnings);
        }
        region["counters"] = counters;
    }
    return region;
}

// The "regions" array's lines: the paths first entered, up to k_max_regions of them and k_max_region_bytes
// of text; a warning counts the rest.
std::string regions_text(const MergedTree& merged, const std::vector<std::string>& events,
                         Warnings& warnings) {
    std::string text;
    std::size_t written = 0;
    for (const std::uint32_t id : merged.order) {
        if (written == k_max_regions) {
            break;
        }
        std::string line = dump(region_json(merged.nodes[id], merged.path(id), events, warnings));
        if (text.size() + line.size() + 4 > k_max_region_bytes) {
            break;
        }
        text += written == 0 ? "  " : ",\n  ";
        text += line;
        ++written;
    }
    if (written < merged.order.size()) {
        warnings.add(
            std::to_string(merged.order.size() - written) + " of " + std::to_string(merged.order.size()) +
            " regions not written: a marker file holds at most " + std::to_string(k_max_regions) +
            " regions in " + std::to_string(k_max_region_bytes >> 20) + " MiB (the first entered are kept)");
    }
    return text;
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

// The file's text: one member per line, one region per line, one warning per line.
std::string file_text(const Json& header, const std::string& regions, const Warnings& warnings) {
    std::string text = "{\n";
    for (const auto& [key, value] : header.items()) {
        text += ' ';
        text += dump(key);
        text += ": ";
        text += dump(value);
        text += ",\n";
    }
    text += " \"regions\": [\n";
    text += regions;
    text += regions.empty() ? " ],\n \"warnings\": [" : "\n ],\n \"warnings\": [";
    const std::vector<std::string> lines = warnings.lines();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        text += i == 0 ? "\n  " : ",\n  ";
        text += dump(lines[i]);
    }
    text += lines.empty() ? "]\n}\n" : "\n ]\n}\n";
    return text;
}

} // namespace

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
    MergedTree merged;
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
            collect(t->root, index, entered, n_counters, merged);
        }
        bound_warnings(*t, warnings);
        t->warnings.merge_into(warnings);
    }

    const int pid = static_cast<int>(getpid());
    Json header;
    header["format"] = "roofcast-marker";
    header["format_version"] = 1;
    header["rank"] = r.config.rank;
    header["ranks"] = r.config.ranks;
    header["pid"] = pid;
    header["wall_seconds"] = std::chrono::duration<double>(now - r.start).count();
    header["threads"] = entered;
    header["papi_events"] = counting ? r.papi.events : std::vector<std::string>{};
    if (!r.config.papi_requested.empty() && !counting) {
        std::lock_guard papi_lock(r.papi_mutex);
        header["papi_error"] = !r.papi.error.empty()     ? r.papi.error
                               : !r.papi_failure.empty() ? r.papi_failure
                                                         : std::string("PAPI counting failed");
    }
    const std::vector<std::string> events = counting ? r.papi.events : std::vector<std::string>{};
    const std::string regions = regions_text(merged, events, warnings);

    const std::string name = "marker." + std::to_string(r.config.rank) + "." + std::to_string(pid) + ".json";
    std::string error;
    if (!write_atomically(r.config.output_dir, name, file_text(header, regions, warnings), error) &&
        notice_first(Notice::write_failed)) {
        print_line("cannot write the marker file: " + escaped_text(error));
    }
}

} // namespace roofcast::marker::detail
