#include "model/predict.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "model/bandwidth.hpp"
#include "model/derived.hpp"
#include "model/overlap.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace roofcast::model {

namespace {

constexpr double k_tie = 1e-12; // relative difference of times treated as equal

std::string thread_text(int n) {
    return fmt::format("{} thread{}", n, n == 1 ? "" : "s");
}

struct Context {
    Context(const KernelSpec& kernel, const core::Machine& machine, std::string label)
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

// Best median of the measured compute ceilings of a precision at a thread count, if any.
std::optional<double> best_ceiling(const core::Machine& m, const std::string& precision, int threads) {
    std::optional<double> best;
    for (const auto& c : m.ceilings)
        if (c.precision == precision && c.threads == threads)
            best = std::max(best.value_or(0.0), c.gflops.median);
    return best;
}

// Compute roofs for `threads` of `cores`: the machine's figures are for the whole machine; fewer threads
// scale by the ratio of the best ceilings measured at both thread counts when present (this keeps turbo
// effects), else linearly (peak x threads / cores).
void compute_roofs(Context& c) {
    const std::string& prec = c.k.precision;
    auto it = c.m.peak_gflops.find(prec);
    if (it == c.m.peak_gflops.end())
        throw core::InputError(c.machine_label, "compute.peak_gflops." + prec,
                               "missing: the machine has no " + prec + "-precision compute peak");
    double scale = 1;
    std::string how;
    if (c.threads != c.cores) {
        const auto at_t = best_ceiling(c.m, prec, c.threads);
        const auto at_all = best_ceiling(c.m, prec, c.cores);
        if (at_t && at_all && *at_all > 0) {
            scale = *at_t / *at_all;
            how = fmt::format(" x measured ceiling ratio {:.3g}/{:.3g} ({} / {})", *at_t, *at_all,
                              thread_text(c.threads), thread_text(c.cores));
        } else {
            scale = static_cast<double>(c.threads) / c.cores;
            how = fmt::format(" x {}/{} cores", c.threads, c.cores);
        }
    }
    c.peak = it->second * scale;
    c.peak_source = "peak" + how;
    auto eff = c.m.effective_gflops.find(prec);
    if (eff != c.m.effective_gflops.end()) {
        c.effective = eff->second * scale;
        c.effective_source = "effective" + how;
    } else if (auto measured = best_ceiling(c.m, prec, c.threads)) {
        c.effective = *measured;
        c.effective_source = "best measured ceiling, " + thread_text(c.threads);
    } else {
        c.effective = c.peak;
        c.effective_source = c.peak_source + " (no effective figure)";
    }
}

// Write fraction of the workload at a level, when the kernel form tells it.
std::optional<double> write_fraction(const Context& c, const std::string& level) {
    auto w = c.traffic.write_bytes.find(level);
    auto b = c.traffic.bytes.find(level);
    if (w == c.traffic.write_bytes.end() || b == c.traffic.bytes.end() || !(b->second > 0))
        return std::nullopt;
    return w->second / b->second;
}

// Where the kernel sits on a level's bandwidth curve: its traffic volume when the curve is over
// volume and the iteration count is known, else its working set (none when unknown).
std::optional<double> curve_position(const Context& c, const core::Level& lv) {
    if (!lv.curve)
        return std::nullopt;
    const auto iterations = iterations_of(c.k);
    if (lv.curve->x == "volume" && iterations)
        return c.traffic.bytes.at(lv.name) * *iterations;
    return working_set_of(c.k);
}

BandwidthNeed need_for(const Context& c, const core::Level& lv, bool prefer_effective) {
    BandwidthNeed n;
    n.threads = c.threads;
    n.write_fraction = write_fraction(c, lv.name);
    n.nt_stores = c.k.nt_stores;
    n.prefer_effective = prefer_effective;
    n.curve_at = curve_position(c, lv);
    return n;
}

core::LevelTerm term_for(const Context& c, const core::Level& lv, bool prefer_effective, bool timed) {
    core::LevelTerm t;
    t.level = lv.name;
    t.bytes_per_iteration = c.traffic.bytes.at(lv.name);
    t.intensity = intensity(c.k.flops_per_iteration, t.bytes_per_iteration);
    const ChosenBandwidth b = choose_bandwidth(lv, need_for(c, lv, prefer_effective));
    t.bandwidth_gbs = b.gbs;
    t.bandwidth_source = b.source;
    if (timed)
        t.seconds_per_iteration = t.bytes_per_iteration / (b.gbs * core::k_giga);
    return t;
}

// The predicted time per iteration and what follows from it: P = F / t and P / P_peak.
void set_time(ModelDetail& d, const Context& c, double t) {
    core::Prediction& p = d.prediction;
    p.seconds_per_iteration = t;
    p.gflops = t > 0 ? c.k.flops_per_iteration / t / core::k_giga : 0.0;
    p.peak_fraction = d.peak_gflops > 0 ? p.gflops / d.peak_gflops : 0.0;
}

// Common ending of the bound models: t = max(t_C, t_level over the timed terms), P = F / t.
void finish(ModelDetail& d, const Context& c) {
    core::Prediction& p = d.prediction;
    double t = d.compute.seconds_per_iteration;
    p.bottleneck = "compute";
    // Ties (within rounding) go to the level farther from the core: at the threshold of the mixed model
    // the kernel still counts as memory-bound.
    for (const auto& term : p.terms) {
        if (term.seconds_per_iteration && *term.seconds_per_iteration >= t * (1 - k_tie)) {
            t = *term.seconds_per_iteration;
            p.bottleneck = term.level;
        }
    }
    set_time(d, c, t);
}

ComputeRoof compute_roof(const Context& c, bool effective) {
    ComputeRoof r;
    r.gflops = effective ? c.effective : c.peak;
    r.source = effective ? c.effective_source : c.peak_source;
    r.seconds_per_iteration = c.k.flops_per_iteration / (r.gflops * core::k_giga);
    return r;
}

std::string optimisation_for(const core::ComputeCeiling& cc) {
    if (cc.op == "chain")
        return "independent operations (instruction-level parallelism)";
    if (cc.isa == "scalar")
        return "SIMD vectorisation";
    if (cc.op != "fma")
        return "fused multiply-add";
    return "wider SIMD";
}

// Roofline (Williams, Waterman & Patterson, "Roofline: an insightful visual performance model for
// multicore architectures", CACM 52(4), 2009, Fig. 1): P = min(P_peak, B_MEM * I_MEM), ridge at
// I = P_peak / B_MEM; the ceilings below the roof name the optimisations needed (Sect. 4).
ModelDetail roofline(const Context& c) {
    ModelDetail d;
    d.prediction.model = "roofline";
    d.peak_gflops = c.peak;
    d.compute = compute_roof(c, false);
    const core::Level& mem = c.m.levels.back();
    d.prediction.terms.push_back(term_for(c, mem, false, true));
    finish(d, c);
    const double b_mem = *d.prediction.terms.back().bandwidth_gbs;
    d.ridge_intensity = c.peak / b_mem;
    const auto i_mem = d.prediction.terms.back().intensity;
    d.prediction.notes.push_back(
        i_mem ? fmt::format("intensity {:.3g} flop/B {} the ridge point {:.3g} flop/B: {}", *i_mem,
                            *i_mem < *d.ridge_intensity ? "is left of" : "is right of", *d.ridge_intensity,
                            *i_mem < *d.ridge_intensity ? "memory-bound; reducing traffic pays first"
                                                        : "compute-bound; in-core optimisations pay first")
              : "no memory traffic: compute-bound");
    for (const auto& cc : c.m.ceilings) {
        if (cc.precision != c.k.precision || cc.threads != c.threads)
            continue;
        CeilingCheck ch;
        ch.name = fmt::format("{} {} {}, {}", cc.precision, cc.isa, cc.op, thread_text(cc.threads));
        ch.gflops = cc.gflops.median;
        ch.below_prediction = ch.gflops < d.prediction.gflops;
        if (ch.below_prediction)
            d.prediction.notes.push_back(fmt::format("above the '{}' ceiling ({:.3g} GFLOP/s): needs {}",
                                                     ch.name, ch.gflops, optimisation_for(cc)));
        d.ceilings.push_back(ch);
    }
    // Bandwidth ceilings: the other memory kernels measured at this thread count, at the kernel's
    // intensity (e.g. a measured triad_nt above the roof used says non-temporal stores would pay).
    for (const auto& p : mem.measurements) {
        if (p.threads != c.threads || !i_mem)
            continue;
        CeilingCheck ch;
        const double b = p.gbs.median * p.moved_per_requested;
        ch.name = fmt::format("MEM {} {:.4g} GB/s, {}", p.kernel, b, thread_text(p.threads));
        ch.gflops = std::min(c.peak, b * *i_mem);
        ch.below_prediction = ch.gflops < d.prediction.gflops;
        if (ch.gflops > d.prediction.gflops * (1 + 1e-9))
            d.prediction.notes.push_back(
                fmt::format("the '{}' ceiling allows {:.4g} GFLOP/s at this intensity", ch.name, ch.gflops));
        d.ceilings.push_back(ch);
    }
    return d;
}

// Hierarchical roofline (one roof per memory level, each with its own intensity; e.g. Yang, Kurth &
// Williams, "Hierarchical Roofline analysis for GPUs", CCPE 2020, Sect. 2):
// P = min(P_peak, min_level B_level * I_level).
ModelDetail hierarchical(const Context& c) {
    ModelDetail d;
    d.prediction.model = "hierarchical";
    d.peak_gflops = c.peak;
    d.compute = compute_roof(c, false);
    for (const auto& lv : c.m.levels)
        d.prediction.terms.push_back(term_for(c, lv, false, true));
    finish(d, c);
    return d;
}

// Cache-aware roofline (Ilic, Pratas & Sousa, "Cache-aware Roofline model: Upgrading the loft",
// IEEE Computer Architecture Letters 13(1), 2014, Sect. II): one intensity seen from the core,
// I_C = flops / (all bytes the core loads and stores), and one roof per level, P_level = min(P_peak,
// B_level * I_C), B_level measured with the data resident in that level. The prediction takes the level
// where the data resides (the farthest level with traffic).
ModelDetail cache_aware(const Context& c) {
    ModelDetail d;
    d.prediction.model = "cache-aware";
    d.peak_gflops = c.peak;
    d.compute = compute_roof(c, false);
    const double core_bytes = c.traffic.bytes.at(c.m.levels.front().name);
    d.core_intensity = intensity(c.k.flops_per_iteration, core_bytes);
    std::string resident = c.m.levels.front().name;
    for (const auto& lv : c.m.levels)
        if (c.traffic.bytes.at(lv.name) > 0)
            resident = lv.name;
    for (const auto& lv : c.m.levels) {
        core::LevelTerm t = term_for(c, lv, false, false);
        // Every level's roof sees the core's bytes: t_level = D_core / B_level.
        t.bytes_per_iteration = core_bytes;
        t.intensity = d.core_intensity;
        const double t_level = core_bytes / (*t.bandwidth_gbs * core::k_giga);
        const double t_res = std::max(t_level, d.compute.seconds_per_iteration);
        d.residency.emplace_back(lv.name, t_res > 0 ? c.k.flops_per_iteration / t_res / core::k_giga : 0.0);
        if (lv.name == resident)
            t.seconds_per_iteration = t_level;
        d.prediction.terms.push_back(t);
    }
    finish(d, c);
    d.prediction.notes.push_back(
        fmt::format("assumes one level serves all data: every byte the core issues comes from {} (the "
                    "farthest level with traffic); reuse in closer levels is not credited",
                    resident));
    return d;
}

// Mixed memory+cache model: t = max(t_MEM, t_L3, t_L2, t_C), t_level = D_level / B_level,
// t_C = flops / P_eff; P = flops / t; C_p = flops / (t * P_peak). L1 is not timed; the L1-reuse
// validity limits of the machine file apply instead (defaults: memory-bound L1_short < 10 n_MEM and
// L1_long < 8 (n_MEM + n_cache); cache-bound L1_long < n_MEM + n_cache). Switch from memory- to
// cache-bound where t_cache = t_MEM, i.e. n_cache = (B_cache / B_MEM - 1) * n_MEM. With a calibrated
// overlap exponent p in the machine file the terms combine as (sum t_i^p)^(1/p) instead of the max
// (overlap.hpp; the max is its limit p -> infinity).
ModelDetail mixed(const Context& c) {
    ModelDetail d;
    d.prediction.model = "mixed";
    d.peak_gflops = c.peak;
    d.compute = compute_roof(c, true);
    const auto& levels = c.m.levels;
    const bool l1_untimed = levels.size() > 1;
    for (std::size_t i = 0; i < levels.size(); ++i)
        d.prediction.terms.push_back(term_for(c, levels[i], true, !(l1_untimed && i == 0)));
    finish(d, c);
    if (c.m.overlap_exponent) {
        // Partial overlap (overlap.hpp): t = (t_C^p + sum t_level^p)^(1/p), p calibrated; the bottleneck
        // stays the largest term.
        core::Prediction& p = d.prediction;
        std::vector<double> ts{d.compute.seconds_per_iteration};
        for (const auto& term : p.terms)
            if (term.seconds_per_iteration)
                ts.push_back(*term.seconds_per_iteration);
        const double t_max = p.seconds_per_iteration;
        const double t = overlap_norm(ts, c.m.overlap_exponent);
        d.overlap_exponent = c.m.overlap_exponent;
        set_time(d, c, t);
        p.notes.push_back(
            fmt::format("terms overlap partially: t = (sum of t_i^p)^(1/p) with p = {:.3g} (machine "
                        "file) = {:.4g} ns, {:+.1f} % over the largest term ({:.4g} ns)",
                        *c.m.overlap_exponent, t * 1e9, (t / t_max - 1) * 100, t_max * 1e9));
    }
    if (l1_untimed)
        d.prediction.notes.push_back(levels.front().name +
                                     " is not timed: its reuse is covered by the validity limits");

    const core::LevelTerm& mem = d.prediction.terms.back();
    const auto& acc = c.traffic.accesses;
    auto count = [&](const std::string& key) -> std::optional<double> {
        auto it = acc.find(key);
        if (acc.empty())
            return std::nullopt;
        return it == acc.end() ? 0.0 : it->second;
    };
    const auto n_mem = count("MEM");
    double n_cache_total = 0;
    double n_through = 0;
    double t_cache_max = 0;
    for (std::size_t i = levels.size() - 1; i-- > (l1_untimed ? 1 : 0);) {
        const core::LevelTerm& term = d.prediction.terms[i];
        Threshold th;
        th.level = term.level;
        th.bandwidth_ratio = *term.bandwidth_gbs / *mem.bandwidth_gbs;
        th.bytes_actual = term.bytes_per_iteration;
        th.bytes_threshold = th.bandwidth_ratio * mem.bytes_per_iteration;
        th.cache_bound = th.bytes_actual > th.bytes_threshold;
        if (n_mem) {
            n_through += *count(term.level);
            th.n_actual = n_through;
            th.n_threshold = (th.bandwidth_ratio - 1) * *n_mem;
        }
        n_cache_total = n_through;
        t_cache_max = std::max(t_cache_max, term.seconds_per_iteration.value_or(0.0));
        d.thresholds.push_back(th);
    }
    std::reverse(d.thresholds.begin(), d.thresholds.end());

    const bool memory_bound = mem.seconds_per_iteration.value_or(0.0) >= t_cache_max * (1 - k_tie);
    const auto l1_short = count("L1_short");
    const auto l1_long = count("L1_long");
    if (n_mem && l1_short && l1_long) {
        const core::ValidityLimits& v = c.m.validity;
        if (memory_bound) {
            d.validity.push_back({fmt::format("L1_short < {:g} x n_MEM", v.l1_short_per_mem), *l1_short,
                                  v.l1_short_per_mem * *n_mem, *l1_short < v.l1_short_per_mem * *n_mem});
            d.validity.push_back({fmt::format("L1_long < {:g} x (n_MEM + n_cache)", v.l1_long_per_traffic),
                                  *l1_long, v.l1_long_per_traffic * (*n_mem + n_cache_total),
                                  *l1_long < v.l1_long_per_traffic * (*n_mem + n_cache_total)});
        } else {
            d.validity.push_back({fmt::format("L1_long < {:g} x (n_MEM + n_cache)", v.l1_long_cache_bound),
                                  *l1_long, v.l1_long_cache_bound * (*n_mem + n_cache_total),
                                  *l1_long < v.l1_long_cache_bound * (*n_mem + n_cache_total)});
        }
        for (const auto& chk : d.validity) {
            if (!chk.ok) {
                d.prediction.valid = false;
                d.prediction.notes.push_back(
                    fmt::format("outside validity ({}-bound): {} fails, {:g} >= {:g}",
                                memory_bound ? "memory" : "cache", chk.rule, chk.value, chk.limit));
            }
        }
    } else {
        d.prediction.notes.push_back(
            "L1 reuse counts unknown for this kernel form: validity limits not checked");
    }
    return d;
}

std::vector<std::string> requested_models(const PredictOptions& o) {
    std::vector<std::string> out;
    for (const auto& name : o.models) {
        if (name == "all") {
            for (const auto& n : k_model_names)
                if (std::find(out.begin(), out.end(), n) == out.end())
                    out.push_back(n);
            continue;
        }
        if (std::find(k_model_names.begin(), k_model_names.end(), name) == k_model_names.end())
            throw core::InputError("", "--model",
                                   "unknown model '" + name +
                                       "', expected roofline, hierarchical, cache-aware, mixed or all");
        if (std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
    }
    return out.empty() ? k_model_names : out;
}

} // namespace

int resolve_threads(const core::Machine& m, int threads) {
    if (threads > 0)
        return threads;
    return m.topology ? m.topology->cores : 1;
}

Analysis analyse(const KernelSpec& k, const core::Machine& m, const PredictOptions& o) {
    const std::vector<std::string> models = requested_models(o);
    if (o.threads < 0)
        throw core::InputError("", "--threads", "expected a thread count >= 1 (or 0 for all cores)");
    Context c(k, m, o.machine_file.empty() ? m.name : o.machine_file);
    c.threads = resolve_threads(m, o.threads);
    c.cores = m.topology ? m.topology->cores : c.threads;
    if (c.threads > c.cores)
        throw core::InputError("", "--threads",
                               fmt::format("expected at most {} threads (the machine's cores)", c.cores));
    compute_roofs(c);
    c.traffic = derive_traffic(k, m, c.threads, c.machine_label);

    Analysis a;
    a.kernel = k.name;
    a.machine = m.name;
    a.precision = k.precision;
    a.threads = c.threads;
    a.flops_per_iteration = k.flops_per_iteration;
    a.iterations = iterations_of(k);
    a.traffic = c.traffic;
    bool thread_specific = true;
    for (const auto& lv : m.levels)
        if (!measured_bandwidth(lv, need_for(c, lv, false)))
            thread_specific = false;
    for (const auto& name : models) {
        ModelDetail d = name == "roofline"       ? roofline(c)
                        : name == "hierarchical" ? hierarchical(c)
                        : name == "cache-aware"  ? cache_aware(c)
                                                 : mixed(c);
        if (!m.topology && o.threads > 0)
            d.prediction.notes.push_back(fmt::format(
                "the machine file has no topology (core count): its figures are used as given for {}",
                thread_text(c.threads)));
        else if (!thread_specific && c.threads != c.cores)
            d.prediction.notes.push_back(
                fmt::format("bandwidths not measured at {} are the machine file's figures, taken as they are",
                            thread_text(c.threads)));
        a.models.push_back(std::move(d));
    }
    return a;
}

std::vector<core::Prediction> predict(const KernelSpec& k, const core::Machine& m, const PredictOptions& o) {
    std::vector<core::Prediction> out;
    for (auto& d : analyse(k, m, o).models)
        out.push_back(std::move(d.prediction));
    return out;
}

} // namespace roofcast::model
