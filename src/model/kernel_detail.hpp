// Internals shared by the kernel-file reader (kernel.cpp) and the traffic a kernel implies (traffic.cpp).
// Not a public interface: only those two include it.
#pragma once

#include "core/machine.hpp"
#include "model/kernel.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <string>
#include <vector>

namespace roofcast::model::detail {

// The keys of a kernel file's L1 reuse counts, which L1 serves beside the arrays' own streams.
inline const std::set<std::string> k_l1_reuse_keys{"L1_short", "L1_long"};

// "L1, L2, L3, MEM": the machine's levels, for messages that name what a field may be.
inline std::string level_list(const core::Machine& m) {
    std::vector<std::string> names;
    for (const auto& l : m.levels)
        names.push_back(l.name);
    return fmt::format("{}", fmt::join(names, ", "));
}

// The file an error about kernel k names: its source file, else its name.
inline std::string file_of(const KernelSpec& k) {
    return k.source_file.empty() ? k.name : k.source_file;
}

} // namespace roofcast::model::detail
