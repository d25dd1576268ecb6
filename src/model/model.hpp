// What every model of `roofcast predict` shares: the inputs of one analysis (kernel, machine, thread
// count, traffic, compute roofs), the Model interface each model implements in its own file
// (model/model_<name>.cpp), the registry that lists them, and the helpers that build a model's level
// terms and final time. A level term records the bandwidth the model used (model/bandwidth.hpp), so
// the tables, the results file and the charts show what the model computed with.
//
// Contract: models are pure functions of the ModelContext (they time nothing); the registry's order is
// the order of tables and of `--model all`; summary_rank orders the models for one-line summaries.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "model/bandwidth.hpp"
#include "model/derived.hpp"
#include "model/kernel.hpp"
#include "model/predict.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace roofcast::model {

inline constexpr double k_tie = 1e-12; // relative difference of times treated as equal

// The inputs of one analysis, prepared once by analyse() and shared by every model.
struct ModelContext {
    ModelContext(const KernelSpec& kernel, const core::Machine& machine, std::string label)
        : k(kernel), m(machine), machine_label(std::move(label)) {}
    const KernelSpec& k;
    const core::Machine& m;
    std::string machine_label;
    int threads = 1;
    int cores = 1;
    Traffic traffic;
    double peak = 0;
    std::string peak_source;
    double effective = 0;
    std::string effective_source;
};

// One performance model: its name (the `--model` value), a one-line formula and a caption (its source)
// for the tables, its preference for one-model summaries (run summary: lower first) and the analysis
// itself. Adding a model: one model_<name>.cpp defining its Model, one line in model_registry.cpp, one
// test (docs/extending.md).
struct Model {
    std::string_view name;
    std::string_view formula;
    std::string_view caption;
    int summary_rank = 0;
    ModelDetail (*analyse)(const ModelContext& c) = nullptr;
    // Its derivation in words for `predict --explain`: the lines between the model's heading and its
    // result, each indented by two spaces and ending in a newline, from what analyse() recorded.
    std::string (*explain)(const ModelDetail& d, double flops_per_iteration) = nullptr;
};

// Every model, in table order (roofline, hierarchical, cache-aware, mixed).
const std::vector<const Model*>& model_registry();
// The model of a name, or nullptr.
const Model* find_model(std::string_view name);
// Every model in summary order (summary_rank, lower first): the order one-model summaries prefer.
std::vector<const Model*> summary_order();
// The first of a kernel's predictions in summary order that `usable` accepts (every one when null), or
// nullptr: the prediction a one-model verdict rests on.
const core::Prediction* summary_prediction(const core::KernelResult& k,
                                           bool (*usable)(const core::Prediction&) = nullptr);

// Helpers shared by the models.
std::string thread_text(int n); // "1 thread", "4 threads"
// What the kernel asks of a level's bandwidth (its write share, store kind, curve position).
BandwidthNeed need_for(const ModelContext& c, const core::Level& lv, bool prefer_effective);
// One level's term: bytes, intensity, the chosen bandwidth and (when timed) t = bytes / bandwidth.
core::LevelTerm term_for(const ModelContext& c, const core::Level& lv, bool prefer_effective, bool timed);
// The predicted time per iteration and what follows from it: P = F / t and P / P_peak.
void set_time(ModelDetail& d, const ModelContext& c, double t);
// Common ending of the bound models: t = max(t_C, t_level over the timed terms), P = F / t.
void finish(ModelDetail& d, const ModelContext& c);
// The compute roof a model uses: the peak, or the effective rate.
ComputeRoof compute_roof(const ModelContext& c, bool effective);
// A model's detail before its terms: its name, the peak and its compute roof (effective or peak).
ModelDetail start_detail(const ModelContext& c, std::string_view model, bool effective_compute);

// Text of the explanations: a figure to four significant digits, bytes, a fraction as a percentage.
std::string explain_number(double v);
std::string explain_bytes(double b);
std::string explain_percent(double fraction);
// The peak line the bound models start with: "  P_peak = ... GFLOP/s (source)".
std::string explain_peak(const ModelDetail& d);
// The explanation of a bound model whose terms are B x I roofs (roofline, hierarchical).
std::string explain_roofs(const ModelDetail& d, double flops_per_iteration);

} // namespace roofcast::model
