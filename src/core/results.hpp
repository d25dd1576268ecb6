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
    // The compute term t_C = flops / P (the model's compute roof), beside the level terms; absent in older
    // files.
    std::optional<double> compute_seconds_per_iteration;
    std::optional<double> error_pct; // (predicted - measured) / measured * 100, when measured
};

// A likely cause of a kernel falling short of its prediction (issue 13, docs/diagnosis.md), named with
// the evidence roofcast measured or derived itself: `figure` is the decisive number and `limit` what it
// was compared with (both in the unit `evidence` states).
struct Diagnosis {
    std::string cause; // memory-drift | vector-width | fp-mix | stream-capacity | cache-conflict | tlb-reach
                       // | in-core | load-imbalance | overlap | memory-rate | unexplained
    std::string evidence; // one sentence with the figures
    std::optional<double> figure;
    std::optional<double> limit;
};

// A ceiling of the kernel's roofline at its intensity, in the order of Williams, Waterman & Patterson,
// "Roofline", CACM 52(4), 2009, §4: the compute ceilings from the peak down (FMA, then without FMA, then
// narrower SIMD, then scalar, then without ILP), then each level's bandwidth ceiling.
struct Ceiling {
    std::string name;   // "AVX2 FMA (2 threads)", "L3 bandwidth"
    std::string kind;   // compute | bandwidth
    double gflops = 0;  // attainable at the kernel's intensity under this ceiling alone
    bool above = false; // above the kernel's measured performance (the kernel sits under it)
};

// A row's noise against the run's reference probe (docs/noise.md): the interquartile spread of its samples
// and the host's noise floor for the probe of its bound, both measured in the same run.
struct RowNoise {
    std::string probe; // memory | cache | core | compute
    double spread = 0; // core::interquartile_spread of the row's rates, unit by unit (experiment/noise.hpp)
    double floor = 0;  // the probe's floor in this run
    bool flagged() const { return spread > floor; }
};

// One reference probe: a fixed calibration loop run before every kernel of every round (probe, kernel,
// probe, ...), so its epochs show what the host did while the suite ran.
struct NoiseProbe {
    std::string kind;        // memory | cache | core | compute
    std::string kernel;      // the loop used as the probe
    std::vector<double> gbs; // every probe epoch in the order run: GB/s, GFLOP/s for compute
    double floor = 0;        // the interquartile spread a row of this kind must exceed to be flagged
};

struct HostNoise {
    std::vector<NoiseProbe> probes;
    std::size_t rows = 0;    // rows compared with a floor
    std::size_t flagged = 0; // rows above their floor
};

// Rounds a bench kernel was measured in: the run's rounds and the extra ones it needed to settle
// (experiment/round_settle.hpp); `settled` when its two best rounds agreed within the tolerance.
struct RoundSettle {
    int rounds = 0;
    bool settled = false;
};

// What a kernel's fraction of its bound supports once the host's noise is counted (docs/noise.md,
// "Verdicts"): `at-bound` when the interval's lower end reaches the threshold, `below` when its upper end
// stays under it, `undetermined` when the interval spans it (the host, not the code, decided the figure).
struct Verdict {
    std::string state;     // at-bound | below | undetermined
    double fraction = 0;   // the point: the best epoch's fraction of the bound
    double lo = 0, hi = 0; // the interval of the fraction (median epoch to best, widened by the rounds)
    double confidence = 0; // the rounds' part's coverage of their median (order statistics); 0: no rounds
    std::string basis;     // epochs and rounds | epochs | one epoch
    double threshold = 0;  // the fraction "at its bound" starts at
    std::optional<double> probe_moved; // max/min of the probe beside the kernel over its rounds
    std::string probe;                 // that probe's kind
};

struct KernelResult {
    std::string name;
    std::string suite; // stream | calibrate | mixed | apps | user
    // validation: counts toward model accuracy; untuned: a kernel kept to show why untuned code falls short
    // of its bound (never in model accuracy); calibration: feeds the effective figures (never scored).
    std::string role = "validation";
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
    // Per-thread busy time of the slowest thread over the mean (1 = balanced), when measured.
    std::optional<double> thread_imbalance;
    // Seconds per iteration of the same body on an instance whose arrays fit half the team's L2s (bench, for
    // a kernel below its bound whose catalogue row has one): its in-core time with the L1 and L2 transfers.
    std::optional<double> in_cache_seconds;
    // Measured over the summary prediction (best epoch), when both exist.
    std::optional<double> bound_fraction;
    std::vector<Ceiling> ceilings;
    std::vector<Diagnosis> diagnosis; // causes, most likely first; empty at or above k_diagnosis_fraction
    std::optional<RowNoise> noise;    // when the run had reference probes; sets the summaries' `noisy`
    // Fraction of the bound round by round against the probe beside the kernel
    // (experiment/round_verdict.hpp), with two or more rounds and probes; bound_fraction_median_round is
    // their median.
    std::vector<double> bound_fraction_rounds;
    std::optional<double> bound_fraction_median_round;
    std::optional<RoundSettle> settle; // written by bench and run when settling ran
    std::optional<Verdict> verdict;    // bench's three-valued verdict (experiment/verdict.hpp)
};

struct AccuracySummary {
    std::string model;
    std::size_t n = 0; // kernels inside validity with a measurement
    std::optional<double> median_abs_error_pct;
    std::optional<double> max_abs_error_pct;
    // The same error from each kernel's per-round verdict (issue 22 §4): its fraction of the bound against
    // the probes beside it, median over the run's rounds (KernelResult::bound_fraction_median_round), over
    // the kernels whose bound is this model's prediction; |error| = |1 / fraction - 1|. Absent without
    // rounds.
    std::size_t n_round = 0;
    std::optional<double> median_round_abs_error_pct{};
    std::optional<double> max_round_abs_error_pct{};
    // Judged against the measurement (docs/noise.md, "Accuracy on a shared host"): of the kernels with an
    // interval (their verdict's) and a valid prediction of this model, those whose prediction lies inside
    // the measured interval, those inside or at most 10 % beyond it, and the largest distance beyond (per
    // cent of the interval's nearer end).
    std::size_t n_interval = 0;
    std::size_t inside_interval = 0;
    std::size_t within_tolerance = 0;
    std::optional<double> max_beyond_pct{};
};

// Whether neighbours shared the host while the suite ran (docs/noise.md), with the evidence: the steal time
// of the run, the largest movement of a reference probe, compute ceilings whose samples fell in two groups.
// On a shared host accuracy is judged against each measurement's interval; on a dedicated one against the
// point.
struct HostSharing {
    bool shared = false;
    std::vector<std::string> reasons;     // one clause each, e.g. "steal time 3.1 % of the run"
    std::optional<double> steal_fraction; // of all CPU time during the run
    std::optional<double> probe_moved;    // the largest max/min of a reference probe's epochs
};

// Whether any model's accuracy comes with per-round figures (the run had rounds and probes): the text table
// and the report then show those columns.
bool has_round_accuracy(const std::vector<AccuracySummary>& accuracy);

struct Results {
    int format_version = k_results_format_version;
    std::string roofcast_version;
    std::string created;
    std::optional<Machine> machine;
    std::vector<KernelResult> kernels;
    std::vector<AccuracySummary> accuracy;
    std::optional<HostSharing> host; // bench and run; absent in older files
    std::vector<std::string> notes;
    std::optional<HostNoise> host_noise;
};

nlohmann::json results_to_json(const Results& r);
// One prediction as it appears in results.json (also what `roofcast predict --json` prints).
nlohmann::json prediction_to_json(const Prediction& p);
// Throws InputError(label, field, ...) on anything that is not a roofcast results document or a field
// outside its range (docs/formats.md). `unread_keys`, when given, receives the keys of the document that
// the format does not read, as paths ("kernels[3].precison"; the embedded machine's below "machine.").
Results results_from_json(const nlohmann::json& j, const std::string& label,
                          std::vector<std::string>* unread_keys = nullptr);
// The text of a results file already read (`label` names it in errors); load_results reads it from `path`.
Results results_from_text(const std::string& text, const std::string& label,
                          std::vector<std::string>* unread_keys = nullptr);
Results load_results(const std::string& path, std::vector<std::string>* unread_keys = nullptr);
void save_results(const std::string& path, const Results& r); // atomic, pretty-printed

// Sets k.noise and, from its verdict, the `noisy` flag of k's measured summaries (the run's verdict against
// its probe replaces the fixed-spread flag).
void set_noise(KernelResult& k, const RowNoise& n);

// The prediction of `model` in `k`, nullptr when it has none.
const Prediction* find_prediction(const KernelResult& k, const std::string& model);

// Median and max |error| over predictions of `model` that are valid and have an error.
AccuracySummary accuracy_of(const std::vector<KernelResult>& kernels, const std::string& model);

} // namespace roofcast::core
