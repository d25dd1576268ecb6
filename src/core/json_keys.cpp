#include "core/json_keys.hpp"

#include "core/key_path.hpp"

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

void JsonKeys::collect(const nlohmann::json& node, const std::string& path,
                       std::vector<std::string>& out) const {
    if (m_whole.count(path))
        return;
    if (const auto d = m_delegated.find(path); d != m_delegated.end()) {
        for (const auto& below : d->second)
            out.push_back(below.starts_with('[') ? path + below : member_path(path, below));
        return;
    }
    if (node.is_object()) {
        for (const auto& [key, value] : node.items()) {
            const std::string child = member_path(path, key);
            if (!m_read.count(child))
                out.push_back(child);
            else
                collect(value, child, out);
        }
    } else if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i)
            if (node[i].is_structured()) // numbers and strings hold no keys: no path built for them
                collect(node[i], element_path(path, i), out);
    }
}

std::vector<std::string> JsonKeys::unread(const nlohmann::json& root) const {
    std::vector<std::string> out;
    collect(root, "", out);
    return out;
}

} // namespace roofcast::core
