// Importing likwid-perfctr's marker output in its CSV form (`likwid-perfctr -g GROUP -m -O ...`, written by
// likwid's printOutput in likwid.lua): per region and group a block
//   TABLE,Region <tag>,Group <g> Raw,<group>,<n events>
//   Region Info,HWThread <c>,...  /  RDTSC Runtime [s],...  /  call count,...
//   Event,Counter,HWThread <c>,...  then one row per event
// followed by derived tables (Raw STAT, Metric, Metric STAT) that are recomputed from these and skipped, and
// anything else on the stream (the program's output, likwid's separator lines) ignored. Each region becomes
// a profile region with per-hardware-thread values: the region's time ("time", seconds, max over threads),
// its call count ("calls", max) and every event's count (sum over threads). The profile's per_rank columns
// are the hardware threads (settings "likwid.hwthreads" lists them); ranks 1, threads = their number.
// Contract: a pure parser, bounded; malformed input is one core::InputError(file, "line N", expected).
#pragma once

#include "core/profile.hpp"

#include <cstddef>
#include <string>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_likwid_max_regions = 100000;
inline constexpr std::size_t k_likwid_max_threads = 1 << 16;
inline constexpr std::size_t k_likwid_max_line_bytes = 1 << 20;

core::Profile parse_likwid_csv(const std::string& text, const std::string& file);

// True when `text` holds a likwid marker table ("TABLE,Region ... Raw,") at the start of a line.
bool looks_like_likwid_csv(const std::string& text);

} // namespace roofcast::measure::profile
