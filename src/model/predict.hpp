// The performance models of `roofcast predict`: roofline (Williams, Waterman & Patterson, CACM 2009),
// hierarchical roofline, cache-aware roofline (Ilic, Pratas & Sousa, IEEE CAL 2014) and the mixed
// memory+cache model t = max(t_MEM, t_L3, t_L2, t_C). Models never time anything: they combine a
// kernel's traffic (derive_traffic) with the machine file's ceilings. Contract: predict() returns one
// core::Prediction per requested model, in the order asked; analyse() returns the same predictions with
// the intermediate figures (ridge point, thresholds, validity checks) that the reports print.
// Unknown model names and machines without a compute peak throw core::InputError.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "model/kernel.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

// Names of the registered models in table order (model/model.hpp), and "roofline, ..., mixed or all".
const std::vector<std::string>& model_names();
std::string model_list_text();

struct PredictOptions {
    int threads = 0;                 // 0 = all cores of the machine
    std::vector<std::string> models; // empty or {"all"} = every model
    bool explain = false;
    std::string machine_file; // names the machine in errors (default: the machine's name)
};

std::vector<core::Prediction> predict(const KernelSpec& k, const core::Machine& m, const PredictOptions& o);

// The compute roof a model used.
struct ComputeRoof {
    double gflops = 0;
    std::string source; // "peak", "effective (entered)", "measured avx2 fma, 4 threads", "peak x 2/8 threads"
    double seconds_per_iteration = 0;
};

// Roofline: a measured compute ceiling and whether the kernel's attainable performance lies above it
// (then the optimisation the ceiling stands for is needed to reach the prediction).
struct CeilingCheck {
    std::string name; // "double scalar add, 1 thread"
    double gflops = 0;
    bool below_prediction = false;
};

// Mixed model: where the kernel switches from memory-bound to bound by `level`
// (n_cache = (B_cache / B_MEM - 1) * n_MEM, in element accesses when counts are known, and the
// equivalent in bytes D_cache = B_cache / B_MEM * D_MEM).
struct Threshold {
    std::string level;
    double bandwidth_ratio = 0;        // B_cache / B_MEM
    std::optional<double> n_threshold; // element accesses served by caches down to this level
    std::optional<double> n_actual;    // the kernel's count of those accesses
    double bytes_threshold = 0;        // traffic of this level at the switch
    double bytes_actual = 0;           // the kernel's traffic of this level
    bool cache_bound = false;          // bytes_actual > bytes_threshold
};

struct ValidityCheck {
    std::string rule; // "L1_long < 1 x (n_MEM + n_cache)"
    double value = 0;
    double limit = 0;
    bool ok = true;
};

struct ModelDetail {
    core::Prediction prediction;
    double peak_gflops = 0;
    ComputeRoof compute;
    std::optional<double> ridge_intensity;                 // roofline: P / B_MEM
    std::vector<CeilingCheck> ceilings;                    // roofline
    std::optional<double> core_intensity;                  // cache-aware: flops / bytes issued by the core
    std::vector<std::pair<std::string, double>> residency; // cache-aware: GFLOP/s if that level serves all
    std::vector<Threshold> thresholds;                     // mixed
    std::vector<ValidityCheck> validity;                   // mixed
    std::optional<double> overlap_exponent;                // mixed: p of (sum t_i^p)^(1/p); none: max
    std::optional<double> compute_overlap_exponent;        // mixed: q of mixed_time (overlap.hpp); none: in p
    std::optional<double> cache_overlap_exponent; // mixed: pc of CacheOverlap (overlap.hpp); none: in p
};

struct Analysis {
    std::string kernel;
    std::string machine;
    std::string precision;
    int threads = 1;
    double flops_per_iteration = 0;
    std::optional<double> iterations;
    Traffic traffic;
    std::vector<ModelDetail> models;
};

Analysis analyse(const KernelSpec& k, const core::Machine& m, const PredictOptions& o);

// Threads the prediction is for: o.threads, or every core when 0 (1 when the machine has no topology).
int resolve_threads(const core::Machine& m, int threads);

} // namespace roofcast::model
