// The functions and marker regions of a roofcast profile as kernels on the machine's roofline, each with
// the mixed model's verdict (§4 of `roofcast profile`, docs/profile.md "Regions on the roofline").
// A region is placed when its flops and bytes are both known: flops declared or counted (`flops`, or
// PAPI_DP_OPS + PAPI_SP_OPS); bytes per memory level counted and simulated (the callgrind backend's
// bytes_L1 .. bytes_MEM: one dot per level on the hierarchical roofline), else declared (`bytes`) or
// simulated (cachegrind's LL_MISS_BYTES), both taken as memory traffic. Values are the run's totals
// (ranks reduced with each metric's aggregate, mean over repetitions); performance = flops / time where
// the region has a time (slowest rank). Functions and loops holding less than `min_share` of the
// program's time and of its flops are left out (counted in `below_share`). A region with bytes and no
// flops (data movement) gets the same verdict in bandwidth. Contract: pure; regions that
// cannot be placed are listed in `omitted` with the reason.
#pragma once

#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/results.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

struct RegionVerdict {
    std::string name;
    std::string kind;                          // function, library, loop, region
    std::map<std::string, double> level_bytes; // machine level -> bytes, when counted per level
    double flops = 0;
    double bytes = 0;        // at bytes_level
    std::string bytes_level; // the limiting level (profile_regions.cpp, intensity_level)
    std::string flops_origin, bytes_origin;
    double intensity = 0;                  // flops / bytes
    std::optional<double> measured_gflops; // flops / time, when timed
    double bound_gflops = 0;               // mixed model's attainable performance
    std::string bound;                     // "memory" or "compute"
    std::string bottleneck;                // the limiting level or "compute"
    std::optional<double> fraction;        // measured / bound
    // The samples a sampled time rests on (time_samples) and the fraction's 95 % interval from their count
    // (core::poisson_interval_95); no upper end where the count admits a time of zero.
    std::optional<double> time_samples;
    std::optional<double> fraction_lo, fraction_hi;
    // A region that moves data without arithmetic (flops 0: a copy, memset, packing a halo): its bandwidth
    // against the level its intensity is taken at (bytes / time, when timed) and the mixed model's bound
    // for those bytes; its fraction is the one over the other.
    std::optional<double> measured_gbs;
    double bound_gbs = 0;
    std::optional<double> time_share, flops_share; // of the program's total (functions of the profile)
    int vector_bits = 0;                           // widest FP arithmetic it executed (counted), 0 unknown
    std::vector<std::string> guidance;             // what would raise it, most relevant first
};

struct ProfilePlacement {
    core::Results results; // one KernelResult per placed region (iterations 1), with the mixed prediction
    std::vector<RegionVerdict> verdicts;
    std::vector<std::string> omitted;
    std::size_t below_share = 0; // functions and loops under min_share of time and flops
};

inline constexpr double k_profile_min_share = 0.01;
ProfilePlacement place_profile(const core::Profile& p, const core::Machine& m,
                               double min_share = k_profile_min_share);

} // namespace roofcast::model
