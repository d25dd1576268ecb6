#include "model/model.hpp"

#include "core/units.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace roofcast::model {

namespace {

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
ModelDetail roofline(const ModelContext& c) {
    ModelDetail d = start_detail(c, "roofline", false);
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
    // The compute ceilings below the prediction, one note per optimisation they call for (in the order the
    // optimisations first appear), each listing its ceilings: "above the double scalar fma 33.6, ... ceilings
    // (GFLOP/s, 2 threads): needs SIMD vectorisation".
    std::vector<std::pair<std::string, std::string>> needs; // optimisation, its ceilings
    for (const auto& cc : c.m.ceilings) {
        if (cc.precision != c.k.precision || cc.threads != c.threads)
            continue;
        CeilingCheck ch;
        ch.name = fmt::format("{} {} {}, {}", cc.precision, cc.isa, cc.op, thread_text(cc.threads));
        ch.gflops = cc.gflops.median;
        ch.below_prediction = ch.gflops < d.prediction.gflops;
        if (ch.below_prediction) {
            const std::string why = optimisation_for(cc);
            auto it = std::find_if(needs.begin(), needs.end(), [&](const auto& n) { return n.first == why; });
            if (it == needs.end())
                it = needs.insert(needs.end(), {why, std::string()});
            it->second += fmt::format("{}{} {} {} {:.3g}", it->second.empty() ? "" : ", ", cc.precision,
                                      cc.isa, cc.op, ch.gflops);
        }
        d.ceilings.push_back(ch);
    }
    for (const auto& [why, list] : needs)
        d.prediction.notes.push_back(
            fmt::format("above the {} ceilings (GFLOP/s, {}): needs {}", list, thread_text(c.threads), why));
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

} // namespace

extern const Model k_roofline_model{
    "roofline",   "P = min(P_peak, B_MEM x I_MEM)", "Williams, Waterman & Patterson, CACM 2009", 3, roofline,
    explain_roofs};

} // namespace roofcast::model
