// Text of the mixed model's verdict for each region of a profile placed on the roofline
// (model::place_profile): one line per region with its intensity, measured performance, bound,
// fraction of the bound and bottleneck, then the regions that could not be placed. Pure.
#pragma once

#include "model/profile_regions.hpp"

#include <string>
#include <vector>

namespace roofcast::report {

std::string region_verdicts(const model::ProfilePlacement& p);

// The names a table shows for these regions: C++ functions without their parameter lists
// ("solve(...)"), except where two of them would then read the same.
std::vector<std::string> shown_names(const std::vector<std::string>& names);

} // namespace roofcast::report
