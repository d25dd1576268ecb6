// The two findings `roofcast run`, `bench` and the report keep apart (issue 13 §4): model accuracy over
// the validation kernels, and the kernels below their bound with their diagnosis (experiment/diagnosis.hpp).
// Pure functions of the results.
#pragma once

#include "core/results.hpp"

#include <string>
#include <vector>

namespace roofcast::report {

// Kernels with a diagnosis whose verdict is "below" (experiment/verdict.hpp; results without verdicts: every
// kernel with a diagnosis), in results order.
std::vector<const core::KernelResult*> below_bound(const core::Results& r);
// Kernels whose verdict is "undetermined", in results order.
std::vector<const core::KernelResult*> undetermined(const core::Results& r);
// "30 at their bound, 5 below it, 4 undetermined (...)"; empty when no kernel has a verdict.
std::string verdict_counts(const core::Results& r);
// " [71-93 %]": the interval of the kernel's fraction of its bound; empty without a verdict.
std::string interval_text(const core::KernelResult& k);

// The scope line of the accuracy figures: how many kernels of each role were scored or left out.
std::string accuracy_scope(const core::Results& r);

// Text block: one line per kernel below its bound (fraction, role) and one indented line per cause.
std::string format_below_bound(const core::Results& r);

// "L3 bandwidth 73.1 GF/s, AVX2 without ILP 24.5 GF/s" — the ceilings above the measured point, lowest
// first (the ones the kernel sits directly under), at most `most`.
std::string ceilings_above_text(const core::KernelResult& k, std::size_t most = 3);

} // namespace roofcast::report

namespace roofcast::report {

// One kernel's measured verdict (`roofcast predict --measured`): its rate, fraction of the bound and the
// causes with the ceilings it sits under, or that it reaches its bound.
std::string format_measured_verdict(const core::KernelResult& k);

// The report's "Below their bound" section (polyglot XHTML, every text escaped): per kernel its fraction,
// each cause with its evidence, and the ceilings it sits under.
std::string below_bound_html(const core::Results& r);

// The headline's list of the kernels below their bound (polyglot XHTML, escaped): the `most` lowest
// fractions first, each with its causes and the first clause of the first cause's evidence; empty when
// every kernel reaches its bound.
std::string below_bound_headline_html(const core::Results& r, std::size_t most = 6);

} // namespace roofcast::report
