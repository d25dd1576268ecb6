#include "model/profile_regions.hpp"

#include "core/doc.hpp"
#include "core/stats.hpp"
#include "model/kernel.hpp"
#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

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

} // namespace

ProfilePlacement place_profile(const core::Profile& p, const core::Machine& m) {
    ProfilePlacement out;
    out.results.machine = m;
    const int threads = resolve_threads(m, std::max(1, static_cast<int>(p.cores.value_or(p.ranks))));
    for (const auto& f : p.functions) {
        auto flops = total(f, {"flops"});
        if (!flops)
            flops = total(f, {"PAPI_DP_OPS", "PAPI_SP_OPS"});
        auto bytes = total(f, {"bytes"});
        if (!bytes)
            bytes = total(f, {"LL_MISS_BYTES"});
        if (!flops || !bytes) {
            if (f.kind == "region" || flops || bytes)
                out.omitted.push_back(fmt::format("{}: {} unknown", f.name,
                                                  !flops && !bytes ? "flops and bytes"
                                                  : !flops         ? "flops"
                                                                   : "bytes"));
            continue;
        }
        if (!(flops->value > 0) || !(bytes->value > 0)) {
            out.omitted.push_back(fmt::format("{}: {:g} flops over {:g} bytes has no positive intensity",
                                              f.name, flops->value, bytes->value));
            continue;
        }
        // The run's totals, reduced over ranks, can pass what a run counts (docs/formats.md): a results file
        // holding them could not be read back.
        if (!(flops->value <= core::k_max_events) || !(bytes->value <= core::k_max_events)) {
            out.omitted.push_back(
                fmt::format("{}: {:g} flops over {:g} bytes is more than a run counts ({:g})", f.name,
                            flops->value, bytes->value, core::k_max_events));
            continue;
        }
        KernelSpec k;
        k.name = f.name;
        k.flops_per_iteration = flops->value;
        k.iterations = 1;
        k.explicit_bytes["MEM"] = bytes->value;
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
        kr.bytes_per_iteration["MEM"] = bytes->value;
        kr.predictions = preds;
        RegionVerdict v;
        v.name = f.name;
        v.flops = flops->value;
        v.bytes = bytes->value;
        v.flops_origin = flops->origin;
        v.bytes_origin = bytes->origin;
        v.intensity = flops->value / bytes->value;
        if (const auto t = f.metrics.find("time"); t != f.metrics.end()) {
            std::vector<double> per_rep;
            std::size_t beyond = 0;
            for (std::size_t r = 0; r < t->second.per_rank.size(); ++r) {
                if (!(t->second.reduced(r) > 0))
                    continue;
                const double gflops = flops->value / t->second.reduced(r) * 1e-9;
                // Faster than a whole machine: the declared flops or the time are wrong.
                if (gflops <= core::k_max_system_gflops)
                    per_rep.push_back(gflops);
                else
                    ++beyond;
            }
            if (beyond > 0)
                out.omitted.push_back(
                    fmt::format("{}: {} timed repetition(s) above {:g} GFLOP/s, faster than any "
                                "machine, left out of its measured performance",
                                f.name, beyond, core::k_max_system_gflops));
            if (auto s = core::summarize(per_rep)) {
                kr.measured_gflops = s;
                v.measured_gflops = s->median;
            }
        }
        if (!preds.empty()) {
            v.bound_gflops = preds.front().gflops;
            v.bottleneck = preds.front().bottleneck;
            v.bound = v.bottleneck == "compute" ? "compute" : "memory";
            if (v.measured_gflops && v.bound_gflops > 0)
                v.fraction = *v.measured_gflops / v.bound_gflops;
        }
        out.results.kernels.push_back(std::move(kr));
        out.verdicts.push_back(std::move(v));
    }
    return out;
}

} // namespace roofcast::model
