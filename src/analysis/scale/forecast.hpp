// The whole `roofcast scale` computation as plain data for the reporters: fit every series of a
// data set, predict at each target point, and (optionally) compare with a measured profile at the
// target. Contract: one entry in `fits` and `predictions` per data-set series, same order; the
// evaluation matches target series by (function, metric) and lists what it could not match.
#pragma once

#include "analysis/scale/dataset.hpp"
#include "analysis/scale/fit.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::scale {

struct Comparison {
    std::size_t series = 0; // index into ScaleResult::data.series
    Prediction predicted;
    double measured = 0.0;       // mean of the target run's repetitions
    double relative_error = 0.0; // |predicted - measured| / |measured|
    bool inside = false;         // measured value inside the prediction interval
};

struct Evaluation {
    std::string file;
    std::vector<Comparison> rows;
    double mean_relative_error = 0.0; // over rows with a finite error
    // The same over the program's own functions and over shared libraries' (Series::kind "library"),
    // which follow the launch (start-up, the MPI library's transports) more than the problem; NaN where
    // there is no such row.
    double mean_relative_error_own = 0.0;
    double mean_relative_error_library = 0.0;
    std::size_t library_rows = 0;
    std::size_t inside = 0;
    std::vector<std::string> unmatched;       // target series without a model ("function metric")
    std::optional<double> small_core_seconds; // sum over the fitted runs (roofcast profiles only)
    std::optional<double> target_core_seconds;
    std::optional<double> cost_ratio; // small / target
    // The same from the processor time each run consumed (every run's profile records run.cpu_seconds).
    std::optional<double> small_cpu_seconds;
    std::optional<double> target_cpu_seconds;
    std::optional<double> cpu_cost_ratio;
};

struct ScaleResult {
    Dataset data;
    Selection selection = Selection::forecast;
    std::vector<Fit> fits;
    std::vector<Coord> targets;
    std::vector<std::vector<Prediction>> predictions; // [series][target]
    std::optional<Evaluation> evaluation;
    double fit_seconds = 0.0; // wall time of fit_all (context for the user, printed on stderr)
    std::optional<Grid> grid; // --grid: the process grid whose halo terms join the candidates
};

// With a grid, the data set must have one parameter, the rank count (InputError field "--grid").
ScaleResult forecast(Dataset data, Selection sel, std::vector<Coord> targets, std::optional<Grid> grid = {});

// Compares with a measured profile (any readable format) at the target point(s).
Evaluation evaluate(const ScaleResult& r, const Dataset& measured, const std::string& file);

} // namespace roofcast::model::scale
