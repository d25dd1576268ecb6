// The roofline at scale as text (`roofcast scale ... --machine M`): per function its dot at the largest
// measured run and at the target (intensity, bound, bottleneck, predicted performance with the time's
// interval) and where its bottleneck changes on the way.
#pragma once

#include "analysis/scale/roofline_forecast.hpp"

#include <string>
#include <vector>

namespace roofcast::report {

std::string roofline_forecast_text(const model::scale::RooflineForecast& f,
                                   const std::vector<std::string>& names);

} // namespace roofcast::report
