// The bandwidth-vs-working-set chart of a machine file: one curve per sweep kernel and thread count
// (log-size x axis, log GB/s y axis), the cache sizes as vertical lines (reported size solid, the size the
// sweep showed to be usable dashed), and the working-set range served by each memory level shaded, with
// that level's bandwidth roof drawn as its plateau.
//
// Contract: pure function from core::Machine to an SVG document; points that cannot be placed (zero or
// negative sizes or bandwidths) are omitted and listed in a visible note; a machine without a sweep gives
// a chart with the plateaus only and a note saying so.
#pragma once

#include "core/machine.hpp"
#include "report/svg.hpp"

#include <string>

namespace roofcast::report {

svg::Document bandwidth_chart(const core::Machine& m, const std::string& id_prefix = "bandwidth");

// Tick label for a byte count: "512 B", "48 KiB", "16 MiB" (whole numbers where exact).
std::string size_tick(double bytes);
// Tick label for a count on a power-of-two axis: "256", "4 Ki", "1 Mi" (whole numbers where exact).
std::string count_tick(double n);

} // namespace roofcast::report
