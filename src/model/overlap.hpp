// How the timed terms of the mixed model combine. The roofline takes the largest term, assuming every
// transfer and the arithmetic overlap completely (Williams, Waterman & Patterson, CACM 52(4), 2009);
// the ECM model adds the data-transfer times, which on Intel cores do not overlap (Stengel, Treibig,
// Hager & Wellein, ICS 2015, Sect. 2, T_data = T_L1L2 + T_L2L3 + T_L3Mem); which transfers overlap is a
// property of the machine to be measured (Hofmann, Alappat, Hager, Fey & Wellein, "Bridging the
// architecture gap", Supercomputing Frontiers and Innovations 7(2), 2020, Sect. 3). roofcast measures it
// as one exponent p of the p-norm of the terms, t = (sum_i t_i^p)^(1/p): p = 1 is the sum, p -> infinity
// the maximum, and p is fitted on dedicated calibration loops (calibration.hpp), never on the kernels
// the model is scored on.
#pragma once

#include "core/results.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace roofcast::model {

// (sum t_i^p)^(1/p) over the positive terms; the maximum when p is absent. Scaled by the largest term
// so large p cannot overflow.
inline double overlap_norm(const std::vector<double>& terms, std::optional<double> p) {
    double top = 0;
    for (const double t : terms)
        top = std::max(top, t);
    if (!p || top <= 0)
        return top;
    double sum = 0;
    for (const double t : terms)
        if (t > 0)
            sum += std::pow(t / top, *p);
    return top * std::pow(sum, 1.0 / *p);
}

// How the cache levels' terms overlap among themselves, where the machine file has a cache/cache exponent
// (calibration.hpp): with `exponent` and the last data term memory's, the data terms combine as
// (t_MEM^p + (sum_cache t_level^pc)^(p/pc))^(1/p). Two exponents because the overlap loops' own exponents
// can fall as their L3 share grows, as on AMD's victim L3 (docs/models.md, "Cache/cache exponent"): memory's
// transfers then hide behind the caches' much better than the caches' hide behind each other
// (Stengel et al., ICS 2015, Sect. 2: on Intel the in-cache transfers add; Hofmann et al. 2020, Sect. 3:
// which transfers overlap is measured per machine).
struct CacheOverlap {
    std::optional<double> exponent; // pc; absent: every data term in the one p-norm
    bool last_is_memory = false;    // the last of the data terms is memory's
    // Whether `data` has what pc combines: memory's term last and at least two cache terms before it.
    bool splits(const std::vector<double>& data) const { return last_is_memory && data.size() >= 3; }
    // Whether pc combines the caches' terms of `data`: an exponent, and terms it splits.
    bool applies(const std::vector<double>& data) const { return exponent && splits(data); }
};

// The terms that enter p's norm: the data terms as they are, or where pc applies the caches' pc-norm as one
// term beside memory's.
inline std::vector<double> p_norm_terms(const std::vector<double>& data, const CacheOverlap& c) {
    if (!c.applies(data))
        return data;
    const std::vector<double> caches(data.begin(), data.end() - 1);
    return {overlap_norm(caches, c.exponent), data.back()};
}

// The data terms' time: their p-norm, or with a cache/cache exponent memory's term against the caches'
// pc-norm.
inline double data_time(const std::vector<double>& data, std::optional<double> p,
                        const CacheOverlap& c = {}) {
    return overlap_norm(p_norm_terms(data, c), p);
}

// The mixed model's time from its data terms (every timed level, closest to the core first) and its compute
// term t_C. Without a compute/data exponent q every term joins one p-norm (p as above; the caches' pc-norm
// counts as one term there). With q (calibrated on overlap loops with arithmetic, calibration.hpp) the data
// terms combine first and the arithmetic then overlaps with their result: t = (t_data^q + t_C^q)^(1/q).
// Arithmetic can hide completely behind a few streams and only partly behind many (docs/models.md,
// "Compute/data exponent q", bench/overlap-compute.sh): the exponent of the data/data overlap, fitted
// on loops without arithmetic, says nothing about how the arithmetic overlaps, which is a property of the
// core to be measured on its own (Hofmann et al. 2020, Sect. 3: which parts of a loop's time overlap is
// machine-specific).
inline double mixed_time(const std::vector<double>& data, double t_compute, std::optional<double> p,
                         std::optional<double> q, const CacheOverlap& c = {}) {
    if (!q) {
        std::vector<double> all = p_norm_terms(data, c);
        all.push_back(t_compute);
        return overlap_norm(all, p);
    }
    return overlap_norm({data_time(data, p, c), t_compute}, q);
}

// A prediction's timed data terms, closest to the core first, as the mixed model combines them (every level
// term with a time), and whether the last of them is memory's.
struct DataTerms {
    std::vector<double> seconds;
    bool last_is_memory = false;
};
inline DataTerms data_terms(const core::Prediction& p) {
    DataTerms d;
    for (const auto& term : p.terms)
        if (term.seconds_per_iteration) {
            d.seconds.push_back(*term.seconds_per_iteration);
            d.last_is_memory = term.level == "MEM";
        }
    return d;
}

// The data/data exponent at which mixed_time(data, t_compute, x, q) equals `measured`: how far a kernel's
// own terms overlapped, on the scale the calibration measures p (1: added, large: the max). mixed_time
// falls as x grows, so a bisection on ln x between 1 and x_max; nullopt when `measured` lies outside
// (mixed_time at x_max, mixed_time at 1]: faster than the near-max or slower than the terms added.
inline std::optional<double> overlap_exponent_for(const std::vector<double>& data, double t_compute,
                                                  std::optional<double> q, double measured, double x_max,
                                                  const CacheOverlap& c = {}) {
    const auto at = [&](double x) { return mixed_time(data, t_compute, x, q, c); };
    if (!(measured > at(x_max)) || measured > at(1.0))
        return std::nullopt;
    double lo = 0.0, hi = std::log(x_max); // at(exp(lo)) >= measured > at(exp(hi))
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (at(std::exp(mid)) >= measured ? lo : hi) = mid;
    }
    return std::exp(0.5 * (lo + hi));
}

} // namespace roofcast::model
