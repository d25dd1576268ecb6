#include "core/json_keys.hpp"

#include "core/key_path.hpp"
#include "core/unread_walk.hpp"

#include <nlohmann/json.hpp>

namespace roofcast::core {

void JsonKeys::mark_whole(const std::string& path) {
    m_read.insert(path);
    m_whole.insert(path);
}

void JsonKeys::delegate(const std::string& path, std::vector<std::string> unread) {
    m_read.insert(path);
    m_delegated[path] = std::move(unread);
}

namespace {

// A JSON document for core::collect_unread: a member read whole is not entered, and one read by another
// reader is settled by the keys that reader found unread below it. Elements that are numbers or strings
// hold no keys and are not entered.
struct JsonTree {
    const std::set<std::string>& whole;
    const std::map<std::string, std::vector<std::string>>& delegated;

    bool handled(const nlohmann::json&, const std::string& path, std::vector<std::string>& out) const {
        if (whole.count(path))
            return true;
        const auto d = delegated.find(path);
        if (d == delegated.end())
            return false;
        for (const auto& below : d->second)
            out.push_back(below.starts_with('[') ? path + below : member_path(path, below));
        return true;
    }
    template <class F> void members(const nlohmann::json& node, F f) const {
        if (node.is_object())
            for (const auto& [key, value] : node.items())
                f(key, value);
    }
    template <class F> void elements(const nlohmann::json& node, F f) const {
        if (node.is_array())
            for (std::size_t i = 0; i < node.size(); ++i)
                if (node[i].is_structured())
                    f(i, node[i]);
    }
};

} // namespace

std::vector<std::string> JsonKeys::unread(const nlohmann::json& root) const {
    std::vector<std::string> out;
    collect_unread(JsonTree{m_whole, m_delegated}, root, "", m_read, out);
    return out;
}

} // namespace roofcast::core
