// The walk that names the members of a document no reader asked for, shared by core::YamlField (YAML) and
// core::JsonKeys (JSON). A reader records the path of every member it asks for (core/key_path.hpp); the walk
// then lists each member whose path was never recorded, once, without descending into it, and descends
// into the recorded ones. `Tree` adapts one document type:
//   bool handled(const Node&, const std::string& path, std::vector<std::string>& out) const
//       true when the path is settled without descending (a value read whole, one read by another reader)
//   void members(const Node&, F f) const    calls f(key, child) for each member of a map
//   void elements(const Node&, F f) const   calls f(index, child) for each element of a list worth entering
#pragma once

#include "core/key_path.hpp"

#include <set>
#include <string>
#include <vector>

namespace roofcast::core {

template <class Node, class Tree>
void collect_unread(const Tree& tree, const Node& node, const std::string& path,
                    const std::set<std::string>& read, std::vector<std::string>& out) {
    if (tree.handled(node, path, out))
        return;
    tree.members(node, [&](const std::string& key, const Node& child) {
        const std::string child_path = member_path(path, key);
        if (!read.count(child_path))
            out.push_back(child_path);
        else
            collect_unread(tree, child, child_path, read, out);
    });
    tree.elements(node, [&](std::size_t i, const Node& child) {
        collect_unread(tree, child, element_path(path, i), read, out);
    });
}

} // namespace roofcast::core
