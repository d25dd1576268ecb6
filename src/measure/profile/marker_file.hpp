// Reading the marker library's output (`marker.<rank>.<pid>.json`, format `roofcast-marker` version 1;
// the contract is docs/formats-marker.md): per rank its wall time, thread count, PAPI events or the
// reason they could not be counted, per region (call path) calls, inclusive seconds, declared flops and
// bytes, counters, and the library's warnings (mismatched or unclosed regions). Bounded and strict:
// InputError(file, field, expected) on anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure::profile {

inline constexpr std::size_t k_marker_max_regions = 100000;
inline constexpr std::uintmax_t k_marker_max_file_bytes = std::uintmax_t{256} << 20;

struct MarkerRegion {
    std::string path; // "main->solve->dot"
    double calls = 0;
    double seconds = 0;
    std::optional<double> flops;
    std::optional<double> bytes;
    std::map<std::string, double> counters;
};

struct MarkerFile {
    int rank = 0;
    int ranks = 1;
    double wall_seconds = 0;
    int threads = 1;
    std::vector<std::string> papi_events;
    std::string papi_error;
    std::vector<MarkerRegion> regions;
    std::vector<std::string> warnings;
};

MarkerFile parse_marker_file(const std::string& text, const std::string& file);

// Every marker.*.json under `dir`, by rank (the highest pid wins when a rank wrote twice, with a warning).
std::map<int, MarkerFile> read_marker_dir(const std::string& dir, std::vector<std::string>& warnings);

} // namespace roofcast::measure::profile
