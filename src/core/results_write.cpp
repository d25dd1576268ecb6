// Writing a results file (docs/formats.md, "Results file"): the JSON results_from_json reads back.
#include "core/results.hpp"

#include "core/io.hpp"
#include "core/machine.hpp"

#include <nlohmann/json.hpp>

namespace roofcast::core {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

// The measured figure every prediction's error_pct compares with (experiment/bench.hpp, compare_kernel): the
// best epoch, the shortest time. Written beside the errors so that a reader reproduces each from the file:
// error_pct = (error_basis.seconds_per_iteration / predictions[].seconds_per_iteration - 1) x 100. Derived
// from `measured`; null without a measured time.
json error_basis_json(const KernelResult& k) {
    if (!k.measured_seconds)
        return nullptr;
    json b{{"statistic", "best_epoch"}};
    if (k.iterations > 0)
        b["seconds_per_iteration"] = k.measured_seconds->min / k.iterations;
    if (k.measured_gflops)
        b["gflops"] = k.measured_gflops->max;
    if (k.measured_gbs)
        b["gbs"] = k.measured_gbs->max;
    return b;
}

} // namespace

json prediction_to_json(const Prediction& p) {
    json terms = json::array();
    for (const auto& t : p.terms)
        terms.push_back({{"level", t.level},
                         {"bytes_per_iteration", t.bytes_per_iteration},
                         {"intensity", opt(t.intensity)},
                         {"bandwidth_gbs", opt(t.bandwidth_gbs)},
                         {"bandwidth_source", t.bandwidth_source},
                         {"seconds_per_iteration", opt(t.seconds_per_iteration)}});
    return {{"model", p.model},
            {"seconds_per_iteration", p.seconds_per_iteration},
            {"gflops", p.gflops},
            {"peak_fraction", p.peak_fraction},
            {"bottleneck", p.bottleneck},
            {"valid", p.valid},
            {"notes", p.notes},
            {"terms", terms},
            {"compute_seconds_per_iteration", opt(p.compute_seconds_per_iteration)},
            {"error_pct", opt(p.error_pct)}};
}

json results_to_json(const Results& r) {
    json kernels = json::array();
    for (const auto& k : r.kernels) {
        json preds = json::array();
        for (const auto& p : k.predictions)
            preds.push_back(prediction_to_json(p));
        json measured = json::object();
        if (k.measured_gflops)
            measured["gflops"] = summary_to_json(*k.measured_gflops);
        if (k.measured_gbs)
            measured["gbs"] = summary_to_json(*k.measured_gbs);
        if (k.measured_seconds)
            measured["seconds"] = summary_to_json(*k.measured_seconds);
        json kj = {{"name", k.name},
                   {"suite", k.suite},
                   {"role", k.role},
                   {"precision", k.precision},
                   {"threads", k.threads},
                   {"flops_per_iteration", k.flops_per_iteration},
                   {"iterations", k.iterations},
                   {"bytes_per_iteration", k.bytes_per_iteration},
                   {"measured", measured},
                   {"predictions", preds},
                   {"notes", k.notes}};
        if (auto basis = error_basis_json(k); !basis.is_null())
            kj["error_basis"] = std::move(basis);
        if (k.thread_imbalance)
            kj["thread_imbalance"] = *k.thread_imbalance;
        if (k.in_cache_seconds)
            kj["in_cache_seconds_per_iteration"] = *k.in_cache_seconds;
        if (k.bound_fraction)
            kj["bound_fraction"] = *k.bound_fraction;
        if (!k.ceilings.empty()) {
            json cs = json::array();
            for (const auto& c : k.ceilings)
                cs.push_back({{"name", c.name}, {"kind", c.kind}, {"gflops", c.gflops}, {"above", c.above}});
            kj["ceilings"] = cs;
        }
        if (!k.diagnosis.empty()) {
            json ds = json::array();
            for (const auto& d : k.diagnosis)
                ds.push_back({{"cause", d.cause},
                              {"evidence", d.evidence},
                              {"figure", opt(d.figure)},
                              {"limit", opt(d.limit)}});
            kj["diagnosis"] = ds;
        }
        if (!k.bound_fraction_rounds.empty())
            kj["bound_fraction_rounds"] = k.bound_fraction_rounds;
        if (k.bound_fraction_median_round)
            kj["bound_fraction_median_round"] = *k.bound_fraction_median_round;
        if (k.settle)
            kj["settle"] = {{"rounds", k.settle->rounds}, {"settled", k.settle->settled}};
        if (k.verdict) {
            const Verdict& v = *k.verdict;
            kj["verdict"] = {{"state", v.state},
                             {"fraction", v.fraction},
                             {"lo", v.lo},
                             {"hi", v.hi},
                             {"confidence", v.confidence},
                             {"basis", v.basis},
                             {"threshold", v.threshold}};
            if (v.probe_moved)
                kj["verdict"]["probe_moved"] = *v.probe_moved, kj["verdict"]["probe"] = v.probe;
        }
        if (k.noise)
            kj["noise"] = {{"probe", k.noise->probe},
                           {"spread", k.noise->spread},
                           {"floor", k.noise->floor},
                           {"flagged", k.noise->flagged()}};
        kernels.push_back(std::move(kj));
    }
    json acc = json::array();
    for (const auto& a : r.accuracy)
        acc.push_back({{"model", a.model},
                       {"n", a.n},
                       {"median_abs_error_pct", opt(a.median_abs_error_pct)},
                       {"max_abs_error_pct", opt(a.max_abs_error_pct)},
                       {"n_round", a.n_round},
                       {"median_round_abs_error_pct", opt(a.median_round_abs_error_pct)},
                       {"max_round_abs_error_pct", opt(a.max_round_abs_error_pct)},
                       {"n_interval", a.n_interval},
                       {"inside_interval", a.inside_interval},
                       {"within_tolerance", a.within_tolerance},
                       {"max_beyond_pct", opt(a.max_beyond_pct)}});
    json out{{"format_version", r.format_version},
             {"kind", "roofcast-results"},
             {"roofcast_version", r.roofcast_version},
             {"created", r.created},
             {"kernels", kernels},
             {"accuracy", acc},
             {"notes", r.notes}};
    out["machine"] = r.machine ? machine_to_json(*r.machine) : json(nullptr);
    if (r.host)
        out["host"] = {{"shared", r.host->shared},
                       {"reasons", r.host->reasons},
                       {"steal_fraction", opt(r.host->steal_fraction)},
                       {"probe_moved", opt(r.host->probe_moved)}};
    if (r.host_noise) {
        json probes = json::array();
        for (const auto& p : r.host_noise->probes)
            probes.push_back({{"kind", p.kind}, {"kernel", p.kernel}, {"floor", p.floor}, {"gbs", p.gbs}});
        out["host_noise"] = {
            {"probes", probes}, {"rows", r.host_noise->rows}, {"flagged", r.host_noise->flagged}};
    }
    return out;
}

void save_results(const std::string& path, const Results& r) {
    write_file_atomic(path, results_to_json(r).dump(2) + "\n");
}

} // namespace roofcast::core
