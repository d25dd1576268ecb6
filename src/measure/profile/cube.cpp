#include "measure/profile/cube.hpp"

#include "core/error.hpp"
#include "measure/profile/cube_detail.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <pugixml.hpp>
#include <zlib.h>

namespace roofcast::measure::profile {

namespace {

struct CubeNode {
    int region = 0;
    std::size_t parent = SIZE_MAX;
    std::vector<std::size_t> children;
    std::string path;
};

struct CubeAnchorMetric {
    std::string id, name, unit, type, dtype;
};

struct CubeAnchor {
    std::vector<CubeAnchorMetric> metrics; // depth first over the metric tree
    std::vector<CubeNode> nodes;           // depth first (the exclusive metrics' tree order)
    std::vector<std::size_t> roots;
    std::vector<std::string> locations; // by location Id
    int processes = 0;
    int max_threads = 0;
};

long long cube_id(const pugi::xml_node& n, const char* attr, const std::string& file, std::size_t bound) {
    const pugi::xml_attribute a = n.attribute(attr);
    const std::string text = a.as_string();
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (!a || text.empty() || *end != '\0' || v < 0 || static_cast<unsigned long long>(v) >= bound)
        throw core::InputError(file, fmt::format("anchor.xml <{} {}>", n.name(), attr),
                               fmt::format("expected a whole number 0..{}, got '{}'", bound - 1, text));
    return v;
}

void cube_metrics(const pugi::xml_node& parent, std::size_t depth, CubeAnchor& a, const std::string& file) {
    if (depth > k_cube_max_depth)
        throw core::InputError(file, "anchor.xml <metric>", "nested too deeply");
    for (const pugi::xml_node m : parent.children("metric")) {
        CubeAnchorMetric cm{m.attribute("id").as_string(), m.child_value("uniq_name"), m.child_value("uom"),
                            m.attribute("type").as_string(), m.child_value("dtype")};
        if (cm.name.empty())
            throw core::InputError(file, "anchor.xml <metric>", "expected a <uniq_name>");
        a.metrics.push_back(std::move(cm));
        cube_metrics(m, depth + 1, a, file);
    }
}

void cube_cnodes(const pugi::xml_node& parent, std::size_t parent_index, std::size_t depth,
                 const std::map<long long, std::string>& regions, CubeAnchor& a, const std::string& file) {
    if (depth > k_cube_max_depth)
        throw core::InputError(file, "anchor.xml <cnode>", "nested too deeply");
    for (const pugi::xml_node c : parent.children("cnode")) {
        if (a.nodes.size() == k_cube_max_nodes)
            throw core::InputError(file, "anchor.xml <cnode>",
                                   fmt::format("expected at most {} call-tree nodes", k_cube_max_nodes));
        // Score-P numbers cnodes depth first from 0: the id is checked to be the node's place in that order.
        const auto id = cube_id(c, "id", file, k_cube_max_nodes);
        if (static_cast<std::size_t>(id) != a.nodes.size())
            throw core::InputError(
                file, "anchor.xml <cnode id>",
                fmt::format("expected the ids 0, 1, ... in depth-first order, got {} at place {}", id,
                            a.nodes.size()));
        const auto region = regions.find(cube_id(c, "calleeId", file, k_cube_max_nodes));
        if (region == regions.end())
            throw core::InputError(file, "anchor.xml <cnode calleeId>", "names no <region id>");
        CubeNode node;
        node.parent = parent_index;
        node.path =
            parent_index == SIZE_MAX ? region->second : a.nodes[parent_index].path + "->" + region->second;
        const std::size_t index = a.nodes.size();
        a.nodes.push_back(std::move(node));
        if (parent_index == SIZE_MAX)
            a.roots.push_back(index);
        else
            a.nodes[parent_index].children.push_back(index);
        cube_cnodes(c, index, depth + 1, regions, a, file);
    }
}

// Locations under system tree nodes and location groups, at any depth.
void cube_locations(const pugi::xml_node& parent, std::size_t depth, const std::string& group_rank,
                    CubeAnchor& a, std::map<long long, std::string>& by_id, const std::string& file) {
    if (depth > k_cube_max_depth)
        throw core::InputError(file, "anchor.xml <system>", "nested too deeply");
    for (const pugi::xml_node n : parent.children()) {
        const std::string name = n.name();
        if (name == "location") {
            const auto id = cube_id(n, "Id", file, k_cube_max_locations);
            if (!by_id.emplace(id, fmt::format("rank {} thread {}", group_rank, n.child_value("rank")))
                     .second)
                throw core::InputError(file, "anchor.xml <location Id>",
                                       fmt::format("location {} appears twice", id));
        } else if (name == "locationgroup") {
            ++a.processes;
            const std::size_t before = by_id.size();
            cube_locations(n, depth + 1, n.child_value("rank"), a, by_id, file);
            a.max_threads = std::max(a.max_threads, static_cast<int>(by_id.size() - before));
        } else if (name == "systemtreenode") {
            cube_locations(n, depth + 1, group_rank, a, by_id, file);
        }
    }
}

std::string cube_anchor_text(const std::map<std::string, std::string>& members, const std::string& file) {
    const auto it = members.find("anchor.xml");
    if (it == members.end())
        throw core::InputError(file, "anchor.xml",
                               "missing: expected a CUBE4 archive (anchor.xml, <id>.index, <id>.data)");
    const std::string& text = it->second;
    if (text.size() < 2 || static_cast<unsigned char>(text[0]) != 0x1f ||
        static_cast<unsigned char>(text[1]) != 0x8b)
        return text;
    // A gzip-compressed anchor (CubeLib writes one on request): inflated with zlib, bounded.
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        throw core::Error("zlib: cannot initialise");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    std::string out;
    char buf[65536];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (out.size() > k_cube_max_member_bytes)
            rc = Z_MEM_ERROR;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw core::InputError(file, "anchor.xml", "compressed with gzip, but does not inflate");
    return out;
}

CubeAnchor parse_anchor(const std::string& xml, const std::string& file) {
    pugi::xml_document doc;
    const pugi::xml_parse_result r = doc.load_buffer(xml.data(), xml.size());
    if (!r)
        throw core::InputError(file, fmt::format("anchor.xml offset {}", r.offset),
                               std::string("expected well-formed XML: ") + r.description());
    const pugi::xml_node cube = doc.child("cube");
    if (!cube)
        throw core::InputError(file, "anchor.xml", "expected the root element <cube>");
    CubeAnchor a;
    cube_metrics(cube.child("metrics"), 0, a, file);
    std::map<long long, std::string> regions;
    for (const pugi::xml_node r : cube.child("program").children("region"))
        regions[cube_id(r, "id", file, k_cube_max_nodes)] = r.child_value("name");
    cube_cnodes(cube.child("program"), SIZE_MAX, 0, regions, a, file);
    if (a.nodes.empty())
        throw core::InputError(file, "anchor.xml <program>", "expected a call tree (<cnode>)");
    std::map<long long, std::string> by_id;
    cube_locations(cube.child("system"), 0, "0", a, by_id, file);
    for (const auto& [id, name] : by_id) {
        if (static_cast<std::size_t>(id) != a.locations.size())
            throw core::InputError(file, "anchor.xml <location Id>",
                                   fmt::format("expected the ids 0..{}", by_id.size() - 1));
        a.locations.push_back(name);
    }
    if (a.locations.empty())
        throw core::InputError(file, "anchor.xml <system>", "expected at least one <location>");
    return a;
}

// Tree index -> node for an inclusive metric: each node's children are numbered when it is expanded, the
// expansion going depth first (pyCubexR's _wide_enumeration).
std::vector<std::size_t> wide_order(const CubeAnchor& a) {
    std::vector<std::size_t> order;
    for (const std::size_t root : a.roots) {
        order.push_back(root);
        std::vector<std::size_t> stack{root};
        while (!stack.empty()) {
            const std::size_t n = stack.back();
            stack.pop_back();
            for (const std::size_t c : a.nodes[n].children)
                order.push_back(c);
            for (auto it = a.nodes[n].children.rbegin(); it != a.nodes[n].children.rend(); ++it)
                stack.push_back(*it);
        }
    }
    return order;
}

} // namespace

CubeProfile parse_cube(const std::string& bytes, const std::string& file) {
    const auto members = read_tar_members(bytes, file);
    const CubeAnchor a = parse_anchor(cube_anchor_text(members, file), file);
    CubeProfile out;
    out.locations = a.locations;
    out.processes = a.processes;
    const std::size_t nloc = a.locations.size();
    if (a.nodes.size() * nloc > k_cube_max_values)
        throw core::InputError(
            file, "anchor.xml",
            fmt::format("{} call-tree nodes x {} locations: expected at most {} values per metric",
                        a.nodes.size(), nloc, k_cube_max_values));
    const auto wide = wide_order(a);
    for (const auto& m : a.metrics) {
        const std::string type = m.type;
        const auto index = members.find(m.id + ".index");
        const auto data = members.find(m.id + ".data");
        if (index == members.end() || data == members.end()) {
            out.warnings.push_back(
                fmt::format("metric '{}' has no data (a derived metric): left out", m.name));
            continue;
        }
        if (type != "EXCLUSIVE" && type != "INCLUSIVE") {
            out.warnings.push_back(fmt::format(
                "metric '{}' is of type '{}', not EXCLUSIVE or INCLUSIVE: left out", m.name, type));
            continue;
        }
        if (cube_dtype_size(m.dtype) == 0) {
            out.warnings.push_back(
                fmt::format("metric '{}' holds {} values, not single numbers: left out", m.name, m.dtype));
            continue;
        }
        bool swapped = false;
        const auto tree = read_cube_index(index->second, file, index->first, a.nodes.size(), swapped);
        const auto values =
            read_cube_data(data->second, file, data->first, m.dtype, tree.size() * nloc, swapped);
        // stored[node][location], nodes without data 0
        std::vector<std::vector<double>> stored(a.nodes.size(), std::vector<double>(nloc, 0.0));
        for (std::size_t i = 0; i < tree.size(); ++i) {
            const std::size_t node = type == "EXCLUSIVE" ? static_cast<std::size_t>(tree[i]) : wide[tree[i]];
            std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(i * nloc), nloc, stored[node].begin());
        }
        CubeMetric cm{m.name, m.unit, stored, stored};
        // Children come after their parent in depth-first order: walking backwards, each node's children are
        // complete. Inclusive = exclusive + the children's inclusive; exclusive = inclusive - the same.
        for (std::size_t n = a.nodes.size(); n-- > 0;)
            for (const std::size_t c : a.nodes[n].children)
                for (std::size_t l = 0; l < nloc; ++l) {
                    if (type == "EXCLUSIVE")
                        cm.inclusive[n][l] += cm.inclusive[c][l];
                    else
                        cm.exclusive[n][l] -= stored[c][l];
                }
        out.metrics.push_back(std::move(cm));
    }
    for (const auto& n : a.nodes)
        out.paths.push_back(n.path);
    return out;
}

core::Profile cube_to_profile(const CubeProfile& c, const std::string& file) {
    core::Profile p;
    p.backend = "cube";
    p.backend_reason = "imported from " + file;
    p.ranks = std::max(1, c.processes);
    std::size_t threads =
        c.processes > 0 ? c.locations.size() / static_cast<std::size_t>(c.processes) : c.locations.size();
    p.threads = static_cast<int>(std::max<std::size_t>(1, threads));
    p.parameters = {{"ranks", static_cast<double>(p.ranks)}};
    p.exit_status = 0;
    std::string columns;
    for (const auto& l : c.locations)
        columns += (columns.empty() ? "" : ",") + l;
    p.settings["cube.locations"] = columns;
    p.warnings = c.warnings;
    // A call path reached through two call sites of one caller is one roofcast function: its values add up.
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < c.paths.size(); ++i) {
        const auto [it, fresh] = index.emplace(c.paths[i], p.functions.size());
        if (fresh) {
            core::ProfileFunction f;
            f.name = c.paths[i];
            p.functions.push_back(std::move(f));
        }
        core::ProfileFunction& f = p.functions[it->second];
        for (const auto& m : c.metrics)
            for (const bool inclusive : {false, true}) {
                const auto& row = (inclusive ? m.inclusive : m.exclusive)[i];
                core::ProfileMetric& pm = f.metrics[inclusive ? m.name + " (inc)" : m.name];
                pm.origin = core::MetricOrigin::counted;
                pm.aggregate = "sum";
                pm.unit = m.unit == "sec" ? "seconds" : m.unit == "occ" || m.unit.empty() ? "count" : m.unit;
                if (pm.per_rank.empty())
                    pm.per_rank.emplace_back(row.size(), 0.0);
                for (std::size_t l = 0; l < row.size(); ++l)
                    pm.per_rank[0][l] += row[l];
            }
    }
    // Exclusive values below 0 (an inclusive metric whose children add up to more than it, by the file's
    // rounding or a damaged file) would fail the profile's range check: set to 0, and named when not
    // rounding.
    for (auto& f : p.functions)
        for (auto& [name, m] : f.metrics)
            for (double& v : m.per_rank[0])
                if (v < 0) {
                    if (v < -1e-9)
                        p.warnings.push_back(fmt::format(
                            "{} of '{}' is negative ({}) on a location: set to 0", name, f.name, v));
                    v = 0;
                }
    return p;
}

bool looks_like_cube(const std::string& bytes) {
    if (bytes.size() < 512 || bytes.compare(257, 5, "ustar") != 0)
        return false;
    const std::string first(bytes.data(), strnlen(bytes.data(), 100));
    return first == "anchor.xml" || first.ends_with(".index") || first.ends_with(".data");
}

} // namespace roofcast::measure::profile
