// Importing Score-P/Scalasca profiles in the CUBE4 format (profile.cubex): a tar archive of anchor.xml
// (metrics, regions, the call tree and the system tree) and, per metric id, <id>.index (the call-tree
// nodes that have data) and <id>.data (one value per node and location). Layout as documented with
// CubeLib ("Cube4 file format") and read by Extra-P's pyCubexR: index "CUBEX.INDEX", an int32 1 giving the
// byte order, int16 version, one byte index type, int32 n and n int32 tree indices; data "CUBEX.DATA" and
// n x locations values of the metric's dtype (or "ZCUBEX.DATA": zlib-compressed chunks). A tree index
// counts call-tree nodes in depth-first order for an exclusive metric and in pyCubexR's "wide" order
// (a node's children numbered when it is expanded) for an inclusive one.
// Every metric with data is read per call path and per location, both exclusive and inclusive (the other
// derived from the children): metric M gives "M" (exclusive) and "M (inc)", Hatchet's naming. Derived
// metrics (no data) and value types other than numbers are skipped with a warning.
// Contract: pure parsers over bytes, bounded; malformed input is one core::InputError(file, field, ...).
#pragma once

#include "core/profile.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_cube_max_entries = 100000;    // archive members
inline constexpr std::size_t k_cube_max_nodes = 1000000;     // call-tree nodes
inline constexpr std::size_t k_cube_max_locations = 1 << 20; // threads over all processes
inline constexpr std::size_t k_cube_max_depth = 1000;        // nesting of the call tree, metrics, system
inline constexpr std::size_t k_cube_max_member_bytes = std::size_t(1) << 31;
// Values of one metric (call-tree nodes x locations): 2^27 doubles, 1 GiB, exclusive and inclusive each.
inline constexpr std::size_t k_cube_max_values = std::size_t(1) << 27;

// One metric of a CUBE file, per call path, per location.
struct CubeMetric {
    std::string name; // uniq_name
    std::string unit; // uom
    // exclusive[path][location], inclusive[path][location]: rows in the order of CubeProfile::paths
    std::vector<std::vector<double>> exclusive, inclusive;
};

struct CubeProfile {
    std::vector<std::string> paths;     // call paths "main->solve->dot", depth first, each once
    std::vector<std::string> locations; // "rank R thread T" (location group rank, location rank)
    int processes = 0;                  // location groups
    std::vector<CubeMetric> metrics;
    std::vector<std::string> warnings;
};

// The members of a tar archive held in `bytes` (libarchive), by name; InputError for a damaged archive.
std::map<std::string, std::string> read_tar_members(const std::string& bytes, const std::string& file);

CubeProfile parse_cube(const std::string& bytes, const std::string& file);

// The roofcast profile of a CUBE file: one function per call path (kind "function"), the metrics above with
// one per_rank column per location (aggregate "sum"), ranks = processes, threads = the most locations of
// one process, settings "cube.locations" naming the columns.
core::Profile cube_to_profile(const CubeProfile& c, const std::string& file);

// True when `bytes` starts like a tar archive whose first member is anchor.xml or a metric's data
// (ustar magic at offset 257).
bool looks_like_cube(const std::string& bytes);

} // namespace roofcast::measure::profile
