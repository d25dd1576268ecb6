// Internals shared by the fit of the thread-count models (time_model.cpp) and the rules that fit the
// model's regimes to the points it is given (regimes.cpp). Not part of the model's interface.
#pragma once

#include "analysis/threads/time_model.hpp"

#include <Eigen/Dense>
#include <limits>
#include <vector>

namespace roofcast::model::threads::detail {

inline constexpr double k_inf = std::numeric_limits<double>::infinity();
// Relative threshold of the column-pivoted QR's rank test on the unit-norm columns of the design.
inline constexpr double k_rank_threshold = 1e-10;

double hinge(double x, double b); // max(0, x − b)
// Whether (n, s) lies in the memory regime (beyond the last cache's break at s threads).
bool in_memory(const ThreadsModel& m, double n, double s);
// The design row of one point: θ columns, T_seq·share(s) columns (cache regimes), the contention term and
// the memory regime's columns; the model's value is this row times its coefficients.
std::vector<double> design_row(const ThreadsModel& m, double n, double s);
// The rows of every point weighted by 1/T, each column scaled to unit norm (its norm in `norms`).
Eigen::MatrixXd scaled_design(const ThreadsModel& m, const std::vector<Measurement>& pts,
                              Eigen::VectorXd& norms);
// The rank of that design: the number of the model's parameters the points determine.
std::size_t design_rank(const ThreadsModel& m, const std::vector<Measurement>& pts);

// Merges regimes that have fewer distinct sizes (thread counts) than the parameters they add, with a note
// each. Returns false (without notes or changes kept) when `record` is false and a merge would be needed.
bool settle(ThreadsModel& m, const std::vector<Measurement>& pts, bool record);

// After settle(): while the points leave some parameters undetermined (the design's rank below its
// columns, which counting sizes per regime does not see: e.g. thread counts whose shares of the work are
// a shape θ(s) can take), merges the least needed part into its neighbour, one at a time, each with a
// note naming what was merged and why. Throws core::InputError where even the least model is undetermined.
void determine(ThreadsModel& m, const std::vector<Measurement>& pts);

} // namespace roofcast::model::threads::detail
