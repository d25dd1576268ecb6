#include "model/calibration.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace roofcast::model {

Calibration calibrate(const std::vector<CalibrationPoint>& points) {
    Calibration out;
    std::vector<std::string> order;
    std::map<std::string, std::vector<const CalibrationPoint*>> by_level;
    for (const auto& p : points) {
        if (!by_level.count(p.level))
            order.push_back(p.level);
        by_level[p.level].push_back(&p);
    }
    // P_eff: at each level the point with the fewest bytes per flop; the best of their flop rates.
    for (const auto& level : order) {
        const auto& pts = by_level[level];
        const auto* lowest = *std::min_element(pts.begin(), pts.end(), [](const auto* a, const auto* b) {
            return a->bytes_per_flop < b->bytes_per_flop;
        });
        if (!out.effective_gflops || lowest->gflops > *out.effective_gflops) {
            out.effective_gflops = lowest->gflops;
            out.effective_gflops_kernel = lowest->kernel;
        }
    }
    for (const auto& level : order) {
        const auto& pts = by_level[level];
        auto compute_bound = [&](const CalibrationPoint* p) {
            return out.effective_gflops && p->gflops >= k_compute_bound_fraction * *out.effective_gflops;
        };
        // The plateau is that of the points not compute-bound, so one compute-bound outlier cannot
        // set it.
        double best_gbs = 0;
        for (const auto* p : pts)
            if (!compute_bound(p))
                best_gbs = std::max(best_gbs, p->gbs);
        LevelCalibration lc;
        lc.level = level;
        double sum = 0;
        for (const auto* p : pts) {
            if (compute_bound(p) || p->gbs < k_plateau_fraction * best_gbs) {
                lc.excluded.push_back(p->kernel);
            } else {
                lc.used.push_back(p->kernel);
                sum += p->gbs;
            }
        }
        if (!lc.used.empty())
            lc.effective_gbs = sum / static_cast<double>(lc.used.size());
        out.levels.push_back(lc);
    }
    return out;
}

void apply_calibration(core::Machine& m, const Calibration& c, const std::string& machine_file) {
    for (const auto& lc : c.levels) {
        auto it = std::find_if(m.levels.begin(), m.levels.end(),
                               [&](const core::Level& l) { return l.name == lc.level; });
        if (it == m.levels.end())
            throw core::InputError(machine_file, "levels",
                                   "the calibration measured level " + lc.level +
                                       ", which the machine file lacks");
        if (!lc.effective_gbs)
            continue;
        it->effective_bandwidth_gbs = *lc.effective_gbs;
        if (!it->bandwidth_gbs) {
            it->bandwidth_gbs = *lc.effective_gbs;
            it->bandwidth_kernel = "calibration";
            it->source = core::Provenance::calibrated;
        }
        m.notes.push_back(fmt::format("{} effective bandwidth {:.2f} GB/s calibrated from {} bandwidth-bound "
                                      "calibration loops ({} threads)",
                                      lc.level, *lc.effective_gbs, lc.used.size(), c.threads));
    }
    if (!c.effective_gflops)
        return;
    const bool all_cores = !m.topology || m.topology->cores == c.threads;
    if (all_cores)
        m.effective_gflops[c.precision] = *c.effective_gflops;
    m.notes.push_back(
        fmt::format("effective {} compute rate {:.2f} GFLOP/s calibrated from {} ({} threads){}", c.precision,
                    *c.effective_gflops, c.effective_gflops_kernel, c.threads,
                    all_cores ? "" : "; not the whole machine, so not written as effective_gflops"));
}

} // namespace roofcast::model
