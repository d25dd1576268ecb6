// Calibration of the mixed model's effective figures from the calibration loops of the suite (pure:
// timing data in, effective bandwidths and compute rate out; nothing here measures).
//
// Method (the effective-bandwidth calibration of the mixed memory+cache model, docs/bench.md):
// each level (MEM, L3, L2) runs a loop whose arrays reside in that level while extra multiply-adds
// lower the requested bytes per flop from 12 to 0.5. P_eff is the flop rate of the lowest
// bytes-per-flop point (the best such rate over the levels). A point is bandwidth-bound when its flop
// rate stays below k_compute_bound_fraction * P_eff AND its bandwidth is within k_plateau_fraction of
// the best bandwidth among its level's points that are not compute-bound; the others are compute-bound
// (or in the transition) and excluded.
// A level's effective bandwidth is the mean over its bandwidth-bound points.
//
// Overlap (overlap.hpp): the overlap loops stream a copy from memory while reading K rows of a window
// resident in cache C. With the effective figures above, each loop's terms t_level = bytes / B_eff (the
// calibrated levels) and t_C = flops / P_eff are known; the exponent p of t = (sum t_i^p)^(1/p) is the
// one that minimises the squared log error of the loops' best times, searched over 1 <= p <=
// k_overlap_p_max. A fit at the upper end means the terms overlap completely: no exponent (the max).
#pragma once

#include "core/machine.hpp"
#include "core/stats.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

inline constexpr double k_compute_bound_fraction = 0.8;
inline constexpr double k_plateau_fraction = 0.9;
inline constexpr double k_overlap_p_max = 64.0;

struct CalibrationPoint {
    std::string level;     // the level the arrays reside in: MEM, L3, L2
    std::string kernel;    // name, for the report
    double bytes_per_flop; // requested (application) bytes per flop, as declared
    double gbs = 0;        // median traffic of `level` (incl. write-allocate) per second, GB/s
    double gflops = 0;     // median flop rate, GFLOP/s
};

// One overlap loop: its best time per iteration and what it moves and computes.
struct OverlapPoint {
    std::string kernel;
    double seconds_per_iteration = 0;
    double flops = 0;
    std::map<std::string, double> bytes; // per level, as declared
    // A loop with extra arithmetic: it calibrates the compute/data exponent q, the others p.
    bool with_compute = false;
};

struct OverlapFit {
    std::optional<double> exponent; // p; nullopt: complete overlap (the max) fits best
    double rms_log_error = 0;       // of the fitted p over the points (natural log of time)
    double rms_log_error_max = 0;   // of the max (p -> infinity), for comparison
    std::vector<std::string> used;  // the loops fitted
    // 95 % interval of p from the profile of the fit (every p whose rms log error stays within the
    // likelihood-ratio bound of the best: n ln(rms(p)^2 / rms_best^2) <= 3.84, chi-square with one degree
    // of freedom; Seber & Wild, "Nonlinear Regression", 1989, Sec. 5.9). exponent_high nullopt: unbounded
    // (the max fits as well). Empty with fewer than two loops.
    std::optional<double> exponent_low;
    std::optional<double> exponent_high;
    bool interval_known = false;
};

// An interval wider than this ratio (high / low), or unbounded, is called poorly determined wherever p
// is reported.
inline constexpr double k_wide_interval_ratio = 1.5;
// A calibrated effective bandwidth whose 95 % half-width passes this fraction of it is "wide": its loops
// disagreed by more than a steady host's run-to-run spread.
inline constexpr double k_wide_calibration = 0.1;
inline bool wide_calibration(double gbs, double half_width_gbs) {
    return half_width_gbs > k_wide_calibration * gbs;
}

struct LevelCalibration {
    std::string level;
    std::optional<double> effective_gbs; // nullopt when no point was bandwidth-bound
    std::vector<std::string> used;       // kernels averaged
    std::vector<std::string> excluded;   // compute-bound or transition points
    // 95 % interval of the mean over the used points (Student's t, n - 1 degrees of freedom); nullopt with
    // one point.
    std::optional<double> effective_gbs_half_width = std::nullopt;
};

// "p = 1.45, 95 % interval 1.21-1.80" / "... 1.21-unbounded (poorly determined: between ... )"; "" without p.
// `name` names the exponent: "p" (data/data), "q" (compute/data) or "pc" (cache/cache).
std::string overlap_text(const OverlapFit& f, const std::string& name = "p");
// "41.2 GB/s ± 3.1 (95 %, 4 loops)"; a half-width above 10 % of the value adds "(wide)".
std::string effective_bandwidth_text(const LevelCalibration& lc);

struct Calibration {
    std::string precision = "double";
    int threads = 1;                        // the calibration loops ran with this many threads
    std::optional<double> effective_gflops; // P_eff
    std::string effective_gflops_kernel;
    std::vector<LevelCalibration> levels; // in the order the levels first appear in the points
    std::optional<OverlapFit> overlap;    // when overlap points were given and their terms are known
    // The compute/data exponent q of overlap.hpp's mixed_time, fitted on the loops with arithmetic given p
    // (exponent nullopt: the arithmetic hides completely, written as q = k_overlap_p_max).
    std::optional<OverlapFit> compute_overlap;
    // The cache/cache exponent pc of overlap.hpp's CacheOverlap, fitted with p on the loops without
    // arithmetic (its profile: p refitted at every pc); exponent nullopt where it does not fit significantly
    // better than one p (rms_log_error_max then holds the one-p rms).
    std::optional<OverlapFit> cache_overlap;
};

Calibration calibrate(const std::vector<CalibrationPoint>& points,
                      const std::vector<OverlapPoint>& overlap = {});

// The overlap fit alone, on the effective figures of `c` (levels without an effective bandwidth and
// points whose terms are all unknown are skipped), with c.cache_overlap's exponent where it has one; nullopt
// without usable points.
// Only the points without extra arithmetic take part.
std::optional<OverlapFit> fit_overlap(const std::vector<OverlapPoint>& points, const Calibration& c);
// The compute/data exponent q alone: t = ((sum t_level^p)^(q/p) + t_C^q)^(1/q) with p from c.overlap,
// fitted on the points with extra arithmetic as p is (least squared log error, profile interval); nullopt
// without such points or without P_eff.
std::optional<OverlapFit> fit_compute_overlap(const std::vector<OverlapPoint>& points, const Calibration& c);
// The cache/cache exponent pc alone (docs/models.md, "Cache/cache exponent"): nullopt without loops that have
// memory's term and two cache terms; exponent nullopt where pc does not lower the rms log error significantly
// (likelihood ratio against one p, chi-square with one degree of freedom).
std::optional<OverlapFit> fit_cache_overlap(const std::vector<OverlapPoint>& points, const Calibration& c);

// Writes the calibrated figures into the machine: Level::effective_bandwidth_gbs (and the roof
// bandwidth_gbs when the level had none, so a minimal machine file becomes usable), and
// Machine::effective_gflops[precision] -- a whole-machine figure, so only when the loops ran on every
// core of the machine (the models scale it to fewer threads); Machine::overlap_exponent from the overlap
// fit (removed when the fit found complete overlap) and Machine::compute_overlap_exponent from the
// compute/data fit (k_overlap_p_max when the arithmetic hides completely); records a note per figure. A level
// of the calibration that the machine lacks is an InputError naming `machine_file` and the level.
void apply_calibration(core::Machine& m, const Calibration& c, const std::string& machine_file);

} // namespace roofcast::model
