#include "model/profile_regions.hpp"

#include "core/doc.hpp"
#include "core/stats.hpp"
#include "model/kernel.hpp"
#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string_view>

namespace roofcast::model {

namespace {

struct Known {
    double value = 0;
    std::string origin;
};

std::optional<Known> total(const core::ProfileFunction& f, const std::vector<std::string>& names) {
    Known k;
    bool any = false;
    for (const auto& n : names) {
        const auto it = f.metrics.find(n);
        if (it == f.metrics.end())
            continue;
        k.value += it->second.reduced_mean();
        k.origin = k.origin.empty() ? core::to_string(it->second.origin) : k.origin;
        any = true;
    }
    return any ? std::optional<Known>(k) : std::nullopt;
}

double metric_or_zero(const core::ProfileFunction& f, const std::string& name) {
    const auto it = f.metrics.find(name);
    return it == f.metrics.end() ? 0.0 : it->second.reduced_mean();
}

// Functions and loops are filtered by their share of the program; marker regions always stay (their times
// nest, so shares of a sum would mislead).
bool filtered_kind(const std::string& kind) {
    return kind == "function" || kind == "library" || kind == "loop";
}

struct ProgramTotals {
    double time = 0, flops = 0;
};

// Totals over the profile's functions (loops lie inside them and are not added again).
ProgramTotals program_totals(const core::Profile& p) {
    ProgramTotals t;
    for (const auto& f : p.functions)
        if (f.kind == "function" || f.kind == "library") {
            t.time += metric_or_zero(f, "time");
            t.flops += metric_or_zero(f, "flops");
        }
    return t;
}

// Bytes per level of the machine: counted and simulated per level (bytes_<level>), else the declared or
// simulated memory traffic. `origin` takes the origin of the memory-side figure.
std::map<std::string, double> level_bytes(const core::ProfileFunction& f, const core::Machine& m,
                                          std::string& origin) {
    std::map<std::string, double> out;
    for (const auto& l : m.levels)
        if (const auto it = f.metrics.find("bytes_" + l.name); it != f.metrics.end()) {
            out[l.name] = it->second.reduced_mean();
            origin = core::to_string(it->second.origin);
        }
    if (!out.empty())
        return out;
    auto bytes = total(f, {"bytes"});
    if (!bytes)
        bytes = total(f, {"LL_MISS_BYTES"});
    if (bytes) {
        out["MEM"] = bytes->value;
        origin = bytes->origin;
    }
    return out;
}

int widest_vector_bits(const core::Machine& m) {
    int bits = 0;
    if (m.topology)
        for (const auto& isa : m.topology->isa)
            bits = std::max(bits, isa == "avx512"                 ? 512
                                  : isa == "avx2" || isa == "avx" ? 256
                                  : isa == "sse"                  ? 128
                                                                  : 0);
    return bits;
}

// Below this fraction of its bandwidth bound (at the upper end of its sampling interval where it has one), a
// region's bound does not explain its time: the suite's kernels reach 85 % of theirs and the mixed model's
// median error is a few tens of per cent at most, so a region at under half of its bound is held back by
// something the bound does not model (latency, dependencies, page faults).
constexpr double k_far_below_bound = 0.5;
bool far_below_bound(const RegionVerdict& v) {
    if (!v.fraction)
        return false;
    if (v.fraction_lo) // sampled: the whole interval below, an unbounded one never
        return v.fraction_hi && *v.fraction_hi < k_far_below_bound;
    return *v.fraction < k_far_below_bound;
}

// What would raise a function's or loop's performance, from its bottleneck and its counted code: the
// questions Intel Advisor's roofline guidance asks (vectorisation, register and cache blocking), answered
// from the mixed model's terms.
std::vector<std::string> guidance(const RegionVerdict& v, const core::Machine& m) {
    std::vector<std::string> g;
    if (v.bottleneck.empty())
        return g;
    if (v.bottleneck == "compute") {
        g.push_back("the compute ceiling limits it");
        const int widest = widest_vector_bits(m);
        if (v.vector_bits > 0 && widest > v.vector_bits)
            g.push_back(
                fmt::format("wider vectors would help: its FP arithmetic is {}-bit, the machine's {}-bit",
                            v.vector_bits, widest));
        else if (v.vector_bits == 0 && v.kind == "loop" && widest > 0)
            g.push_back(fmt::format("vectorising it would help: its FP arithmetic is scalar, the machine's "
                                    "vectors are {}-bit",
                                    widest));
        return g;
    }
    const std::string level = v.bottleneck == "MEM" ? "memory" : v.bottleneck;
    if (far_below_bound(v)) {
        // Bandwidth bounds it but does not explain it: blocking for a cache it does not saturate would not
        // help.
        g.push_back(
            fmt::format("{} bandwidth bounds it, but at {:.0f} % of that bound its time goes elsewhere",
                        level, *v.fraction * 100));
        if (!(v.flops > 0)) {
            g.push_back(
                "data it writes for the first time (page faults), or copies too small for their calls "
                "would explain it");
            return g;
        }
        g.push_back(
            "a dependency chain (one running sum), indirect or irregular accesses (latency rather than "
            "bandwidth) or scalar code would explain it; `roofcast inspect` shows its loops' "
            "instructions");
        const int widest = widest_vector_bits(m);
        if (v.vector_bits > 0 && widest > v.vector_bits)
            g.push_back(fmt::format("its FP arithmetic is {}-bit, the machine's vectors {}-bit",
                                    v.vector_bits, widest));
        return g;
    }
    g.push_back(fmt::format("{} bandwidth limits it", level));
    if (!(v.flops > 0)) {
        g.push_back("it only moves data: copying less, or less often, would help (work on the data where it "
                    "lies, or move it once)");
        return g;
    }
    if (v.bottleneck == "L1") {
        const auto l1 = v.level_bytes.find("L1");
        if (l1 != v.level_bytes.end() && v.flops > 0)
            g.push_back(fmt::format("fewer loads and stores per flop would help ({:.3g} B per flop from L1: "
                                    "register blocking, unroll and jam)",
                                    l1->second / v.flops));
    } else if (v.bottleneck == "MEM") {
        g.push_back(
            "more reuse in the caches would help (blocking, loop fusion), or fewer bytes (smaller types, "
            "streaming stores for written-only arrays)");
    } else {
        g.push_back(fmt::format("blocking for the level above {} would help (reuse its data from a smaller "
                                "cache)",
                                v.bottleneck));
    }
    return g;
}

// A region's rate per repetition: `work` (flops, or the bytes of a region that only moves data) over each
// repetition's time (slowest rank), 1e9 per second. A rate above `limit` is faster than any machine (the
// declared work or the time is wrong): left out, with a note naming `unit` and `what` it is left out of.
std::optional<core::Summary> measured_rate(const core::ProfileFunction& f, double work, double limit,
                                           std::string_view unit, std::string_view what,
                                           std::vector<std::string>& omitted) {
    const auto t = f.metrics.find("time");
    if (t == f.metrics.end())
        return std::nullopt;
    std::vector<double> per_rep;
    std::size_t beyond = 0;
    for (std::size_t r = 0; r < t->second.per_rank.size(); ++r) {
        if (!(t->second.reduced(r) > 0))
            continue;
        const double rate = work / t->second.reduced(r) * 1e-9;
        if (rate <= limit)
            per_rep.push_back(rate);
        else
            ++beyond;
    }
    if (beyond > 0)
        omitted.push_back(fmt::format("{}: {} timed repetition(s) above {:g} {}, faster than any machine, "
                                      "left out of its measured {}",
                                      f.name, beyond, limit, unit, what));
    return core::summarize(per_rep);
}

// Why `f` cannot be placed, or empty.
std::string unplaceable(const core::ProfileFunction& f, const std::optional<Known>& flops,
                        const std::map<std::string, double>& bytes) {
    if (!flops || bytes.empty())
        return fmt::format("{}: {} unknown", f.name,
                           !flops && bytes.empty() ? "flops and bytes"
                           : !flops                ? "flops"
                                                   : "bytes");
    double most = 0;
    for (const auto& [level, b] : bytes)
        most = std::max(most, b);
    if (!(flops->value >= 0) || !(most > 0))
        return fmt::format("{}: {:g} flops over {:g} bytes has no positive intensity", f.name, flops->value,
                           most);
    // The run's totals, reduced over ranks, can pass what a run counts (docs/formats.md): a results file
    // holding them could not be read back.
    if (!(flops->value <= core::k_max_events) || !(most <= core::k_max_events))
        return fmt::format("{}: {:g} flops over {:g} bytes is more than a run counts ({:g})", f.name,
                           flops->value, most, core::k_max_events);
    return {};
}

// A sampled time of n samples lies within [t mu_lo / n, t mu_hi / n] (core::poisson_interval_95), so its
// fraction of the bound within [f n / mu_hi, f n / mu_lo]: a loop that a few samples timed can read 125 %.
void sampling_interval(const core::ProfileFunction& f, RegionVerdict& v) {
    if (!v.fraction || !f.metrics.count("time_samples"))
        return;
    const double n = metric_or_zero(f, "time_samples");
    if (!(n > 0))
        return;
    v.time_samples = n;
    const auto [lo, hi] = core::poisson_interval_95(n);
    v.fraction_lo = *v.fraction * n / hi;
    if (lo > 0)
        v.fraction_hi = *v.fraction * n / lo;
}

// The level a region's intensity (and a data-moving region's bandwidth) is taken at: the level whose
// bandwidth limits it in the mixed model; for a compute-bound region the level whose data term comes
// nearest the compute term; without a prediction the outermost level that moves data. Not simply the
// outermost: a loop whose data stay in L2 still misses a few lines to memory, and flops over those bytes
// would place it far to the right of where its L2 traffic puts it.
std::string intensity_level(const std::map<std::string, double>& bytes, const core::Machine& m,
                            const core::Prediction* p) {
    const auto moves = [&bytes](const std::string& level) {
        const auto b = bytes.find(level);
        return b != bytes.end() && b->second > 0;
    };
    if (p) {
        if (moves(p->bottleneck))
            return p->bottleneck;
        const core::LevelTerm* largest = nullptr;
        for (const auto& t : p->terms)
            if (t.seconds_per_iteration && moves(t.level) &&
                (!largest || *t.seconds_per_iteration > *largest->seconds_per_iteration))
                largest = &t;
        if (largest)
            return largest->level;
    }
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it)
        if (moves(it->name))
            return it->name;
    // Levels the machine does not name: the one that moves most (unplaceable() admits only a positive most).
    return std::max_element(bytes.begin(), bytes.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
}

} // namespace

ProfilePlacement place_profile(const core::Profile& p, const core::Machine& m, double min_share) {
    ProfilePlacement out;
    out.results.machine = m;
    const int threads = resolve_threads(m, std::max(1, static_cast<int>(p.cores.value_or(p.ranks))));
    const ProgramTotals totals = program_totals(p);
    for (const auto& f : p.functions) {
        std::optional<double> time_share, flops_share;
        if (totals.time > 0 && f.metrics.count("time"))
            time_share = metric_or_zero(f, "time") / totals.time;
        if (totals.flops > 0)
            flops_share = metric_or_zero(f, "flops") / totals.flops;
        if (filtered_kind(f.kind) && (time_share || flops_share) && time_share.value_or(0) < min_share &&
            flops_share.value_or(0) < min_share) {
            ++out.below_share;
            continue;
        }
        auto flops = total(f, {"flops"});
        if (!flops)
            flops = total(f, {"PAPI_DP_OPS", "PAPI_SP_OPS"});
        std::string bytes_origin;
        const std::map<std::string, double> bytes = level_bytes(f, m, bytes_origin);
        if (const std::string why = unplaceable(f, flops, bytes); !why.empty()) {
            if (f.kind == "region" || flops || !bytes.empty())
                out.omitted.push_back(why);
            continue;
        }
        KernelSpec k;
        k.name = f.name;
        k.flops_per_iteration = flops->value;
        k.iterations = 1;
        k.explicit_bytes = bytes;
        PredictOptions o;
        o.threads = threads;
        o.models = {"mixed"};
        const auto preds = predict(k, m, o);
        core::KernelResult kr;
        kr.name = f.name;
        kr.suite = "user";
        kr.threads = threads;
        kr.flops_per_iteration = flops->value;
        kr.iterations = 1;
        kr.bytes_per_iteration = bytes;
        kr.predictions = preds;
        RegionVerdict v;
        v.name = f.name;
        v.kind = f.kind;
        v.flops = flops->value;
        v.level_bytes = bytes.size() > 1 ? bytes : std::map<std::string, double>{};
        v.bytes_level = intensity_level(bytes, m, preds.empty() ? nullptr : &preds.front());
        v.bytes = bytes.at(v.bytes_level);
        v.flops_origin = flops->origin;
        v.bytes_origin = bytes_origin;
        v.intensity = v.bytes > 0 ? flops->value / v.bytes : 0;
        v.time_share = time_share;
        v.flops_share = flops_share;
        v.vector_bits = static_cast<int>(metric_or_zero(f, "vector_bits"));
        const bool moves_only = !(flops->value > 0);
        if (moves_only) {
            // The results file reads a kernel without flops in GB/s at the farthest level that moves data
            // (the suite's convention, which the HTML report follows); the verdict at its limiting level.
            const double far = bytes.at(intensity_level(bytes, m, nullptr));
            if (auto s = measured_rate(f, far, core::k_max_system_gbs, "GB/s", "bandwidth", out.omitted)) {
                kr.measured_gbs = s;
                v.measured_gbs = s->median * (v.bytes / far);
                // No flops: 0 GFLOP/s in every repetition, as the suite records its copy loops.
                kr.measured_gflops = core::scaled(*s, 0.0);
            }
        } else if (auto s = measured_rate(f, flops->value, core::k_max_system_gflops, "GFLOP/s",
                                          "performance", out.omitted)) {
            kr.measured_gflops = s;
            v.measured_gflops = s->median;
        }
        if (!preds.empty()) {
            v.bound_gflops = preds.front().gflops;
            v.bottleneck = preds.front().bottleneck;
            v.bound = v.bottleneck == "compute" ? "compute" : "memory";
            if (v.measured_gflops && v.bound_gflops > 0)
                v.fraction = *v.measured_gflops / v.bound_gflops;
            if (moves_only && preds.front().seconds_per_iteration > 0) {
                v.bound_gbs = v.bytes / preds.front().seconds_per_iteration * 1e-9;
                if (v.measured_gbs)
                    v.fraction = *v.measured_gbs / v.bound_gbs;
            }
        }
        sampling_interval(f, v);
        v.guidance = guidance(v, m);
        out.results.kernels.push_back(std::move(kr));
        out.verdicts.push_back(std::move(v));
    }
    return out;
}

} // namespace roofcast::model
