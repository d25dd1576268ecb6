#include "report/predict_table.hpp"
#include "report/format.hpp"

#include "core/results.hpp"
#include "core/units.hpp"
#include "model/model.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report {

namespace {

// "model (caption): formula", from the model's registry entry.
std::string model_heading(const std::string& name) {
    const model::Model* m = model::find_model(name);
    if (m == nullptr)
        return name;
    return fmt::format("{} ({}): {}", name, m->caption, m->formula);
}

std::string num(double v) {
    return fmt::format("{:.4g}", v);
}

std::string bytes_text(double b) {
    return fmt::format("{:.4g} B", b);
}

std::string opt_num(const std::optional<double>& v, const std::string& unit = "") {
    return v ? num(*v) + unit : "-";
}

std::string bound_text(const std::string& bottleneck) {
    return bottleneck == "compute" ? "compute bound" : bottleneck + "-bandwidth bound";
}

const model::ModelDetail* verdict_model(const model::Analysis& a) {
    if (a.models.empty())
        return nullptr;
    for (const char* pref : {"mixed", "hierarchical"})
        for (const auto& d : a.models)
            if (d.prediction.model == pref)
                return &d;
    return &a.models.front();
}

std::string header(const model::Analysis& a) {
    return fmt::format("kernel {} on machine {}, {} thread{}, {} precision, {:g} flop/iteration", a.kernel,
                       a.machine, a.threads, a.threads == 1 ? "" : "s", a.precision, a.flops_per_iteration);
}

} // namespace

std::string verdict(const model::Analysis& a) {
    const model::ModelDetail* d = verdict_model(a);
    if (!d)
        return "";
    const auto& p = d->prediction;
    return fmt::format("this loop can reach {} of peak; it is {}{}", percent_text(p.peak_fraction),
                       bound_text(p.bottleneck),
                       p.valid ? "" : " (outside validity of the " + p.model + " model)");
}

std::string format_prediction_tables(const model::Analysis& a) {
    std::string out = header(a) + "\n";
    for (const auto& n : a.traffic.notes)
        out += "  traffic: " + n + "\n";
    for (const auto& d : a.models) {
        const auto& p = d.prediction;
        out += fmt::format("\n== {}\n", model_heading(p.model));
        out += fmt::format("  {:<8} {:>10} {:>9} {:>12}  {:<36} {:>11}\n", "level", "bytes/it", "flop/B",
                           "bandwidth", "source", "time/it");
        for (const auto& t : p.terms) {
            const bool is_bottleneck = t.level == p.bottleneck;
            out += fmt::format("  {:<8} {:>10} {:>9} {:>12}  {:<36} {:>11}{}\n", t.level,
                               bytes_text(t.bytes_per_iteration), opt_num(t.intensity),
                               opt_num(t.bandwidth_gbs, " GB/s"), t.bandwidth_source,
                               t.seconds_per_iteration ? core::format_seconds(*t.seconds_per_iteration) : "-",
                               is_bottleneck ? "  <- bottleneck" : "");
        }
        out +=
            fmt::format("  {:<8} {:>10} {:>9} {:>12}  {:<36} {:>11}{}\n", "compute",
                        fmt::format("{:g} flop", a.flops_per_iteration), "", num(d.compute.gflops) + " GF/s",
                        d.compute.source, core::format_seconds(d.compute.seconds_per_iteration),
                        p.bottleneck == "compute" ? "  <- bottleneck" : "");
        std::string total;
        if (a.iterations)
            total = fmt::format(", {} for {:.0f} iterations",
                                core::format_seconds(p.seconds_per_iteration * *a.iterations), *a.iterations);
        out += fmt::format("  => {} GFLOP/s, {} of peak ({} GFLOP/s), {} per iteration{}; {}{}\n",
                           num(p.gflops), percent_text(p.peak_fraction), num(d.peak_gflops),
                           core::format_seconds(p.seconds_per_iteration), total, bound_text(p.bottleneck),
                           p.valid ? "" : "; OUTSIDE VALIDITY");
        if (d.ridge_intensity)
            out += fmt::format("  ridge point: {} flop/B\n", num(*d.ridge_intensity));
        for (const auto& c : d.ceilings)
            out += fmt::format("  ceiling {}: {} GFLOP/s{}\n", c.name, num(c.gflops),
                               c.below_prediction ? " (below the prediction)" : "");
        for (const auto& [level, gflops] : d.residency)
            out += fmt::format("  if all data came from {}: {} GFLOP/s\n", level, num(gflops));
        for (const auto& th : d.thresholds) {
            out += fmt::format("  threshold {}: cache-bound when D_{} > B_{}/B_MEM x D_MEM = {} x {} = {}",
                               th.level, th.level, th.level, num(th.bandwidth_ratio),
                               bytes_text(a.traffic.bytes.count("MEM") ? a.traffic.bytes.at("MEM") : 0.0),
                               bytes_text(th.bytes_threshold));
            if (th.n_threshold)
                out += fmt::format(" (n_cache = (B_{}/B_MEM - 1) x n_MEM = {}; this kernel: {:g})", th.level,
                                   num(*th.n_threshold), *th.n_actual);
            out += fmt::format("; this kernel: {} -> {}\n", bytes_text(th.bytes_actual),
                               th.cache_bound ? "cache-bound" : "memory-bound");
        }
        for (const auto& v : d.validity)
            out += fmt::format("  validity {}: {:g} vs {:g} -> {}\n", v.rule, v.value, v.limit,
                               v.ok ? "ok" : "FAILS");
        for (const auto& n : p.notes)
            out += "  note: " + n + "\n";
    }
    if (!a.models.empty())
        out += fmt::format("\n{}\n", verdict(a));
    return out;
}

std::string format_explanation(const model::Analysis& a) {
    std::string out = header(a) +
                      ".\n\nTraffic per iteration (bytes moved between a level and the level closer "
                      "to the core, write-allocate included):\n";
    for (const auto& [level, bytes] : a.traffic.bytes)
        out += fmt::format("  D_{} = {}\n", level, bytes_text(bytes));
    for (const auto& n : a.traffic.notes)
        out += "  " + n + "\n";
    const double f = a.flops_per_iteration;
    for (const auto& d : a.models) {
        const auto& p = d.prediction;
        out += fmt::format("\n{}\n", model_heading(p.model));
        const std::string peak =
            fmt::format("P_peak = {} GFLOP/s ({})", num(d.peak_gflops), d.compute.source);
        if (p.model == "roofline" || p.model == "hierarchical") {
            out += "  " + peak + "\n";
            for (const auto& t : p.terms) {
                if (!t.intensity) {
                    out += fmt::format("  {}: no traffic, no limit\n", t.level);
                    continue;
                }
                out += fmt::format(
                    "  {}: I = {:g} flop / {} = {} flop/B; B x I = {} GB/s ({}) x {} = {} GFLOP/s\n", t.level,
                    f, bytes_text(t.bytes_per_iteration), num(*t.intensity), num(*t.bandwidth_gbs),
                    t.bandwidth_source, num(*t.intensity), num(*t.bandwidth_gbs * *t.intensity));
            }
            std::string roofs = num(d.peak_gflops);
            for (const auto& t : p.terms)
                if (t.intensity)
                    roofs += ", " + num(*t.bandwidth_gbs * *t.intensity);
            out += fmt::format("  P = min({}) = {} GFLOP/s\n", roofs, num(p.gflops));
            if (d.ridge_intensity)
                out += fmt::format("  ridge point I = P_peak / B_MEM = {} flop/B\n", num(*d.ridge_intensity));
        } else if (p.model == "cache-aware") {
            out += "  " + peak + "\n";
            if (d.core_intensity)
                out += fmt::format(
                    "  core-side intensity I_core = {:g} flop / {} = {} flop/B (all bytes the core "
                    "loads and stores)\n",
                    f, bytes_text(p.terms.front().bytes_per_iteration), num(*d.core_intensity));
            for (std::size_t i = 0; i < d.residency.size() && i < p.terms.size(); ++i)
                out += fmt::format("  data in {}: min(P_peak, {} GB/s x I_core) = {} GFLOP/s\n",
                                   d.residency[i].first, num(*p.terms[i].bandwidth_gbs),
                                   num(d.residency[i].second));
        } else {
            out +=
                fmt::format("  t_C = flops / P_eff = {:g} / {} GFLOP/s ({}) = {}\n", f, num(d.compute.gflops),
                            d.compute.source, core::format_seconds(d.compute.seconds_per_iteration));
            for (const auto& t : p.terms) {
                if (!t.seconds_per_iteration) {
                    out +=
                        fmt::format("  {}: not timed ({} moved; L1 reuse is judged by the validity limits)\n",
                                    t.level, bytes_text(t.bytes_per_iteration));
                    continue;
                }
                out += fmt::format("  t_{} = D / B = {} / {} GB/s ({}) = {}\n", t.level,
                                   bytes_text(t.bytes_per_iteration), num(*t.bandwidth_gbs),
                                   t.bandwidth_source, core::format_seconds(*t.seconds_per_iteration));
            }
            // The terms as the model combines them: max; one p-norm with t_C; or the data terms' p-norm
            // combined with t_C by q (model/overlap.hpp, mixed_time).
            // With a cache/cache exponent pc the caches' terms form one pc-norm first ("t_MEM^p + (t_L2^pc +
            // t_L3^pc)^(p/pc)"; CacheOverlap).
            std::string names = "t_C";
            std::string data_powers;  // "t_L2^p + t_MEM^p"
            std::string cache_powers; // "t_L2^pc + t_L3^pc"
            for (const auto& t : p.terms)
                if (t.seconds_per_iteration) {
                    names += ", t_" + t.level;
                    if (d.cache_overlap_exponent && t.level != "MEM")
                        cache_powers += (cache_powers.empty() ? "" : " + ") + ("t_" + t.level + "^pc");
                    else
                        data_powers += (data_powers.empty() ? "" : " + ") + ("t_" + t.level + "^p");
                }
            std::string pc_text;
            if (d.cache_overlap_exponent) {
                data_powers += (data_powers.empty() ? "" : " + ") + ("(" + cache_powers + ")^(p/pc)");
                pc_text = ", pc = " + num(*d.cache_overlap_exponent);
            }
            std::string combine = fmt::format("max({})", names);
            if (d.compute_overlap_exponent)
                combine = fmt::format("(({})^(q/p) + t_C^q)^(1/q) with p = {}{}, q = {}", data_powers,
                                      d.overlap_exponent ? num(*d.overlap_exponent) : std::string("max"),
                                      pc_text, num(*d.compute_overlap_exponent));
            else if (d.overlap_exponent || d.cache_overlap_exponent)
                combine = fmt::format(
                    "(t_C^p{}{})^(1/p) with p = {}{}", data_powers.empty() ? "" : " + ", data_powers,
                    d.overlap_exponent ? num(*d.overlap_exponent) : std::string("max"), pc_text);
            out += fmt::format("  t = {} = {} ({}); P = flops / t = {} GFLOP/s; C_p = flops / (t x P_peak) = "
                               "{:g} / ({} x {} GFLOP/s) = {}\n",
                               combine, core::format_seconds(p.seconds_per_iteration), p.bottleneck,
                               num(p.gflops), f, core::format_seconds(p.seconds_per_iteration),
                               num(d.peak_gflops), percent_text(p.peak_fraction));
            for (const auto& th : d.thresholds) {
                out += fmt::format(
                    "  {} becomes the bottleneck instead of MEM when D_{} > (B_{} / B_MEM) x D_MEM = {} "
                    "x D_MEM = {}",
                    th.level, th.level, th.level, num(th.bandwidth_ratio), bytes_text(th.bytes_threshold));
                if (th.n_threshold)
                    out +=
                        fmt::format("; in accesses: n_cache > (B_{} / B_MEM - 1) x n_MEM = {} (kernel: {:g})",
                                    th.level, num(*th.n_threshold), *th.n_actual);
                out += "\n";
            }
            for (const auto& v : d.validity)
                out += fmt::format("  validity: {} -> {:g} {} {:g}: {}\n", v.rule, v.value,
                                   v.ok ? "<" : ">=", v.limit, v.ok ? "inside" : "outside validity");
        }
        out += fmt::format("  result: {} GFLOP/s = {} of peak, bottleneck {}{}\n", num(p.gflops),
                           percent_text(p.peak_fraction), p.bottleneck, p.valid ? "" : ", outside validity");
        for (const auto& n : p.notes)
            out += "  " + n + "\n";
    }
    if (!a.models.empty())
        out += fmt::format("\n{}\n", verdict(a));
    return out;
}

nlohmann::json prediction_json(const model::Analysis& a) {
    using nlohmann::json;
    json preds = json::array();
    for (const auto& d : a.models) {
        json p = core::prediction_to_json(d.prediction);
        p.erase("error_pct");
        p["peak_gflops"] = d.peak_gflops;
        p["compute"] = {{"gflops", d.compute.gflops},
                        {"source", d.compute.source},
                        {"seconds_per_iteration", d.compute.seconds_per_iteration}};
        if (d.ridge_intensity)
            p["ridge_intensity"] = *d.ridge_intensity;
        if (!d.ceilings.empty()) {
            json c = json::array();
            for (const auto& ch : d.ceilings)
                c.push_back(
                    {{"name", ch.name}, {"gflops", ch.gflops}, {"below_prediction", ch.below_prediction}});
            p["ceilings"] = c;
        }
        if (d.core_intensity)
            p["core_intensity"] = *d.core_intensity;
        if (!d.residency.empty()) {
            json r = json::object();
            for (const auto& [level, gflops] : d.residency)
                r[level] = gflops;
            p["residency_gflops"] = r;
        }
        if (!d.thresholds.empty()) {
            json t = json::array();
            for (const auto& th : d.thresholds) {
                json e{{"level", th.level},
                       {"bandwidth_ratio", th.bandwidth_ratio},
                       {"bytes_threshold", th.bytes_threshold},
                       {"bytes_actual", th.bytes_actual},
                       {"cache_bound", th.cache_bound}};
                e["n_threshold"] = th.n_threshold ? json(*th.n_threshold) : json(nullptr);
                e["n_actual"] = th.n_actual ? json(*th.n_actual) : json(nullptr);
                t.push_back(e);
            }
            p["thresholds"] = t;
        }
        if (!d.validity.empty()) {
            json v = json::array();
            for (const auto& c : d.validity)
                v.push_back({{"rule", c.rule}, {"value", c.value}, {"limit", c.limit}, {"ok", c.ok}});
            p["validity_checks"] = v;
        }
        preds.push_back(p);
    }
    json out{{"kernel", a.kernel},
             {"machine", a.machine},
             {"threads", a.threads},
             {"precision", a.precision},
             {"flops_per_iteration", a.flops_per_iteration},
             {"bytes_per_iteration", a.traffic.bytes},
             {"traffic_notes", a.traffic.notes},
             {"predictions", preds}};
    out["iterations"] = a.iterations ? json(*a.iterations) : json(nullptr);
    out["verdict"] = verdict(a);
    return out;
}

} // namespace roofcast::report
