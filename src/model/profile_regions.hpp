// The functions and marker regions of a roofcast profile as kernels on the machine's roofline, each with
// the mixed model's verdict (§4 of `roofcast profile`, docs/profile.md "Regions on the roofline").
// A region is placed when its flops and bytes are both known: flops declared (`flops`) or counted
// (PAPI_DP_OPS + PAPI_SP_OPS); bytes declared (`bytes`) or simulated (cachegrind's LL_MISS_BYTES, the
// memory traffic its misses imply). Values are the run's totals (ranks reduced with each metric's
// aggregate, mean over repetitions); performance = flops / time where the region has a time (slowest
// rank). Contract: pure; regions that cannot be placed are listed in `omitted` with the reason.
#pragma once

#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/results.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

struct RegionVerdict {
    std::string name;
    double flops = 0;
    double bytes = 0;
    std::string flops_origin, bytes_origin;
    double intensity = 0;                  // flops / bytes
    std::optional<double> measured_gflops; // flops / time, when timed
    double bound_gflops = 0;               // mixed model's attainable performance
    std::string bound;                     // "memory" or "compute"
    std::string bottleneck;                // the limiting level or "compute"
    std::optional<double> fraction;        // measured / bound
};

struct ProfilePlacement {
    core::Results results; // one KernelResult per placed region (iterations 1), with the mixed prediction
    std::vector<RegionVerdict> verdicts;
    std::vector<std::string> omitted;
};

ProfilePlacement place_profile(const core::Profile& p, const core::Machine& m);

} // namespace roofcast::model
