// Scaling data sets for `roofcast scale`: measurements of per-function (call-path) metrics at
// several parameter points (e.g. cores = 8..128, or cores x size), with repetitions. Readers for the
// roofcast profile JSON (docs/formats-profile.md), Extra-P's text and JSON formats and CSV all
// produce one Dataset. Contract: every Series holds only finite values at distinct points, sorted by
// coordinates; anything dropped or merged on the way (NaN, duplicate points, missing points) is
// recorded in Series::notes or Dataset::warnings instead of aborting, so that the remaining
// functions are still modelled. Malformed files throw core::InputError(file, field, expected).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::scale {

inline constexpr std::size_t k_max_parameters = 2;

// A parameter point; only the first Dataset::parameters.size() coordinates are meaningful.
using Coord = std::array<double, k_max_parameters>;

struct Point {
    Coord x{};
    std::vector<double> values; // repetitions (each already aggregated over ranks)
    double mean() const;        // the value models are fitted to (Extra-P fits the mean too)
};

struct Series {
    std::string function; // call path, e.g. "main->solve->dot"
    std::string metric;   // e.g. "time", "PAPI_L1_DCM"
    std::vector<Point> points;
    std::vector<std::string> notes; // what was dropped or merged, one sentence each
    // A roofcast profile's function kind (docs/formats-profile.md): "library" for a shared library's
    // symbol, which follows the launch more than the problem and is reported apart; empty elsewhere.
    std::string kind = {};
};

// Cost of one profiled run, used by --evaluate: wall time x cores (core-seconds, what an allocation of one
// core per rank costs) and, where the profile recorded it, the processor time the run consumed.
struct RunCost {
    Coord x{};
    double wall_seconds = 0.0;
    double cores = 0.0;
    std::optional<double> cpu_seconds;
    double core_seconds() const { return wall_seconds * cores; }
};

struct Dataset {
    std::vector<std::string> parameters; // 1 or 2 names, e.g. {"cores"} or {"cores", "size"}
    std::vector<Series> series;
    std::vector<RunCost> costs;        // only from roofcast profiles; may be empty
    std::vector<std::string> warnings; // data-set level remarks (e.g. functions missing at points)
    std::size_t point_count() const;   // distinct points over all series
};

// The readers of each format; which one a file is for is the format registry's to say
// (formats/format.hpp, read_dataset).
Dataset read_extrap_text(const std::string& text, const std::string& file);
Dataset read_extrap_json(const std::string& text, const std::string& file);
Dataset read_csv(const std::string& text, const std::string& file);
// One roofcast profile = one run at one point; the ranges of its numbers are core::load_profile's.
Dataset read_roofcast_profile(const std::string& text, const std::string& file,
                              std::vector<std::string>* unread_keys = nullptr);

// Merges `more` into `into` (same parameters, else InputError naming `file`); then normalize(). Several
// files (e.g. one roofcast profile per run) are read one by one (formats::read_dataset) and merged.
void merge(Dataset& into, Dataset more, const std::string& file);

// Sorts points, merges duplicate points as repetitions, drops non-finite values and empty points,
// and notes functions that lack some of the data set's points. Idempotent.
void normalize(Dataset& d);

// Parses "256" (one parameter) or "cores=256,size=1e6" into a coordinate for `parameters`.
// Throws InputError(file="", field="predict") naming the expected form.
Coord parse_point(const std::string& text, const std::vector<std::string>& parameters);
std::string format_point(const Coord& x, const std::vector<std::string>& parameters);

} // namespace roofcast::model::scale
