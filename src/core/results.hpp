// The results file (results.json, format_version 1, kind "roofcast-results"): what `roofcast bench` and
// `roofcast run` measured and predicted, per kernel, plus the accuracy summary per model. Reporters
// (tables, SVG, HTML) receive these plain structs; the JSON codec is the only place the layout lives.
// See docs/formats.md.
#pragma once

#include "core/machine.hpp"
#include "core/stats.hpp"

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::core {

inline constexpr int k_results_format_version = 1;

// One level's share of a model's derivation (a row of the prediction table).
struct LevelTerm {
    std::string level; // L1, L2, L3, MEM
    double bytes_per_iteration = 0;
    std::optional<double> intensity; // flops / byte; nullopt when bytes are zero
    std::optional<double> bandwidth_gbs;
    std::string bandwidth_source; // "measured triad (2 threads)", "entered", "calibrated", "curve at 12 MiB"
    std::optional<double> seconds_per_iteration;
};

struct Prediction {
    std::string model; // roofline | hierarchical | cache-aware | mixed
    double seconds_per_iteration = 0;
    double gflops = 0;
    double peak_fraction = 0; // gflops / peak
    std::string bottleneck;   // a level name or "compute"
    bool valid = true;        // inside the model's validity range
    std::vector<std::string> notes;
    std::vector<LevelTerm> terms;
    std::optional<double> error_pct; // (predicted - measured) / measured * 100, when measured
};

struct KernelResult {
    std::string name;
    std::string suite; // stream | calibrate | mixed | apps | user
    std::string precision = "double";
    int threads = 1;
    double flops_per_iteration = 0;
    double iterations = 0;                             // per call of the kernel
    std::map<std::string, double> bytes_per_iteration; // level -> bytes (incl. write-allocate)
    std::optional<Summary> measured_gflops;
    std::optional<Summary> measured_gbs;     // MEM-side (or closest) bytes per second
    std::optional<Summary> measured_seconds; // per call
    std::vector<Prediction> predictions;
    std::vector<std::string> notes;
};

struct AccuracySummary {
    std::string model;
    std::size_t n = 0; // kernels inside validity with a measurement
    std::optional<double> median_abs_error_pct;
    std::optional<double> max_abs_error_pct;
};

struct Results {
    int format_version = k_results_format_version;
    std::string roofcast_version;
    std::string created;
    std::optional<Machine> machine;
    std::vector<KernelResult> kernels;
    std::vector<AccuracySummary> accuracy;
    std::vector<std::string> notes;
};

nlohmann::json results_to_json(const Results& r);
// One prediction as it appears in results.json (also what `roofcast predict --json` prints).
nlohmann::json prediction_to_json(const Prediction& p);
// Throws InputError(label, field, ...) on anything that is not a roofcast results document.
Results results_from_json(const nlohmann::json& j, const std::string& label);
Results load_results(const std::string& path);
void save_results(const std::string& path, const Results& r); // atomic, pretty-printed

// Median and max |error| over predictions of `model` that are valid and have an error.
AccuracySummary accuracy_of(const std::vector<KernelResult>& kernels, const std::string& model);

} // namespace roofcast::core
