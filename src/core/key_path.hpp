// The path of a field inside a document, as every reader names it in errors and in the lists of keys a
// format does not read (core::YamlField for YAML, core::JsonKeys for JSON): `a.b` for member `b` of `a`,
// `a[2]` for element 2 of the list `a`; a member of the top level is its key alone.
#pragma once

#include <cstddef>
#include <string>

namespace roofcast::core {

inline std::string member_path(const std::string& path, const std::string& key) {
    if (path.empty())
        return key;
    std::string out = path; // appended piece by piece (GCC 12's -Wrestrict misfires on operator+ chains)
    out += '.';
    out += key;
    return out;
}

inline std::string element_path(const std::string& path, std::size_t index) {
    std::string out = path;
    out += '[';
    out += std::to_string(index);
    out += ']';
    return out;
}

} // namespace roofcast::core
