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
#pragma once

#include "core/machine.hpp"
#include "core/stats.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

inline constexpr double k_compute_bound_fraction = 0.8;
inline constexpr double k_plateau_fraction = 0.9;

struct CalibrationPoint {
    std::string level;     // the level the arrays reside in: MEM, L3, L2
    std::string kernel;    // name, for the report
    double bytes_per_flop; // requested (application) bytes per flop, as declared
    double gbs = 0;        // median traffic of `level` (incl. write-allocate) per second, GB/s
    double gflops = 0;     // median flop rate, GFLOP/s
};

struct LevelCalibration {
    std::string level;
    std::optional<double> effective_gbs; // nullopt when no point was bandwidth-bound
    std::vector<std::string> used;       // kernels averaged
    std::vector<std::string> excluded;   // compute-bound or transition points
};

struct Calibration {
    std::string precision = "double";
    int threads = 1;                        // the calibration loops ran with this many threads
    std::optional<double> effective_gflops; // P_eff
    std::string effective_gflops_kernel;
    std::vector<LevelCalibration> levels; // in the order the levels first appear in the points
};

Calibration calibrate(const std::vector<CalibrationPoint>& points);

// Writes the calibrated figures into the machine: Level::effective_bandwidth_gbs (and the roof
// bandwidth_gbs when the level had none, so a minimal machine file becomes usable), and
// Machine::effective_gflops[precision] -- a whole-machine figure, so only when the loops ran on every
// core of the machine (the models scale it to fewer threads); records a note per figure. A level of the
// calibration that the machine lacks is an InputError naming `machine_file` and the level.
void apply_calibration(core::Machine& m, const Calibration& c, const std::string& machine_file);

} // namespace roofcast::model
