// The model that picks the blocking depth k of roofcast-stencil (deep-halo temporal blocking; Kawamura,
// Maruyama & Matsuoka, temporal blocking for parallel stencils on GPU clusters). Per block of k sweeps and
// per rank:
//   T_inner(k)    = sum over sweeps s of |inner_s| t_cell + (calls) c_sweep
//   T_boundary(k) = sum over sweeps s of |extended_s \ inner_s| t_cell + (calls) c_sweep
//   T_pack(k), T_unpack(k) = 2 * halo bytes / B_copy   (read and write of each halo value)
//   T_comm(k)     = sum over the rank's messages of (alpha + m / beta)   (Hockney, one port), or, where
//                   the runner measured one exchange of one-value messages with every neighbour (L),
//                   L + sum of m / beta: the start-up times as they are paid together, waits included
//   t_block(k)    = T_pack + max(T_inner, T_comm) + T_unpack + T_boundary
// and the time of a run is the sum over its ceil(steps / k) blocks (the last one may be shorter), for the
// slowest rank. The paper's t = max(T_inner, T_G2C + T_MPI + T_C2G) + T_boundary hides the copies behind
// the GPU's inner kernel; on CPUs the same cores pack, compute and unpack, so only the transfer hides
// behind the inner region (docs/stencil.md). Models never time anything: every input is a figure of the
// machine file or a measured constant handed in.
#pragma once

#include "analysis/stencil/geometry.hpp"
#include "core/machine.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::model::stencil {

struct StencilProblem {
    std::string kernel = "jacobi7"; // jacobi7 | himeno
    Index3 n{0, 0, 0};              // global points, z y x
    Index3 dims{1, 1, 1};           // process grid, z y x
    int steps = 1;
};

struct CostInputs {
    double seconds_per_cell = 0;      // one point update on one rank
    double sweep_constant_s = 0;      // fork-join and loop start-up of one sweep call
    double copy_bytes_per_second = 0; // pack / unpack bandwidth of one rank
    double alpha_s = 0;               // Hockney start-up time of one message
    // Measured time of one exchange of one-value messages with every neighbour; > 0 replaces the sum of
    // the messages' alpha (0: not measured).
    double exchange_latency_s = 0;
    double beta_bytes_per_second = 0; // Hockney asymptotic bandwidth
    double element_bytes = 8;
    // The exchange measured by the runner (HaloCosts): (bytes, seconds) of one exchange, packing, sending,
    // waiting and unpacking, at each halo width it timed, ascending in bytes (exchange_seconds); replaces the
    // pack, unpack and message terms above when not empty.
    std::vector<std::pair<double, double>> exchange_points;
    // The share of min(T_inner, T_comm) that hides behind the inner sweep: 1 in the paper's model; below 0
    // when the exchange and the sweep slow each other down (measured so by the runner).
    double overlap = 1;
    // What the exchange adds to the inner sweep of k = 1 run around it, (bytes, seconds) at each halo width
    // the runner timed (HaloCosts::added_points); when not empty it replaces `overlap`: the exchange's work
    // on the cores (and the sweep's slowdown) adds to any sweep, its wire time hides behind a sweep long
    // enough, so a block takes max(inner + added, comm) between its pack and unpack.
    std::vector<std::pair<double, double>> exchange_added_points;
};

struct PhaseTimes {
    double inner = 0, pack = 0, comm = 0, unpack = 0, boundary = 0;
    double overlap = 1; // CostInputs::overlap
    // What the exchange adds to the inner sweep around which it runs (CostInputs::exchange_added_points at
    // this block's message size); absent where not measured.
    std::optional<double> added;
    // With `added`: pack + max(inner + added, comm) + unpack + boundary. Else pack + inner + comm -
    // overlap x min(inner, comm) + unpack + boundary: with overlap 1 the paper's max(inner, comm), with 0
    // the exchange adds to the sweep (cores that make the copies themselves), below 0 the two together take
    // longer still.
    double block() const;
};

struct KPrediction {
    int k = 1;
    PhaseTimes first_block; // of the slowest rank, a full block of k sweeps
    double seconds = 0;     // the whole run (slowest rank)
    double seconds_per_step = 0;
};

// The deepest blocking roofcast considers: a halo of 1024 sweeps is far past any that pays, and the cost
// of choosing k grows with the square of the deepest tried.
inline constexpr int k_max_depth = 1024;

// The measured exchange's time for `bytes` (points ascending in bytes, at least one): linear between the
// points, and beyond them along the straight line through the two nearest (never below 0); one point: its
// time for every size.
double exchange_seconds(const std::vector<std::pair<double, double>>& points, double bytes);

// The kernels the runner has: "jacobi7" (double), "himeno" (single).
const std::vector<std::string>& kernel_names();
// Bytes of one element of the kernel's field; throws InputError for an unknown kernel.
double element_bytes(const std::string& kernel);
double flops_per_point(const std::string& kernel);

// The largest k whose halo fits (k r < the smallest split extent); 0 when even k = 1 does not.
int max_k(const StencilProblem& p);

// Phase times of one rank for one block of kb sweeps.
PhaseTimes block_times(const StencilProblem& p, const RankGeometry& g, const CostInputs& c, int kb);

// The run at blocking depth k, for the slowest rank. Throws std::invalid_argument when k < 1 or k > max_k.
KPrediction predict_k(const StencilProblem& p, const CostInputs& c, int k);

// Every k in 1..kmax (capped by max_k, the steps and k_max_depth: a block never holds more than every
// step) and the best one (the smallest time; the smallest k on a tie).
struct KChoice {
    std::vector<KPrediction> all;
    int best_k = 1;
    double gain_over_k1 = 0; // (t(1) - t(best)) / t(1)
};
KChoice choose_k(const StencilProblem& p, const CostInputs& c, int kmax);

// Cost inputs from a machine file: t_cell measured by the runner where given, else from the mixed model
// (model::predict, loop-nest traffic of the kernel at a rank's block) for ranks_per_node ranks of `threads`
// threads sharing the machine; the copy bandwidth of the cache level the two fields of a rank fit in (else
// memory), shared by the ranks of a node; alpha and beta from the machine's mpi section unless given.
// `machine_file` names the file in errors.
struct MachineCostOptions {
    int threads = 1;
    int ranks_per_node = 1;
    std::optional<double> alpha_s;
    std::optional<double> beta_gbs;
    std::optional<double> sweep_constant_s;   // measured by the runner; else the machine's thread overhead
    std::optional<double> exchange_latency_s; // measured by the runner; else the sum of alpha per message
    std::optional<double> seconds_per_cell;   // measured by the runner; else the mixed model
    // The exchange measured by the runner (HaloCosts of analysis/stencil/measured.hpp); else the terms above.
    std::vector<std::pair<double, double>> exchange_points;
    std::optional<double> overlap;
    std::vector<std::pair<double, double>> exchange_added_points; // HaloCosts::added_points
    std::string machine_file;
};
struct MachineCosts {
    CostInputs inputs;
    std::string cell_source;  // "mixed model, 2 threads: 1.2 ns per point"
    std::string copy_source;  // "L2 bandwidth 120 GB/s / 2 ranks"
    std::string comm_source;  // "machine file mpi: Hockney alpha, beta"
    std::string sweep_source; // "measured by roofcast-stencil" | "machine thread_overhead (omp_parallel, 2)"
};
MachineCosts machine_costs(const StencilProblem& p, const core::Machine& m, const MachineCostOptions& o);

// Strong scaling of the simulation mode: for each rank count, the process grid, the best k and its gain.
struct ScalingPoint {
    int ranks = 1;
    Index3 dims{1, 1, 1};
    double seconds_per_step_k1 = 0;
    int best_k = 1;
    double seconds_per_step_best = 0;
    double gain = 0;
};
// Rank counts 1, 2, 4, ... up to max_ranks (and max_ranks itself), one rank per node; a count whose
// blocks are too thin for k = 1 ends the curve. `costs` maps a problem to its cost inputs.
template <typename Costs>
std::vector<ScalingPoint> strong_scaling(StencilProblem p, const std::string& decomp, int max_ranks, int kmax,
                                         Costs costs) {
    std::vector<ScalingPoint> out;
    for (int r = 1;; r = r * 2 > max_ranks && r < max_ranks ? max_ranks : r * 2) {
        p.dims = process_grid(p.n, r, decomp);
        if (max_k(p) < 1)
            break;
        const KChoice ch = choose_k(p, costs(p), kmax);
        ScalingPoint s;
        s.ranks = r;
        s.dims = p.dims;
        s.seconds_per_step_k1 = ch.all.front().seconds_per_step;
        s.best_k = ch.best_k;
        s.seconds_per_step_best = ch.all[static_cast<std::size_t>(ch.best_k - 1)].seconds_per_step;
        s.gain = ch.gain_over_k1;
        out.push_back(s);
        if (r >= max_ranks)
            break;
    }
    return out;
}

} // namespace roofcast::model::stencil
