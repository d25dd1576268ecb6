#include "model/model.hpp"

#include "core/units.hpp"

#include <fmt/format.h>

namespace roofcast::model {

namespace {

// Write fraction of the workload at a level, when the kernel form tells it.
std::optional<double> write_fraction(const ModelContext& c, const std::string& level) {
    auto w = c.traffic.write_bytes.find(level);
    auto b = c.traffic.bytes.find(level);
    if (w == c.traffic.write_bytes.end() || b == c.traffic.bytes.end() || !(b->second > 0))
        return std::nullopt;
    return w->second / b->second;
}

// Where the kernel sits on a level's bandwidth curve: its traffic volume when the curve is over
// volume and the iteration count is known, else its working set (none when unknown).
std::optional<double> curve_position(const ModelContext& c, const core::Level& lv) {
    if (!lv.curve)
        return std::nullopt;
    const auto iterations = iterations_of(c.k);
    if (lv.curve->x == "volume" && iterations)
        return c.traffic.bytes.at(lv.name) * *iterations;
    return working_set_of(c.k);
}

} // namespace

std::string thread_text(int n) {
    return fmt::format("{} thread{}", n, n == 1 ? "" : "s");
}

BandwidthNeed need_for(const ModelContext& c, const core::Level& lv, bool prefer_effective) {
    BandwidthNeed n;
    n.threads = c.threads;
    n.write_fraction = write_fraction(c, lv.name);
    n.nt_stores = c.k.nt_stores;
    n.prefer_effective = prefer_effective;
    n.curve_at = curve_position(c, lv);
    return n;
}

core::LevelTerm term_for(const ModelContext& c, const core::Level& lv, bool prefer_effective, bool timed) {
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

void set_time(ModelDetail& d, const ModelContext& c, double t) {
    core::Prediction& p = d.prediction;
    p.seconds_per_iteration = t;
    p.gflops = t > 0 ? c.k.flops_per_iteration / t / core::k_giga : 0.0;
    p.peak_fraction = d.peak_gflops > 0 ? p.gflops / d.peak_gflops : 0.0;
}

void finish(ModelDetail& d, const ModelContext& c) {
    core::Prediction& p = d.prediction;
    double t = d.compute.seconds_per_iteration;
    p.compute_seconds_per_iteration = t;
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

ComputeRoof compute_roof(const ModelContext& c, bool effective) {
    ComputeRoof r;
    r.gflops = effective ? c.effective : c.peak;
    r.source = effective ? c.effective_source : c.peak_source;
    r.seconds_per_iteration = c.k.flops_per_iteration / (r.gflops * core::k_giga);
    return r;
}

ModelDetail start_detail(const ModelContext& c, std::string_view model, bool effective_compute) {
    ModelDetail d;
    d.prediction.model = std::string(model);
    d.peak_gflops = c.peak;
    d.compute = compute_roof(c, effective_compute);
    return d;
}

std::string explain_number(double v) {
    return fmt::format("{:.4g}", v);
}

std::string explain_bytes(double b) {
    return fmt::format("{:.4g} B", b);
}

std::string explain_percent(double fraction) {
    return fmt::format("{:.1f} %", fraction * 100);
}

std::string explain_peak(const ModelDetail& d) {
    return fmt::format("  P_peak = {} GFLOP/s ({})\n", explain_number(d.peak_gflops), d.compute.source);
}

std::string explain_roofs(const ModelDetail& d, double f) {
    const core::Prediction& p = d.prediction;
    std::string out = explain_peak(d);
    for (const auto& t : p.terms) {
        if (!t.intensity) {
            out += fmt::format("  {}: no traffic, no limit\n", t.level);
            continue;
        }
        out += fmt::format("  {}: I = {:g} flop / {} = {} flop/B; B x I = {} GB/s ({}) x {} = {} GFLOP/s\n",
                           t.level, f, explain_bytes(t.bytes_per_iteration), explain_number(*t.intensity),
                           explain_number(*t.bandwidth_gbs), t.bandwidth_source, explain_number(*t.intensity),
                           explain_number(*t.bandwidth_gbs * *t.intensity));
    }
    std::string roofs = explain_number(d.peak_gflops);
    for (const auto& t : p.terms)
        if (t.intensity)
            roofs += ", " + explain_number(*t.bandwidth_gbs * *t.intensity);
    out += fmt::format("  P = min({}) = {} GFLOP/s\n", roofs, explain_number(p.gflops));
    if (d.ridge_intensity)
        out +=
            fmt::format("  ridge point I = P_peak / B_MEM = {} flop/B\n", explain_number(*d.ridge_intensity));
    return out;
}

} // namespace roofcast::model
