// A kernel's fraction of its bound round by round, against the host as the reference probe saw it beside
// the kernel (issue 22 §4, docs/noise.md). The bound comes from the run's calibration, whose figures are the
// best epochs of the host; in round r the probe beside the kernel delivered P_r of its best P_ref, so the
// bound the host allowed then was (P_ref / P_r) times longer, and the kernel's fraction in that round is
//     f_r = T_bound x (P_ref / P_r) / t_r,
// t_r its best epoch in the round. A drift of the host that probe and kernel share cancels in f_r; the median
// over rounds is the verdict that repeats. Pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace roofcast::model {

// Per-round fractions: `times` are the kernel's epochs in the order run, `rounds` rounds of equal length;
// `probe` holds one probe unit per round (model::probe_units); `bound_seconds` the bound's time per call;
// `probe_ref` the probe's best level. Empty when the counts do not line up or a value is not positive.
std::vector<double> round_fractions(const std::vector<double>& times, std::size_t rounds,
                                    const std::vector<double>& probe, double bound_seconds, double probe_ref);

} // namespace roofcast::model
