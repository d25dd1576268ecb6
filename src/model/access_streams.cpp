#include "model/access_streams.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace roofcast::model {

namespace {

const ArrayDecl* find_array(const LoopNest& nest, const std::string& name) {
    for (const auto& a : nest.arrays)
        if (a.name == name)
            return &a;
    return nullptr;
}

// Byte offset of an access from the array element at the loop's current indices: row-major strides.
double offset_bytes(const ArrayDecl& a, const ArrayAccess& acc, double element) {
    double offset = 0, stride = element;
    const std::size_t dims = a.dims.size();
    for (std::size_t d = dims; d-- > 0;) {
        if (d < acc.offsets.size())
            offset += static_cast<double>(acc.offsets[d]) * stride;
        stride *= static_cast<double>(std::max<long>(1, a.dims[d]));
    }
    return offset;
}

} // namespace

StreamSummary innermost_streams(const LoopNest& nest, const std::string& file) {
    StreamSummary out;
    // An interleaved group is one array of structures: its members' elements at one index share a
    // structure (or, blocked per cache line, neighbouring lines), so the group's first member stands for
    // all of them.
    auto stored_as = [&](const std::string& name) {
        for (const auto& g : nest.interleaved)
            if (std::find(g.begin(), g.end(), name) != g.end())
                return g.front();
        return name;
    };
    for (const auto& acc : nest.accesses) {
        const ArrayDecl* a = find_array(nest, acc.array);
        if (!a)
            continue; // check_kernel reports unknown arrays; nothing to walk here
        const double off =
            offset_bytes(*a, acc, type_bytes(a->type, file, "loop.arrays." + a->name + ".type"));
        const std::string array = stored_as(acc.array);
        auto same = std::find_if(out.streams.begin(), out.streams.end(), [&](const AccessStream& s) {
            return s.array == array && std::abs(s.offset_bytes - off) < k_stream_merge_bytes;
        });
        if (same == out.streams.end()) {
            out.streams.push_back({array, off, acc.write, 1});
        } else {
            same->write = same->write || acc.write;
            ++same->accesses;
        }
    }
    for (const auto& s : out.streams)
        (s.write ? out.writes : out.reads) += 1;
    return out;
}

int max_streams_per_set(const StreamSummary& s, double size_bytes, int associativity, double line) {
    if (size_bytes <= 0 || associativity <= 0 || line <= 0)
        return 0;
    const auto sets = static_cast<long long>(std::max(1.0, std::floor(size_bytes / (associativity * line))));
    // Distinct (array, line) pairs per set: two arrays at the same offset are two lines of one set.
    std::map<long long, std::set<std::pair<std::string, long long>>> lines_per_set;
    for (const auto& st : s.streams) {
        const auto l = static_cast<long long>(std::floor(st.offset_bytes / line));
        lines_per_set[((l % sets) + sets) % sets].insert({st.array, l});
    }
    std::size_t most = 0;
    for (const auto& [set, lines] : lines_per_set)
        most = std::max(most, lines.size());
    return static_cast<int>(most);
}

int pages_in_flight(const StreamSummary& s, double page_bytes) {
    std::set<std::pair<std::string, long long>> pages;
    for (const auto& st : s.streams)
        pages.insert({st.array, static_cast<long long>(std::floor(st.offset_bytes / page_bytes))});
    return static_cast<int>(pages.size());
}

} // namespace roofcast::model
