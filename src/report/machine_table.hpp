// Readable summary of a machine file for the terminal: topology, clock, compute ceilings (with
// their ratio to the theoretical peak), per-level bandwidth per kernel and thread count (requested
// and actually moved bytes), effective cache sizes, thread overhead and notes. A pure function:
// every measured row shows median, min..max, n and relative spread, and rows whose spread exceeds
// core::k_noisy_spread are flagged NOISY.
#pragma once

#include "core/machine.hpp"

#include <string>

namespace roofcast::report {

std::string format_machine_table(const core::Machine& m);

} // namespace roofcast::report
