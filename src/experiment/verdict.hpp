// A kernel's three-valued verdict: its fraction of its bound with an interval, and whether that interval
// lies above the threshold (at its bound), below it, or spans it (undetermined: the host decided). Pure;
// docs/noise.md, "Verdicts", derives the interval.
//
// The point is the best epoch's fraction f = T_bound / t_min, the figure the errors use (docs/noise.md:
// per-round fractions did not repeat better from run to run than the best epoch's). The interval holds
// every reading this run supports: from the median epoch's fraction (what the kernel got half of the time)
// to the best epoch's, widened by the rounds' probe-normalised fractions f_r (experiment/round_verdict.hpp)
// where there are two or more: [min f_r, max f_r] is the order-statistics interval of the rounds' median,
// which it holds with probability 1 - 2 x 0.5^n for n independent rounds (Conover, Practical Nonparametric
// Statistics, 3rd ed., 1999, §3.2: 75 % for 3 rounds, 94 % for 5). Order statistics rather than a
// bootstrap: with 3 to 8 values a bootstrap cannot say more than their range, and the range's coverage
// holds for any distribution.
#pragma once

#include "core/results.hpp"

#include <optional>
#include <string>

namespace roofcast::model {

// The interval and state of `k` (which must have its bound prediction and measurement); nullopt without
// them. `threshold` is the fraction "at its bound" starts at (k_diagnosis_fraction); `probe_moved` the
// max/min of the probe beside the kernel over its rounds, when known.
std::optional<core::Verdict> kernel_verdict(const core::KernelResult& k, double threshold,
                                            std::optional<double> probe_moved = std::nullopt,
                                            const std::string& probe = "");

// The three-valued verdict of a fraction of the bound known to lie in [lo, hi] (hi absent: unbounded above):
// "at-bound" where lo reaches `threshold`, "below" where hi stays under it, else "undetermined".
const char* verdict_state(double lo, std::optional<double> hi, double threshold);

// "bandwidth from memory moved 2.3x during its rounds; its fraction spans 71-93 % (rounds)": what an
// undetermined verdict says instead of causes.
std::string undetermined_text(const core::Verdict& v);

} // namespace roofcast::model
