// A kernel's fraction of its bound round by round, against the host as the reference probe saw it beside
// the kernel (issue 22 §4, docs/noise.md). The bound comes from the run's calibration, whose figures are the
// best epochs of the host; in round r the probe beside the kernel delivered P_r of its best P_ref, so the
// bound the host allowed then was (P_ref / P_r) times longer, and the kernel's fraction in that round is
//     f_r = T_bound x (P_ref / P_r) / t_r,
// t_r its best epoch in the round. A drift of the host that probe and kernel share cancels in f_r; the median
// over rounds is the verdict that repeats. Pure functions.
//
// A bound of several terms (the mixed model's memory, cache and compute times) is not one resource: memory
// may slow while the L3 holds. Then each term is scaled by the probe of its own resource in the round, and
// the terms are combined again as the model combines them (model/overlap.hpp, mixed_time):
//     f_r = combine(t_level x (P_ref,level / P_r,level), t_C x (P_ref,C / P_r,C)) / t_r.
#pragma once

#include "model/overlap.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace roofcast::model {

// Per-round fractions: `times` are the kernel's epochs in the order run, `rounds` rounds of equal length;
// `probe` holds one probe unit per round (model::probe_units); `bound_seconds` the bound's time per call;
// `probe_ref` the probe's best level. Empty when the counts do not line up or a value is not positive.
std::vector<double> round_fractions(const std::vector<double>& times, std::size_t rounds,
                                    const std::vector<double>& probe, double bound_seconds, double probe_ref);

// One term of a bound with the probe of its resource: its time per call, the probe's unit per round and the
// probe's best level.
struct ProbedTerm {
    double seconds = 0;
    std::vector<double> probe;
    double probe_ref = 0;
};

// The per-round fractions of a bound of several terms: data terms combined with exponent p (and the caches'
// among themselves with `cache`'s pc), the compute term with q (mixed_time; both absent: the max of every
// term, the hierarchical roofline). Empty when the counts do not line up or a value is not positive (terms of
// zero time are left out).
std::vector<double> round_fractions_of_terms(const std::vector<double>& times, std::size_t rounds,
                                             const std::vector<ProbedTerm>& data,
                                             const std::optional<ProbedTerm>& compute,
                                             std::optional<double> p, std::optional<double> q,
                                             const CacheOverlap& cache = {});

} // namespace roofcast::model
