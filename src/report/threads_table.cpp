#include "report/threads_table.hpp"
#include "core/units.hpp"
#include "report/format.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace roofcast::report {

using namespace model::threads;

namespace {

using json = nlohmann::json;

// Sizes: [lo, hi). Thread counts: θ's first segment is [1, hi], later ones (lo, hi].
std::string range_text(const Regime& r) {
    if (r.name.rfind("theta", 0) == 0) {
        const std::string open = r.lo <= 1.0 ? fmt::format("s [1, ") : fmt::format("s ({:g}, ", r.lo);
        return open + (std::isinf(r.hi) ? std::string("inf)") : fmt::format("{:g}]", r.hi));
    }
    return std::isinf(r.hi) ? fmt::format("n [{:.4g}, inf)", r.lo)
                            : fmt::format("n [{:.4g}, {:.4g})", r.lo, r.hi);
}

json model_json(const ModelReport& m) {
    json regimes = json::array();
    if (m.model)
        for (const auto& r : m.model->regimes) {
            json ps = json::array();
            for (const auto& p : r.parameters)
                ps.push_back(
                    {{"name", p.name}, {"value", p.value}, {"unit", p.unit}, {"meaning", p.meaning}});
            regimes.push_back({{"name", r.name},
                               {"lo", r.lo},
                               {"hi", json_or_null(r.hi)},
                               {"points", r.points},
                               {"parameters", ps}});
        }
    json preds = json::array();
    for (const auto& p : m.predictions)
        preds.push_back({{"x", {{"n", p.n}, {"s", p.s}}},
                         {"value", json_or_null(p.value)},
                         {"lo", json_or_null(p.lo)},
                         {"hi", json_or_null(p.hi)}});
    json j{{"name", m.name},
           {"formula", m.formula},
           {"citation", m.citation},
           {"mean_error", m.mean_error},
           {"max_error", m.max_error},
           {"max_error_steady", json_or_null(m.max_error_steady)},
           {"within_range", m.within_range},
           {"within_tolerance", m.within_tolerance},
           {"max_beyond_range", m.max_beyond_range},
           {"evaluated", m.evaluated},
           {"regimes", regimes},
           {"predictions", preds},
           {"notes", m.notes}};
    if (m.model) {
        j["breaks"] = {{"s", m.model->s_breaks},
                       {"n", m.model->n_breaks},
                       {"memory_from", json_or_null(m.model->memory_from)}};
        json bw = json::array();
        for (const auto& [s, g] : m.model->bandwidth_gbs)
            bw.push_back({{"threads", s}, {"gbs", g}});
        j["bandwidth_gbs"] = bw;
        j["rel_sigma"] = m.model->rel_sigma;
    }
    return j;
}

} // namespace

std::string threads_json(const ThreadsAnalysis& a) {
    json j{{"format", "roofcast-threads"}, {"format_version", 1}, {"holdout", a.holdout}};
    j.update(data_to_json(a.data));
    for (std::size_t i = 0; i < a.series.size() && i < j["series"].size(); ++i) {
        const SeriesAnalysis& s = a.series[i];
        json& out = j["series"][i];
        out["fitted"] = s.fitted;
        out["held_out"] = s.held_out;
        out["noise_floor"] = s.noise_floor;
        out["noisy_points"] = s.noisy;
        out["notes"] = s.notes;
        json models = json::array();
        for (const auto& m : s.models)
            models.push_back(model_json(m));
        out["models"] = models;
        out["predictions"] = models.front()["predictions"];
        json best = json::array();
        for (const auto& b : s.best)
            best.push_back({{"n", b.n},
                            {"best_s", b.best_s},
                            {"value", b.best_value},
                            {"all_threads", b.all_threads},
                            {"all_threads_value", b.all_value},
                            {"gain", b.gain},
                            {"measured_best_s", b.measured_best_s ? json(*b.measured_best_s) : json(nullptr)},
                            {"measured_best", json_or_null(b.measured_best)},
                            {"measured_at_best_s", json_or_null(b.measured_at_predicted)},
                            {"within_5pct", b.within_5pct ? json(*b.within_5pct) : json(nullptr)}});
        out["best"] = best;
    }
    return j.dump(2) + "\n";
}

std::string threads_text(const ThreadsAnalysis& a) {
    const Context& c = a.data.context;
    std::string out;
    out += fmt::format("roofcast threads: {}{}\n", c.kernel == "command" ? "program " : "kernel ",
                       c.kernel == "command" ? a.data.command : c.kernel);
    out += fmt::format("machine: {}; {} cores, {} hardware threads; caches:", c.machine_source, c.cores,
                       c.hw_threads);
    for (const auto& k : c.caches)
        out +=
            fmt::format(" {} {} (n = {:.4g})", k.name, core::format_size(k.bytes), k.bytes / c.bytes_per_n);
    out += fmt::format("; {:g} working-set bytes per element\n", c.bytes_per_n);
    out += fmt::format("memory bandwidth B(s): {}\n", c.bandwidth_source.empty() ? "-" : c.bandwidth_source);
    for (std::size_t i = 0; i < a.series.size(); ++i) {
        const SeriesAnalysis& s = a.series[i];
        const model::threads::Series& d = a.data.series[i];
        out += fmt::format("\n== {} ==\n", s.api);
        // Measured medians as a matrix: sizes down, thread counts across.
        std::set<int> ss;
        std::map<std::pair<double, int>, const Measurement*> at;
        std::set<double> ns;
        for (const auto& p : d.points) {
            ss.insert(p.s);
            ns.insert(p.n);
            at[{p.n, p.s}] = &p;
        }
        out +=
            fmt::format("measured T(n,s) [s], median over the samples (* = NOISY: interquartile spread above "
                        "{}, the outlier fence of this series' spreads; - = not measured):\n",
                        percent_text(s.noise_floor));
        out += fmt::format("{:>12}", "n \\ s");
        for (const int t : ss)
            out += fmt::format(" {:>10}", t);
        out += "\n";
        for (const double n : ns) {
            out += fmt::format("{:>12.5g}", n);
            for (const int t : ss) {
                const auto it = at.find({n, t});
                out += it == at.end() ? fmt::format(" {:>10}", "-")
                                      : fmt::format(" {:>9.3e}{}", it->second->seconds.median,
                                                    it->second->seconds.noisy ? "*" : " ");
            }
            out += "\n";
        }
        std::size_t samples = 0;
        double worst = 0.0;
        for (const auto& p : d.points) {
            samples = std::max(samples, p.seconds.n);
            worst = std::max(worst, p.seconds.spread.value_or(0.0));
        }
        out += fmt::format("({} points, up to {} samples each, largest spread (max-min)/median {})\n",
                           d.points.size(), samples, percent_text(worst));
        out += fmt::format(
            "\nmodels ({} on {} points; errors |model - median| / median on {}):\n", "fitted", s.fitted,
            s.held_out > 0 ? fmt::format("{} held-out points", s.held_out) : "the fitted points");
        for (const auto& m : s.models) {
            out += fmt::format("  {:<12} mean {:>7}  max {:>7} (steady points {:>7}; inside the point's own "
                               "min-max at {} of {}, inside or at most 10 % beyond it at {}, at most {} "
                               "outside it)  {}\n",
                               m.name, percent_text(m.mean_error), percent_text(m.max_error),
                               m.max_error_steady ? percent_text(*m.max_error_steady) : std::string("n/a"),
                               m.within_range, m.evaluated, m.within_tolerance,
                               percent_text(m.max_beyond_range), m.formula);
            out += fmt::format("  {:<12} ({})\n", "", m.citation);
            if (m.model)
                for (const auto& r : m.model->regimes) {
                    out += fmt::format("    {:<16} {:<24} {:>4} pts:", r.name, range_text(r), r.points);
                    for (const auto& p : r.parameters)
                        out += fmt::format(" {} = {:.4g} {}", p.name, p.value, p.unit);
                    out += "\n";
                }
            for (const auto& note : m.notes)
                out += fmt::format("    note: {}\n", note);
        }
        if (!a.series[i].models.empty() && a.series[i].models.front().model) {
            out +=
                "  parameters: fixed(lo), fixed(hi) = time of a call with no work, T(0, s), at the segment's "
                "first and last s; a, b = T_seq intercept and time per element of one "
                "thread, rate = "
                "bytes_per_n / b;\n  gamma = time / (bytes / B(s)) above the last cache (1: streams at "
                "B(s)), "
                "alpha = time per element there, beta = fixed cost there\n";
        }
        if (!d.overhead.empty() && s.models.front().model) {
            out += "\nθ(s) measured on its own (no work: an empty parallel region, or create + join) against "
                   "the roofcast fit's call with no work, T(0, s):\n";
            for (const auto& o : d.overhead)
                out += fmt::format(
                    "  s={:<4} measured {:.3e} s (min {:.3e}, max {:.3e}, n {}){}   fitted {:.3e} s\n", o.s,
                    o.seconds.median, o.seconds.min, o.seconds.max, o.seconds.n,
                    o.seconds.noisy ? " NOISY" : "", s.models.front().model->fixed_cost(o.s));
        }
        if (!a.targets.empty()) {
            out += "\npredictions (95 % interval):\n";
            for (const auto& m : s.models)
                for (const auto& p : m.predictions)
                    out += fmt::format("  {:<12} n={:<10.5g} s={:<4} {:.4e} s  [{}, {}]\n", m.name, p.n, p.s,
                                       p.value, p.lo ? fmt::format("{:.4e}", *p.lo) : "n/a",
                                       p.hi ? fmt::format("{:.4e}", *p.hi) : "n/a");
        }
        out +=
            fmt::format("\nbest thread count per size ({} model; gain = time with all {} hardware threads / "
                        "time with the best s - 1):\n",
                        s.models.front().name, c.hw_threads);
        out += fmt::format("{:>12} {:>6} {:>11} {:>11} {:>8} {:>10} {:>11}\n", "n", "best s", "predicted",
                           "all thr.", "gain", "meas. best", "within 5 %");
        for (const auto& b : s.best)
            out += fmt::format("{:>12.5g} {:>6} {:>11.4e} {:>11.4e} {:>8} {:>10} {:>11}\n", b.n, b.best_s,
                               b.best_value, b.all_value, percent_text(b.gain),
                               b.measured_best_s ? fmt::format("{}", *b.measured_best_s) : "-",
                               b.within_5pct ? (*b.within_5pct ? "yes" : "NO") : "-");
        for (const auto& note : s.notes)
            out += fmt::format("note: {}\n", note);
    }
    return out;
}

} // namespace roofcast::report
