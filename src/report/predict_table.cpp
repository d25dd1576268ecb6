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

// The analysis's model that one-line summaries prefer (the registry's summary order).
const model::ModelDetail* verdict_model(const model::Analysis& a) {
    if (a.models.empty())
        return nullptr;
    for (const model::Model* m : model::summary_order())
        for (const auto& d : a.models)
            if (d.prediction.model == m->name)
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
        if (const model::Model* m = model::find_model(p.model); m != nullptr && m->explain != nullptr)
            out += m->explain(d, f);
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
