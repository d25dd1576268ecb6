// The one choice of a level's bandwidth. Every prediction asks choose_bandwidth() for each level it
// times and records the answer in its core::LevelTerm; the roofline charts draw the answer for the
// reference workload, so a chart never shows a roof the models would not use (docs/models.md, "Which
// bandwidth"; docs/design.md, "One choice of bandwidth").
//
// Contract: pure function of the level and the workload's needs; the bandwidth is in moved bytes per
// second (write-allocate included, the unit of kernel traffic), decimal GB/s. A level without any
// figure (no measurement, roof, curve or effective bandwidth) is a core::InputError naming the level.
#pragma once

#include "core/machine.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace roofcast::model {

// What a workload asks of a level's bandwidth.
// A workload whose write fraction lies below this reads like the load kernel (write fraction 0) more than
// like the triad (1/3): halfway between them.
inline constexpr double k_read_only_write_fraction = 1.0 / 6.0;

struct BandwidthNeed {
    int threads = 1;
    // Fraction of the level's bytes that are writes, when the kernel form tells it; without it the
    // catalogue's roof kernel (STREAM triad) is the reference.
    std::optional<double> write_fraction;
    bool nt_stores = false;        // the workload writes with non-temporal stores
    bool prefer_effective = false; // the mixed model: a calibrated effective bandwidth comes first
    // Where on the level's bandwidth curve the workload sits (bytes); none: the curve's largest point.
    std::optional<double> curve_at;
};

// The source a calibrated effective bandwidth is recorded under (ChosenBandwidth::source, and so
// core::LevelTerm::bandwidth_source), alone or followed by how the access mix scaled it.
inline constexpr std::string_view k_calibrated_source = "calibrated effective";
inline bool calibrated_source(std::string_view source) {
    return source.substr(0, k_calibrated_source.size()) == k_calibrated_source;
}

struct ChosenBandwidth {
    double gbs = 0;                        // moved bytes, decimal GB/s
    std::string source;                    // "measured triad, 2 threads", "entered", "curve at 1 MiB", ...
    std::optional<core::Summary> measured; // spread of the figure in moved bytes, when it is a measurement
};

// The measurement at the need's thread count whose read/write mix best matches the workload (the
// roof kernel when the mix is unknown; the other store kind counts as a worse match), if any.
std::optional<ChosenBandwidth> measured_bandwidth(const core::Level& lv, const BandwidthNeed& need);

// The bandwidth choice (docs/models.md, "Which bandwidth"): the calibrated effective bandwidth when
// preferred; then measured_bandwidth(); then the entered/measured roof (bandwidth_gbs); then the
// bandwidth curve; then the calibrated effective bandwidth.
ChosenBandwidth choose_bandwidth(const core::Level& lv, const BandwidthNeed& need);

} // namespace roofcast::model
