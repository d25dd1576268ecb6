// Text and JSON forms of `roofcast predict`: pure functions from a model::Analysis to text.
// Contract: no I/O and no computation of model figures here; every number printed is one the models
// produced (the explanation only restates the formulas with those numbers filled in).
#pragma once

#include "model/predict.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace roofcast::report {

// One table per model (level, bytes, intensity, bandwidth and its source, time per iteration; the
// compute roof; the result line) and, at the end, one verdict line.
std::string format_prediction_tables(const model::Analysis& a);

// The one-line verdict: "this loop can reach 23.6 % of peak; it is L2-bandwidth bound". Taken from the
// mixed model when present, else the hierarchical one, else the first model.
std::string verdict(const model::Analysis& a);

// The derivation in words, with each model's formula and the numbers put into it.
std::string format_explanation(const model::Analysis& a);

// {"kernel", "machine", "threads", "precision", "flops_per_iteration", "iterations",
//  "bytes_per_iteration", "traffic_notes", "predictions": [results.json prediction + model details]}.
nlohmann::json prediction_json(const model::Analysis& a);

} // namespace roofcast::report
