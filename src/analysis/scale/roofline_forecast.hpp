// Where each function will sit on the roofline at scale (`roofcast scale PROFILES... --predict X --machine
// M`, docs/profile.md "The roofline at scale"): the fitted models of a function's flops, bytes per level and
// time, evaluated at the target, placed with the mixed model exactly as a measured profile is
// (profile_regions.hpp); and the first point between the largest measured run and the target at which its
// bottleneck changes, found on a geometric grid of the first parameter. Pure.
#pragma once

#include "analysis/scale/forecast.hpp"
#include "core/machine.hpp"
#include "model/profile_regions.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::scale {

// Points between the largest measured run and the target at which the bottleneck is checked.
inline constexpr int k_roofline_steps = 32;

struct FunctionRoofline {
    std::string function;
    RegionVerdict measured;  // at the largest measured point, from the models (the measured dot's fit)
    RegionVerdict predicted; // at the target
    std::optional<double> time_lo, time_hi; // 95 % interval of the predicted time, when fitted
    std::optional<Coord> change_at;         // first grid point whose bottleneck differs from the measured one
    std::string change;                     // one sentence, empty when the bottleneck holds
};

struct RooflineForecast {
    Coord target{};
    Coord largest_measured{};
    std::vector<FunctionRoofline> functions;
    std::vector<std::string> omitted; // functions without fitted flops and bytes
    // Functions and loops holding under min_share of the flops and of the time (of the profile's
    // functions) both at the largest measured point and at the target: left out, counted.
    std::size_t below_share = 0;
};

// The functions and loops holding at least min_share of the flops or the time at either point, most flops at
// the target first.
RooflineForecast roofline_forecast(const ScaleResult& r, const core::Machine& m, const Coord& target,
                                   double min_share = k_profile_min_share);

} // namespace roofcast::model::scale
