#include "model/bandwidth.hpp"

#include "core/error.hpp"
#include "core/stream_catalogue.hpp"
#include "core/units.hpp"
#include "model/model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace roofcast::model {

namespace {

core::Summary scaled_summary(core::Summary s, double f) {
    s.median *= f;
    s.min *= f;
    s.max *= f;
    for (double& x : s.samples)
        x *= f;
    return s;
}

} // namespace

std::optional<ChosenBandwidth> measured_bandwidth(const core::Level& lv, const BandwidthNeed& need) {
    const core::BandwidthPoint* best = nullptr;
    double best_score = std::numeric_limits<double>::infinity();
    for (const auto& p : lv.measurements) {
        if (p.threads != need.threads)
            continue;
        // The write fraction of a measured kernel comes from its catalogue entry (requested bytes).
        const core::StreamDescriptor* d = core::find_stream_kernel(p.kernel);
        if (d == nullptr)
            continue; // the machine-file reader admits catalogue names only
        // Without a known mix, the roof kernel (STREAM triad) is the reference (McCalpin, STREAM).
        double score = need.write_fraction ? std::fabs(core::write_fraction(*d) - *need.write_fraction)
                                           : (d->roof_rank == 0 ? 0.0 : 1.0);
        if (d->nontemporal != need.nt_stores)
            score += 0.5; // same mix but the other store kind: a worse match
        if (score < best_score) {
            best_score = score;
            best = &p;
        }
    }
    if (!best)
        return std::nullopt;
    // Kernel traffic counts moved bytes (write-allocate included): use the moved bandwidth.
    ChosenBandwidth b{best->gbs.median * best->moved_per_requested,
                      fmt::format("measured {}, {}", best->kernel, thread_text(best->threads)),
                      scaled_summary(best->gbs, best->moved_per_requested)};
    if (best->gbs.noisy)
        b.source += " (noisy)";
    return b;
}

ChosenBandwidth choose_bandwidth(const core::Level& lv, const BandwidthNeed& need) {
    if (need.prefer_effective && lv.effective_bandwidth_gbs) {
        ChosenBandwidth b{*lv.effective_bandwidth_gbs, std::string(k_calibrated_source), std::nullopt};
        // Memory is calibrated with a copy (model/calibration.hpp). A read-only workload (write fraction
        // nearer the load kernel's 0 than the triad's 1/3) gets that figure times the machine file's own
        // ratio of its read-only and copy bandwidths at the same thread count: the calibration carries
        // the run's conditions, the ratio the access mix, which on hosts whose memory serves a copy's
        // reads and writes together faster than reads alone the copy alone would overstate (by a third on
        // one AMD EPYC host).
        if (lv.name == "MEM" && need.write_fraction && *need.write_fraction < k_read_only_write_fraction) {
            BandwidthNeed read = need, copy = need;
            read.write_fraction = 0.0;
            copy.write_fraction = core::write_fraction(*core::find_stream_kernel("copy"));
            const auto r = measured_bandwidth(lv, read);
            const auto c = measured_bandwidth(lv, copy);
            if (r && c && c->gbs > 0 && r->source != c->source) {
                const double ratio = r->gbs / c->gbs;
                b.gbs *= ratio;
                b.source = fmt::format("{} x {:.2f} (read-only: {} / {})", k_calibrated_source, ratio,
                                       r->source, c->source);
            }
        }
        return b;
    }
    if (auto b = measured_bandwidth(lv, need))
        return *b;
    if (lv.bandwidth_gbs) {
        std::string src = core::to_string(lv.source);
        if (!lv.bandwidth_kernel.empty())
            src += " " + lv.bandwidth_kernel;
        if (lv.bandwidth && lv.bandwidth->noisy)
            src += " (noisy)";
        return {*lv.bandwidth_gbs, src, lv.bandwidth};
    }
    if (lv.curve) {
        const core::BandwidthCurve& cv = *lv.curve;
        if (!need.curve_at) {
            // No size known: the curve's plateau (its largest point) is the conservative choice.
            const double at = cv.points.empty() ? 0.0 : cv.points.back().first;
            return {cv.eval(at),
                    fmt::format("curve at {} (largest point; kernel size unknown)", core::format_size(at)),
                    std::nullopt};
        }
        return {cv.eval(*need.curve_at), fmt::format("curve at {}", core::format_size(*need.curve_at)),
                std::nullopt};
    }
    if (lv.effective_bandwidth_gbs)
        return {*lv.effective_bandwidth_gbs, std::string(k_calibrated_source), std::nullopt};
    throw core::InputError("", "levels." + lv.name,
                           "no bandwidth: expected bandwidth_gbs, measurements, a curve or "
                           "effective_bandwidth_gbs");
}

} // namespace roofcast::model
