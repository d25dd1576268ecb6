// What roofcast-stencil measured, read from the JSON document it writes (docs/stencil.md), and the
// comparison of the model with it. Contract: stencil_run_from_json() accepts exactly the runner's format
// and throws core::InputError naming the file and field otherwise; compare() pairs each measured k with its
// prediction and says whether the predicted best k is the measured best or within 5 % of its time. A k's
// measured time is its fastest repetition: on a shared host interference only adds time, and the model
// predicts the undisturbed run (the verdicts of `bench` use the best epoch likewise, docs/noise.md).
#pragma once

#include "analysis/stencil/model.hpp"
#include "core/stats.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::stencil {

inline const std::vector<std::string> k_phase_names{"inner", "pack", "mpi", "unpack", "boundary"};

struct MeasuredK {
    int k = 1;
    core::Summary seconds_per_step;
    std::map<std::string, core::Summary> phase_seconds_per_block; // k_phase_names
    std::optional<nlohmann::json> check;                          // the runner's check object
};

// The runner's exchange measured alone at halo widths r, 2r, ... up to the deepest k of the run (those
// that fit the blocks) and around the inner sweep of k = 1 (halo_exchange in its JSON), and what the model
// takes from it: the medians at every width (points), the straight line through the first two for the
// text, t = fixed + bytes / bytes_per_second (no per-byte term with one width or when the wider one was not
// slower), and
// overlap = (exchange + sweep - both) / min(exchange, sweep) at width r, at most 1 (all of the shorter
// hides); below 0 when the two together take longer than apart (the cores that sweep also run the transport).
// Current runners also time the exchange around m inner sweeps of k = 1 at every width, m the
// fewest that last as long as the exchange alone (overlapped_per_width, overlapped_sweeps); what it adds
// to those sweeps at each width is the model's
// CostInputs::exchange_added_points (empty for files of older runners, which the overlap fraction serves).
struct HaloCosts {
    std::vector<double> bytes;          // per width, ascending
    std::vector<core::Summary> seconds; // per width
    core::Summary inner_s, overlapped_s;
    std::vector<core::Summary> overlapped_per_width; // empty, or one per width
    std::vector<int> overlapped_sweeps;              // inner sweeps of k = 1 around each (1 when absent)
    double fixed_s = 0;
    double bytes_per_second = 0; // 0: no per-byte cost measured
    double overlap = 1;
    // (bytes, median seconds) per width: the model's CostInputs::exchange_points.
    std::vector<std::pair<double, double>> points() const;
    // (bytes, max(0, around - sweeps x inner sweep alone)) per width, medians; empty without
    // overlapped_per_width.
    std::vector<std::pair<double, double>> added_points() const;
};
HaloCosts halo_costs(std::vector<double> bytes, std::vector<core::Summary> seconds,
                     const core::Summary& inner, const core::Summary& overlapped,
                     std::vector<core::Summary> overlapped_per_width = {},
                     std::vector<int> overlapped_sweeps = {});

struct MeasuredStencil {
    std::string kernel;
    int ranks = 1;
    int threads = 1;
    int steps = 1;
    std::string library;
    core::Summary sweep_overhead_s;
    // One exchange of one-value messages with every neighbour (the runner's exchange_overhead_seconds),
    // and its mean: the per-exchange latency the model uses. Absent in files of older runners.
    std::optional<core::Summary> exchange_overhead_s;
    std::optional<double> exchange_latency_s;
    // The time of one point update of a sweep over the rank's block, every rank at once (the runner's
    // cell_seconds; its median is the model's t_cell). Absent in files of older runners.
    std::optional<core::Summary> cell_s;
    std::optional<HaloCosts> halo; // absent without neighbours and in files of older runners
    std::vector<MeasuredK> runs;
};

MeasuredStencil stencil_run_from_json(const nlohmann::json& j, const std::string& label);

// Within this fraction of the measured best time, a predicted best k counts as a hit (the 5 %).
inline constexpr double k_hit_tolerance = 0.05;

struct KComparison {
    struct Row {
        int k = 1;
        std::optional<KPrediction> predicted;
        MeasuredK measured;
    };
    std::vector<Row> rows;
    int best_measured_k = 1;
    std::optional<int> best_predicted_k;
    // Measured time of the predicted best over the measured best (fastest repetitions), minus one.
    std::optional<double> predicted_best_excess;
    std::optional<bool> hit; // predicted best == measured best, or within k_hit_tolerance of its time
    // The shared-host criterion (model/accuracy.hpp): the predicted best's fastest repetition inside the
    // measured best's repetitions [min, max] or at most k_beyond_tolerance (10 %) beyond their slowest, so
    // that the run's own spread cannot tell the two apart by more than the tolerance.
    std::optional<bool> hit_within_interval;
};

// Predictions may be empty (no machine file): then only the measured side is filled.
KComparison compare(const MeasuredStencil& m, const std::vector<KPrediction>& predictions);

} // namespace roofcast::model::stencil
