// The `roofcast inspect` output: the innermost loops of a function as static inspection found them
// (measure/disasm.hpp), as a table for the terminal and as JSON. Pure functions of the inspection.
// Flops per pass use the loop's own element type (the precision most of its FP instructions have).
#pragma once

#include "measure/disasm.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace roofcast::report {

// "double", "single", "mixed" (as many of each) or "none" (no FP arithmetic).
std::string loop_precision(const measure::LoopInspection& l);

// A header (binary, symbol, functions), one row per innermost loop, then the function of each row.
std::string format_inspection_table(const measure::CodeInspection& r);

// {"binary", "symbol", "unavailable" (null when none), "functions": [...], "functions_not_inspected",
// "loops": [{"function", "begin",
//  "end" (hex strings), "instructions", "fp_by_width": {"0": n, "128": n, ...}, "fma", "add", "mul", "div",
//  "sqrt", "other_fp", "loads", "stores", "gathers", "vector_bits", "precision",
//  "flops_per_pass": {"double": x, "single": y}}]}
nlohmann::json inspection_json(const measure::CodeInspection& r);

} // namespace roofcast::report
