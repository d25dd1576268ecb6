// A thread's call tree: the lookup of a region's child by name and the tree's destruction, both bounded
// in cost whatever the program does (100,000 siblings, 1,024 levels).
#include "state.hpp"

#include <functional>

namespace roofcast::marker::detail {

Node::~Node() {
    // Descendants are detached into a list and destroyed one at a time, each with no children left, instead
    // of recursively through their unique_ptrs. Should the list fail to grow, each node left in it is
    // destroyed by this same loop.
    try {
        std::vector<std::unique_ptr<Node>> pending = std::move(children);
        while (!pending.empty()) {
            std::unique_ptr<Node> node = std::move(pending.back());
            pending.pop_back();
            for (auto& child : node->children) {
                pending.push_back(std::move(child));
            }
            node->children.clear();
        }
    } catch (...) {
    }
}

std::size_t ChildIndex::Hash::operator()(const Key& k) const noexcept {
    // boost::hash_combine's mixing of two hashes (Boost.ContainerHash, hash_combine).
    std::size_t h = std::hash<std::string_view>{}(k.name);
    h ^= std::hash<const void*>{}(k.parent) + 0x9e3779b9 + (h << 6) + (h >> 2);
    return h;
}

Node* ChildIndex::find_or_add_hashed(Node& parent, std::string_view name, bool& created) {
    if (const auto it = m_table.find(Key{&parent, name}); it != m_table.end()) {
        return it->second;
    }
    return add(parent, name, created);
}

Node* ChildIndex::add(Node& parent, std::string_view name, bool& created) {
    if (m_nodes >= k_max_regions) {
        return nullptr;
    }
    auto& children = parent.children;
    children.push_back(std::make_unique<Node>(std::string(name), &parent));
    Node* node = children.back().get();
    ++m_nodes;
    created = true;
    // Past the scan's length every child of `parent` is in the table.
    if (children.size() == k_scan_children + 1) {
        for (auto& c : children) {
            m_table.emplace(Key{&parent, c->name}, c.get());
        }
    } else if (children.size() > k_scan_children + 1) {
        m_table.emplace(Key{&parent, node->name}, node);
    }
    return node;
}

} // namespace roofcast::marker::detail
