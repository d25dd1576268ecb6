// The whole `roofcast threads` computation as plain data for the reporters: for each measured series
// (OpenMP, std::thread, or a program) fit the three execution-time models (time_model.hpp) and a
// two-parameter PMNF model from roofcast's scale engine (analysis/scale, in n and s) on the same points,
// predict at the requested (n, s), and pick the best thread count for every size.
// Optionally holds out every k-th point of a checkerboard over (size index + thread index) and fits on
// the rest, so the errors quoted are errors of prediction, not of fit.
// Contract: never times anything; every model of a series is fitted on the same points; a model that
// cannot be fitted (too few points for it) is left out with a note, unless it is the roofcast model,
// whose failure is the user's error (core::InputError).
#pragma once

#include "analysis/scale/fit.hpp"
#include "analysis/threads/data.hpp"
#include "analysis/threads/time_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::threads {

struct Target {
    double n = 0.0;
    int s = 1;
};

// Parses "n=1e6,s=4" (either order); throws core::InputError(field "predict").
Target parse_target(const std::string& text);

struct PredictionRow {
    double n = 0.0;
    int s = 1;
    double value = 0.0;
    std::optional<double> lo, hi; // 95 % interval
};

struct ModelReport {
    std::string name;                  // roofcast, doda, doda-memory, pmnf
    std::string formula;               // with the fitted coefficients for pmnf
    std::string citation;              // where the formula comes from
    std::optional<ThreadsModel> model; // absent for pmnf
    std::optional<scale::Fit> pmnf;
    double mean_error = 0.0; // mean |relative error| on the evaluation points (held-out ones, if any)
    double max_error = 0.0;
    // The largest error on the evaluation points that are not NOISY (their own repeat spread within the
    // series' noise floor): the model's error where the measurement itself is steady. Absent when every
    // evaluation point is NOISY.
    std::optional<double> max_error_steady;
    // Evaluation points whose own samples' range [min, max] holds the prediction, and the largest relative
    // distance of a prediction outside its point's range (max(0, v/max − 1, 1 − v/min)): on a host whose
    // repeats of one point spread by tens of per cent, the part of the error the measurement can resolve.
    std::size_t within_range = 0;
    double max_beyond_range = 0.0;
    // Evaluation points whose range holds the prediction or lies at most k_beyond_tolerance (10 %) from it:
    // the shared-host criterion the suite's models are judged by (model/accuracy.hpp).
    std::size_t within_tolerance = 0;
    std::size_t evaluated = 0;
    std::vector<PredictionRow> predictions;
    std::vector<std::string> notes;
    double evaluate(double n, double s) const;
};

struct BestThreads {
    double n = 0.0;
    int best_s = 1;
    double best_value = 0.0;
    int all_threads = 1;    // every hardware thread
    double all_value = 0.0; // predicted time with all of them
    double gain = 0.0;      // all_value / best_value - 1 (0 when the best is all threads)
    std::optional<int> measured_best_s;
    std::optional<double> measured_best;         // fastest measured median at this n
    std::optional<double> measured_at_predicted; // measured median at (n, best_s)
    // measured_at_predicted <= 1.05 · measured_best; nullopt when best_s was not measured
    std::optional<bool> within_5pct;
};

// Fewer points than this have no noise floor of their own (core::k_noisy_spread instead).
inline constexpr std::size_t k_noise_min_points = 8;

struct SeriesAnalysis {
    std::string api;
    // A point is NOISY when the interquartile spread of its samples exceeds this floor: the outlier fence
    // of the series' spreads, at least core::k_noisy_spread (core::outlier_floor).
    double noise_floor = 0.0;
    std::size_t noisy = 0;
    std::vector<ModelReport> models; // roofcast first
    std::vector<BestThreads> best;   // one per size (measured and predicted)
    std::size_t fitted = 0;          // points the models were fitted on
    std::size_t held_out = 0;
    std::vector<std::string> notes;
};

struct ThreadsAnalysis {
    ThreadsData data;
    int holdout = 0; // 0: fit on everything
    std::vector<Target> targets;
    std::vector<SeriesAnalysis> series;
};

// Best s for size n under `model`: the integer s in [1, max_s] of least predicted time.
BestThreads best_threads(const ModelReport& model, double n, int max_s, int all_threads);

ThreadsAnalysis analyse(ThreadsData data, const std::vector<Target>& targets, int holdout);

} // namespace roofcast::model::threads
