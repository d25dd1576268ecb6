// How a prediction is judged against a measurement that spans an interval (docs/noise.md, "Accuracy on a
// shared host"). The bench (experiment/shared_host.hpp), the thread analysis and the stencil analysis judge
// their predictions by this one criterion, so it lives below all three.
#pragma once

namespace roofcast::model {

// "At most 10 % beyond the measured interval", the shared-host criterion of the accuracy goals.
inline constexpr double k_beyond_tolerance = 0.10;

} // namespace roofcast::model
