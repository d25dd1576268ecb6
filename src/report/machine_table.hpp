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

// The roofs whose best epochs did not agree before the settling cap (levels[].roof_choice.settled false),
// each with its epochs' range: "L2 (167-206 GB/s over 27 epochs), MEM (40.6-78.3 GB/s over 15 epochs)".
// Empty when every measured roof settled (issue 22: a host that does not settle is named, never hidden).
std::string unsettled_roofs_text(const core::Machine& m);

// The private levels whose roof at more than one thread stayed below core::k_roof_thread_scaling_min of
// (threads x one thread) (roof_choice.thread_scaling, issue 22 §2): "L1 (79 % of 2 x one thread)".
// Empty when none.
std::string short_scaling_text(const core::Machine& m);

} // namespace roofcast::report
