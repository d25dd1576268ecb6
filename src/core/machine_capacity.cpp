// Stream capacity and TLB figures of the machine file: their helpers (fraction_at, tlb_reach,
// stream_capacity_of) and their YAML codec (declared in machine_sections.hpp).
#include "core/machine.hpp"
#include "core/machine_sections.hpp"

#include <algorithm>
#include <set>

namespace roofcast::core {

namespace {

const std::set<std::string> k_tlb_levels{"L1d", "L2"};
const std::set<std::string> k_huge_page_modes{"always", "madvise", "never"};
const std::set<std::string> k_accesses{"read", "write"};

int positive_int(const YamlField& f, const std::string& what) {
    const std::int64_t v = f.as_int();
    if (v < 1 || v > (std::int64_t{1} << 30))
        f.fail("expected " + what + " >= 1, got " + std::to_string(v));
    return static_cast<int>(v);
}

} // namespace

std::optional<std::uint64_t> Topology::tlb_reach(std::uint64_t page_bytes) const {
    std::optional<std::uint64_t> reach;
    for (const auto& t : tlb)
        if (t.page_bytes == page_bytes && t.entries > 0)
            reach = std::max(reach.value_or(0), static_cast<std::uint64_t>(t.entries) * page_bytes);
    return reach;
}

namespace {

// Linear interpolation of `value(point)` at `streams` between measured counts; the last point's value beyond
// them, the first point's below them.
template <class Value>
double interpolate(const std::vector<StreamCapacityPoint>& points, int streams, Value value) {
    if (streams <= points.front().streams)
        return value(points.front());
    for (std::size_t i = 1; i < points.size(); ++i)
        if (streams <= points[i].streams) {
            const StreamCapacityPoint& a = points[i - 1];
            const StreamCapacityPoint& b = points[i];
            const double f = b.streams > a.streams
                                 ? static_cast<double>(streams - a.streams) / (b.streams - a.streams)
                                 : 1.0;
            return value(a) + f * (value(b) - value(a));
        }
    return value(points.back());
}

const StreamCapacityPoint* best_point(const std::vector<StreamCapacityPoint>& points) {
    const StreamCapacityPoint* best = nullptr;
    for (const auto& p : points)
        if (!best || p.gbs.median > best->gbs.median)
            best = &p;
    return best && best->gbs.median > 0 ? best : nullptr;
}

} // namespace

std::optional<double> StreamCapacity::fraction_at(int streams) const {
    const StreamCapacityPoint* best = best_point(points);
    if (!best)
        return std::nullopt;
    return interpolate(points, streams, [](const StreamCapacityPoint& p) { return p.gbs.median; }) /
           best->gbs.median;
}

std::optional<double> StreamCapacity::upper_fraction_at(int streams) const {
    const StreamCapacityPoint* best = best_point(points);
    if (!best || !(best->gbs.min > 0))
        return std::nullopt;
    return interpolate(points, streams, [](const StreamCapacityPoint& p) { return p.gbs.max; }) /
           best->gbs.min;
}

const StreamCapacity* Machine::stream_capacity_of(const std::string& level_name,
                                                  const std::string& access) const {
    for (const auto& s : stream_capacity)
        if (s.level == level_name && s.access == access)
            return &s;
    return nullptr;
}

std::vector<TlbInfo> tlb_from_yaml(const YamlField& seq) {
    std::vector<TlbInfo> out;
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const YamlField t = seq.at(i);
        TlbInfo info;
        info.level = one_of(t["level"], k_tlb_levels);
        info.entries = positive_int(t["entries"], "entries");
        if (auto p = t.optional("page_bytes")) {
            info.page_bytes = p->as_size();
            if (info.page_bytes < 4096 || (info.page_bytes & (info.page_bytes - 1)) != 0)
                p->fail("expected a power of two >= 4096, got " + std::to_string(info.page_bytes));
        }
        if (auto a = t.optional("associativity"))
            info.associativity = positive_int(*a, "ways");
        out.push_back(info);
    }
    return out;
}

nlohmann::ordered_json tlb_tree(const std::vector<TlbInfo>& tlb) {
    nlohmann::ordered_json seq = nlohmann::ordered_json::array();
    for (const auto& t : tlb) {
        nlohmann::ordered_json n;
        n["level"] = t.level;
        n["entries"] = t.entries;
        n["page_bytes"] = t.page_bytes;
        if (t.associativity)
            n["associativity"] = *t.associativity;
        seq.push_back(n);
    }
    return seq;
}

std::string huge_pages_from_yaml(const YamlField& f) {
    return one_of(f, k_huge_page_modes);
}

std::vector<StreamCapacity> stream_capacity_from_yaml(const YamlField& seq) {
    std::vector<StreamCapacity> out;
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const YamlField e = seq.at(i);
        StreamCapacity sc;
        sc.level = e["level"].as_string();
        if (sc.level.empty())
            e["level"].fail("expected a level name (MEM or a cache level)");
        sc.access = one_of(e["access"], k_accesses);
        sc.threads = positive_int(e["threads"], "a thread count");
        sc.working_set_bytes = e["working_set_bytes"].as_size();
        if (sc.working_set_bytes == 0)
            e["working_set_bytes"].fail("expected a positive size");
        const YamlField pts = e["points"];
        for (std::size_t k = 0; k < pts.size(); ++k) {
            const YamlField p = pts.at(k);
            StreamCapacityPoint pt;
            pt.streams = positive_int(p["streams"], "streams");
            if (!sc.points.empty() && pt.streams <= sc.points.back().streams)
                p["streams"].fail("expected stream counts in increasing order");
            pt.gbs = summary_from_yaml(p["gbs"]);
            sc.points.push_back(std::move(pt));
        }
        if (sc.points.empty())
            pts.fail("expected at least one point");
        if (auto c = e.optional("capacity"))
            sc.capacity = positive_int(*c, "a stream count");
        if (out.end() != std::find_if(out.begin(), out.end(), [&](const StreamCapacity& o) {
                return o.level == sc.level && o.access == sc.access;
            }))
            e["access"].fail("duplicate entry for " + sc.level + " " + sc.access);
        out.push_back(std::move(sc));
    }
    return out;
}

nlohmann::ordered_json stream_capacity_tree(const std::vector<StreamCapacity>& sc) {
    nlohmann::ordered_json seq = nlohmann::ordered_json::array();
    for (const auto& s : sc) {
        nlohmann::ordered_json n;
        n["level"] = s.level;
        n["access"] = s.access;
        n["threads"] = s.threads;
        n["working_set_bytes"] = s.working_set_bytes;
        if (s.capacity)
            n["capacity"] = *s.capacity;
        for (const auto& p : s.points) {
            nlohmann::ordered_json pn;
            pn["streams"] = p.streams;
            pn["gbs"] = summary_tree(p.gbs);
            n["points"].push_back(pn);
        }
        seq.push_back(n);
    }
    return seq;
}

} // namespace roofcast::core
