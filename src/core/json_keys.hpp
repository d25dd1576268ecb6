// The keys of a JSON document that its reader asked for (the results file, the profiles). The JSON
// counterpart of core::YamlField's record: a reader marks every member it looks at by its path
// ("kernels[3].precision"), and unread() then lists the members of the document that no reader asked for,
// so a misspelt key is named instead of dropped in silence. Paths are core/key_path.hpp's, as YamlField's.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>

namespace roofcast::core {

class JsonKeys {
public:
    // The member at `path` was asked for (present or not); its own members are checked in turn.
    void mark(const std::string& path) { m_read.insert(path); }
    // The member at `path` is part of the format with everything below it (a value the reader passes on
    // whole, or a free-form map such as a profile's `settings`).
    void mark_whole(const std::string& path);
    // The member at `path` was read by another reader, which found `unread` below it (paths relative to
    // it, as YamlField::unread_keys gives them): they are listed in its place.
    void delegate(const std::string& path, std::vector<std::string> unread);

    // Members of `root` never marked, as paths in the document's order (nlohmann's: keys sorted); an
    // unread member is listed once, not descended into.
    std::vector<std::string> unread(const nlohmann::json& root) const;

private:
    std::set<std::string> m_read;
    std::set<std::string> m_whole;
    std::map<std::string, std::vector<std::string>> m_delegated;
};

} // namespace roofcast::core
