#include "model/model.hpp"

#include "core/units.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace roofcast::model {

namespace {

// Cache-aware roofline (Ilic, Pratas & Sousa, "Cache-aware Roofline model: Upgrading the loft",
// IEEE Computer Architecture Letters 13(1), 2014, Sect. II): one intensity seen from the core,
// I_C = flops / (all bytes the core loads and stores), and one roof per level, P_level = min(P_peak,
// B_level * I_C), B_level measured with the data resident in that level. The prediction takes the level
// where the data resides (the farthest level with traffic).
ModelDetail cache_aware(const ModelContext& c) {
    ModelDetail d = start_detail(c, "cache-aware", false);
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

std::string explain_cache_aware(const ModelDetail& d, double f) {
    const core::Prediction& p = d.prediction;
    std::string out = explain_peak(d);
    if (d.core_intensity)
        out += fmt::format("  core-side intensity I_core = {:g} flop / {} = {} flop/B (all bytes the core "
                           "loads and stores)\n",
                           f, explain_bytes(p.terms.front().bytes_per_iteration),
                           explain_number(*d.core_intensity));
    for (std::size_t i = 0; i < d.residency.size() && i < p.terms.size(); ++i)
        out += fmt::format("  data in {}: min(P_peak, {} GB/s x I_core) = {} GFLOP/s\n", d.residency[i].first,
                           explain_number(*p.terms[i].bandwidth_gbs), explain_number(d.residency[i].second));
    return out;
}

} // namespace

extern const Model k_cache_aware_model{"cache-aware",
                                       "P = min(P_peak, B_level x I_core), data resident in one level",
                                       "Ilic, Pratas & Sousa, IEEE CAL 2014",
                                       2,
                                       cache_aware,
                                       explain_cache_aware};

} // namespace roofcast::model
