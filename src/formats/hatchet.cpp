// Hatchet's "literal" JSON (LLNL Hatchet, GraphFrame.from_literal; hatchet/readers/literal_reader.py), which
// Hatchet and Thicket read: a list of root frames, each
//   {"frame": {"name": N, "type": T}, "metrics": {M: value, ...}, "children": [...]}.
// Written only (`roofcast convert --format hatchet`). A roofcast call path "main->solve->dot" becomes the
// nodes main, solve and dot; each node's metrics are the profile's values for that path, ranks reduced
// with the metric's `aggregate` and repetitions averaged (ProfileMetric::reduced_mean, what `scale` fits).
// Hatchet takes a metric whose name holds "(inc)" as inclusive, the others as exclusive, and it lists the
// metrics of the last root only: so every node carries every metric of the profile, 0 where the profile
// has no record of that path (a caller that appears only as part of longer paths) or of that metric.
#include "core/error.hpp"
#include "formats/format.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace roofcast::model::formats {

namespace {

struct HatchetNode {
    std::string name;
    std::string type = "function";
    const core::ProfileFunction* record = nullptr;
    std::vector<std::unique_ptr<HatchetNode>> children; // in the order the profile first names them
};

std::vector<std::string> hatchet_path(const std::string& call_path) {
    std::vector<std::string> parts;
    std::size_t pos = 0;
    for (;;) {
        const auto arrow = call_path.find("->", pos);
        parts.push_back(call_path.substr(pos, arrow == std::string::npos ? std::string::npos : arrow - pos));
        if (arrow == std::string::npos)
            return parts;
        pos = arrow + 2;
    }
}

HatchetNode& hatchet_child(std::vector<std::unique_ptr<HatchetNode>>& level, const std::string& name) {
    for (auto& c : level)
        if (c->name == name)
            return *c;
    level.push_back(std::make_unique<HatchetNode>());
    level.back()->name = name;
    return *level.back();
}

nlohmann::json hatchet_json(const HatchetNode& n, const std::set<std::string>& metrics) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& m : metrics) {
        double v = 0.0;
        if (n.record)
            if (const auto it = n.record->metrics.find(m); it != n.record->metrics.end())
                v = it->second.reduced_mean();
        values[m] = v;
    }
    nlohmann::json out{{"frame", {{"name", n.name}, {"type", n.type}}}, {"metrics", values}};
    if (!n.children.empty()) {
        out["children"] = nlohmann::json::array();
        for (const auto& c : n.children)
            out["children"].push_back(hatchet_json(*c, metrics));
    }
    return out;
}

std::string write_hatchet(const core::Profile& p, const std::string& file) {
    std::set<std::string> metrics;
    for (const auto& f : p.functions)
        for (const auto& [m, _] : f.metrics)
            metrics.insert(m);
    if (p.functions.empty() || metrics.empty())
        throw core::InputError(file, "functions", "expected at least one function with a metric to write");
    std::vector<std::unique_ptr<HatchetNode>> roots;
    for (const auto& f : p.functions) {
        auto* level = &roots;
        HatchetNode* node = nullptr;
        for (const auto& part : hatchet_path(f.name)) {
            if (part.empty())
                throw core::InputError(file, "functions",
                                       "call path '" + f.name + "' has an empty frame name");
            node = &hatchet_child(*level, part);
            level = &node->children;
        }
        node->record = &f;
        node->type = f.kind;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : roots)
        out.push_back(hatchet_json(*r, metrics));
    return out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace

extern constinit const FormatReader hatchet_format{"hatchet", "Hatchet literal JSON", "", nullptr, nullptr,
                                                   nullptr,   write_hatchet};

} // namespace roofcast::model::formats
