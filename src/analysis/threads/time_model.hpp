// Execution-time models T(n, s) of a multithreaded kernel over problem size n and thread count s, fitted
// by weighted linear least squares (weights 1/T, so every point counts by its relative error), made robust
// to points disturbed by other processes with Huber's iteratively reweighted least squares.
//
// All three share θ(s), the cost of starting and joining s threads, piecewise linear in s with breaks at
// the physical core count P and, with SMT, at the hardware-thread count H (Doda, execution-time model
// for multithreaded programs: θ(s) bends where the threads outnumber the cores):
//   θ(s) = θ0 + θ1·s + Σ_b θ_b·max(0, s − b),  b ∈ {P, H}.
// and T_seq(n), the sequential time, continuous piecewise linear in n with breaks where the working set
// n·bytes_per_n leaves a cache level: T_seq(n) = a + b·n + Σ_k c_k·max(0, n − N_k).
//  - doda:        T(n, s) = θ(s) + T_seq(n)/s, breaks at every cache capacity (Doda's first formula).
//  - doda-memory: as doda below the last cache level; above it T(n, s) = θ(s) + α·n + β, the memory
//                 regime in which time follows bandwidth rather than 1/s (Doda's second formula).
//  - roofcast:    as doda-memory, but the memory regime continues the cache regimes at the break n_b(s):
//                 T(n, s) = θ(s) + T_seq(n_b)·share(s) + γ·bytes(n − n_b)/B(s) + β, with B(s)
//                 the machine's memory bandwidth at s threads (capped at min(s, P) times the kernel's own
//                 one-core rate in the last cache where that fits better: Williams et al., "Roofline",
//                 CACM 52(4), 2009, the attainable rate is the lower of the memory and the in-core roof),
//                 the cache breaks refined by the fit
//                 (each moved within [½, 2]× its capacity where that lowers the residual), and beyond
//                 the H hardware threads the shared work takes ceil(s/H)/s · T_seq(n): s threads on H
//                 run in ceil(s/H) waves, not s at once (work_share); and θ(s) steps up by a constant
//                 θ_over·[s > H] where the threads outnumber the hardware threads: a region's end then
//                 waits for threads the scheduler has taken off their cores, a jump rather than a change
//                 of slope (an empty OpenMP region shows it; docs/threads.md); and
//                 beyond the break into a cache several cores share, each element costs d·(c − 1) more
//                 with c cores on one instance (contention for the shared cache's bandwidth).
// Contract: fit_model never times anything; a regime with fewer distinct sizes (or thread counts) than
// its parameters, or whose parameters the points do not determine (the design's rank), is merged into its
// neighbour and the merge is recorded in `notes`; so any grid of at least 2 thread counts and 2 sizes yields
// a model, and only data that cannot determine even θ0 + θ1·s + b·n·share(s) (one thread count or one size)
// is a core::InputError.
#pragma once

#include "analysis/threads/data.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::model::threads {

enum class Kind { roofcast, doda, doda_memory };
const char* to_string(Kind k); // "roofcast", "doda", "doda-memory"

struct Parameter {
    std::string name;
    double value = 0.0;
    std::string unit;
    std::string meaning;
};

// One regime of the model: a segment of θ(s) or of T_seq(n), or the memory regime.
struct Regime {
    std::string name; // "theta s<=2", "L1", "L2", "MEM"
    double lo = 0.0;  // range of s (θ) or n (the others)
    double hi = 0.0;  // +inf for the last
    std::size_t points = 0;
    std::vector<Parameter> parameters;
};

struct ThreadsModel {
    Kind kind = Kind::roofcast;
    double bytes_per_n = 8.0;
    // Threads that run at once (hardware threads; 0 = unknown): the roofcast model's shared work runs in
    // ceil(s / hw_threads) waves beyond it (work_share).
    int hw_threads = 0;
    std::vector<double> s_breaks;     // thread counts where θ bends
    std::vector<std::string> s_names; // "cores", "hw threads"
    // roofcast model: θ(s) also steps up by a constant once s exceeds hw_threads (dropped with fewer than
    // two thread counts beyond them).
    bool oversubscription_step = false;
    // Whether T_seq has its own intercept a. Merged into θ(s) (false) where the thread counts measured cannot
    // tell a fixed cost of the work from one of the threads: their shares of the work lie in θ's span (two
    // thread counts, or counts beyond the hardware threads that all run in the same number of waves).
    bool tseq_intercept = true;
    std::vector<double> n_breaks;      // hinges of T_seq (ascending), at one thread
    std::vector<std::string> n_names;  // regime names, n_breaks.size() + 1 of them
    std::optional<double> memory_from; // sizes >= this are in the memory regime, at one thread
    // roofcast model: per break (and for the start of the memory regime), the cache instances the threads'
    // data can spread over (cores / cores sharing one instance; 1 for a shared cache or unknown sharing).
    // At s threads a break lies at n_breaks[k] · capacity_scale(n_break_instances[k], s): s threads on a
    // private L2 hold s times one core's L2 (Doda's breaks stay at one thread's capacities).
    std::vector<double> n_break_instances;
    double memory_instances = 1.0;
    // roofcast model: per break, whether the level the working set moves into is a cache several cores share
    // (an L3). The first such break carries a contention term: beyond it every element costs d more for each
    // further core on one instance, d·(c − 1) with c = min(s, P)/instances (Gunther's Universal
    // Scalability Law with its coherency term zero, "Guerrilla Capacity Planning", 2007, §4.4: the
    // cores queue for the shared cache's bandwidth, so the time there does not fall as 1/s).
    std::vector<bool> n_break_to_shared;
    int cores = 1;
    std::vector<std::pair<int, double>> bandwidth_gbs; // B(s) used by the roofcast memory regime
    // roofcast model: the kernel's own rate on one core (GB/s), from its time per element in the last cache
    // level; the memory regime then streams at min(B(s), min(s, cores)·core_gbs) (a roofline per thread
    // count: a kernel bound by its own instructions, as one dependent add chain per thread, is no faster in
    // memory than in the last cache). Kept only where it lowers the residual (a note says so).
    std::optional<double> core_gbs;
    std::vector<double> coef;
    double rel_sigma = 0.0; // RMS relative residual over the degrees of freedom
    std::size_t dof = 0;
    std::vector<Regime> regimes;
    std::vector<std::string> notes;

    double evaluate(double n, double s) const;
    // The part of T_seq(n) one of s threads' wall time holds: 1/s (Doda), and for the roofcast model
    // ceil(s/H)/s beyond the H hardware threads, as s threads on H run in ceil(s/H) waves.
    double work_share(double s) const;
    double theta(double s) const;
    // T(0, s): a call with no work, θ(s) + T_seq(0)·work_share(s). θ(s) alone is not determined where
    // few thread counts lie below the cores (its constant trades against T_seq's intercept, which the
    // threads share), so this sum is what the fit fixes and what compares with θ measured on its own.
    double fixed_cost(double s) const;
    // Cores on one instance of the level beyond break k (its instances: the next break's, or the last
    // cache's for the last break): min(s, P) / instances, at least 1.
    double cores_beyond(std::size_t k, double s) const;
    // The break whose contention term the model carries (the first with n_break_to_shared); nullopt: none.
    std::optional<std::size_t> contention_break() const;
    // min(s, cores, instances), at least 1, for the roofcast model; 1 for Doda's forms.
    double capacity_scale(double instances, double s) const;
    double bandwidth(double s) const; // GB/s, linear interpolation in s, clamped at the ends
    // The roofcast memory regime's rate at s threads: bandwidth(s), capped by core_gbs where that is set.
    double memory_rate(double s) const;
    std::string formula() const;
    // 95 % interval from the relative residuals: value·(1 ∓ t·rel_sigma); nullopt without dof.
    std::optional<std::pair<double, double>> interval(double value) const;
};

ThreadsModel fit_model(Kind kind, const Context& ctx, const std::vector<Measurement>& points);

// Sum over points of ((model − median)/median)², the quantity the fits minimise.
double relative_rss(const ThreadsModel& m, const std::vector<Measurement>& points);

} // namespace roofcast::model::threads
