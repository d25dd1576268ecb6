// Reporters of `roofcast scale`: pure functions from a ScaleResult to text, JSON, CSV and one SVG
// chart per function and metric. Contract: every fitted series appears once (the CSV once per
// target point); every prediction carries its 95 % interval (or "n/a" / null when none can be
// estimated) and the far-extrapolation flag; measured points carry their spread over repetitions,
// and noisy ones (spread > 5 %) are flagged.
#pragma once

#include "analysis/scale/forecast.hpp"
#include "report/chunks.hpp"

#include <string>

namespace roofcast::report {

std::string scale_text(const model::scale::ScaleResult& r);
std::string scale_json(const model::scale::ScaleResult& r);
std::string scale_csv(const model::scale::ScaleResult& r);
// One line: the process grid's shape at every measured and target rank count (r.grid must be set).
std::string process_grid_text(const model::scale::ScaleResult& r);
// The rank counts of the measured points and the targets, ascending (a grid's data set has one parameter),
// and one of them as the text and JSON documents print it.
std::vector<double> grid_rank_counts(const model::scale::ScaleResult& r);
std::string rank_count_text(double ranks);
// The same documents written piece by piece to `sink`, in order (report/chunks.hpp), the pieces formatted
// on every OpenMP thread: a million series never stand in memory as one text. The JSON writer checks every
// string before its first piece, so that invalid UTF-8 (nlohmann's error) leaves no half document.
void write_scale_json(const model::scale::ScaleResult& r, const TextSink& sink);
void write_scale_csv(const model::scale::ScaleResult& r, const TextSink& sink);

// SVG of one series: measured means with min–max bars, the model curve, predictions with their
// interval. Two-parameter series are drawn against the first parameter, with the model at the
// second parameter of the first target (or of the largest measured point).
std::string scale_svg(const model::scale::ScaleResult& r, std::size_t series);
// A file name for the series' chart: "<index>-<function>-<metric>.svg" with unsafe characters
// replaced by '_'.
std::string scale_svg_name(const model::scale::ScaleResult& r, std::size_t series);

} // namespace roofcast::report
