// The summary table `roofcast run` prints: one row per kernel with its measured rate (median and
// spread), the prediction of its most detailed valid model, the error, and the bottleneck. "Most
// detailed" follows a fixed order (mixed, hierarchical, cache-aware, roofline) decided before any
// measurement is seen, so the table never picks a model because it happened to be closest.
#pragma once

#include "core/results.hpp"

#include <string>

namespace roofcast::report {

// The prediction of `k` shown in the summary: the first valid one in model order, else the first one.
const core::Prediction* summary_prediction(const core::KernelResult& k);

std::string format_run_summary(const core::Results& r);

} // namespace roofcast::report
