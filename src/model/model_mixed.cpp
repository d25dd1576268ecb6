#include "model/model.hpp"

#include "core/units.hpp"
#include "model/calibration.hpp"
#include "model/overlap.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace roofcast::model {

namespace {

// A band of the time per iteration wider than this (either side, relative) makes the prediction
// "uncertain" in its note: the same 10 % that marks a wide effective bandwidth (calibration.hpp).
constexpr double k_wide_band = 0.10;

// The calibration's 95 % intervals carried into the prediction (issue 22 §5: a wide interval is reported,
// never used silently). Slow end: each calibrated effective bandwidth at the lower end of its interval
// and the overlap exponent at its lower end (less overlap); fast end: the upper ends (p unbounded above:
// the max). The band is the box of the intervals, not a joint confidence region.
void add_calibration_band(ModelDetail& d, const ModelContext& c) {
    const core::Machine& m = c.m;
    const bool p_interval = m.overlap_exponent_low.has_value();
    const bool q_interval = m.compute_overlap_exponent && m.compute_overlap_exponent_low.has_value();
    bool any_bandwidth = false;
    std::vector<double> slow;
    std::vector<double> fast;
    bool last_is_memory = false;
    for (const auto& term : d.prediction.terms) {
        if (!term.seconds_per_iteration)
            continue;
        last_is_memory = term.level == "MEM";
        const double t = *term.seconds_per_iteration;
        double t_slow = t;
        double t_fast = t;
        const core::Level* lv = m.level(term.level);
        if (lv && lv->effective_bandwidth_gbs && lv->effective_bandwidth_half_width_gbs &&
            term.bandwidth_gbs && *term.bandwidth_gbs == *lv->effective_bandwidth_gbs) {
            const double b = *lv->effective_bandwidth_gbs;
            const double hw = *lv->effective_bandwidth_half_width_gbs;
            any_bandwidth = true;
            t_slow = b > hw ? t * b / (b - hw) : std::numeric_limits<double>::infinity();
            t_fast = t * b / (b + hw);
        }
        slow.push_back(t_slow);
        fast.push_back(t_fast);
    }
    const bool pc_interval = m.cache_overlap_exponent && m.cache_overlap_exponent_low.has_value();
    if (!p_interval && !q_interval && !pc_interval && !any_bandwidth)
        return;
    // pc's slow end is its lower end (the caches add more); its fast end the upper (unbounded: their max).
    const CacheOverlap pc_slow{pc_interval ? m.cache_overlap_exponent_low : m.cache_overlap_exponent,
                               last_is_memory};
    const CacheOverlap pc_fast{
        pc_interval ? std::optional<double>(m.cache_overlap_exponent_high.value_or(k_overlap_p_max))
                    : m.cache_overlap_exponent,
        last_is_memory};
    const double t = d.prediction.seconds_per_iteration;
    const double t_c = d.compute.seconds_per_iteration;
    // q's upper end absent: unbounded (the max), k_overlap_p_max as the compute/data fit writes it.
    const std::optional<double> q_fast =
        q_interval ? std::optional<double>(m.compute_overlap_exponent_high.value_or(k_overlap_p_max))
                   : m.compute_overlap_exponent;
    const double t_slow =
        mixed_time(slow, t_c, p_interval ? m.overlap_exponent_low : m.overlap_exponent,
                   q_interval ? m.compute_overlap_exponent_low : m.compute_overlap_exponent, pc_slow);
    const double t_fast =
        mixed_time(fast, t_c, p_interval ? m.overlap_exponent_high : m.overlap_exponent, q_fast, pc_fast);
    if (!(t > 0))
        return;
    std::string from;
    // "p 1.21-1.80", "q 1.05-unbounded", joined by commas.
    const auto add_range = [&from](const char* name, double low, std::optional<double> high) {
        from += fmt::format("{}{} {:.2f}-{}", from.empty() ? "" : ", ", name, low,
                            high ? fmt::format("{:.2f}", *high) : std::string("unbounded"));
    };
    if (p_interval)
        add_range("p", *m.overlap_exponent_low, m.overlap_exponent_high);
    if (pc_interval)
        add_range("pc", *m.cache_overlap_exponent_low, m.cache_overlap_exponent_high);
    if (q_interval)
        add_range("q", *m.compute_overlap_exponent_low, m.compute_overlap_exponent_high);
    if (any_bandwidth)
        from += std::string(from.empty() ? "" : ", ") + "effective bandwidths within their half-widths";
    const bool wide = !std::isfinite(t_slow) || t_slow / t - 1 > k_wide_band || 1 - t_fast / t > k_wide_band;
    const bool bounded = std::isfinite(t_slow);
    d.prediction.notes.push_back(fmt::format(
        "{}calibration's 95 % intervals ({}): {}-{} per iteration, {:+.1f} % to {} of the prediction",
        wide ? "uncertain: the " : "the ", from, core::format_seconds(t_fast),
        bounded ? core::format_seconds(t_slow) : std::string("unbounded"), (t_fast / t - 1) * 100,
        bounded ? fmt::format("{:+.1f} %", (t_slow / t - 1) * 100) : std::string("unbounded")));
}

// Mixed memory+cache model: t = max(t_MEM, t_L3, t_L2, t_C), t_level = D_level / B_level,
// t_C = flops / P_eff; P = flops / t; C_p = flops / (t * P_peak). L1 is not timed; the L1-reuse
// validity limits of the machine file apply instead (defaults: memory-bound L1_short < 10 n_MEM and
// L1_long < 8 (n_MEM + n_cache); cache-bound L1_long < n_MEM + n_cache). Switch from memory- to
// cache-bound where t_cache = t_MEM, i.e. n_cache = (B_cache / B_MEM - 1) * n_MEM. With a calibrated
// overlap exponent p in the machine file the terms combine as (sum t_i^p)^(1/p) instead of the max
// (overlap.hpp; the max is its limit p -> infinity).
ModelDetail mixed(const ModelContext& c) {
    ModelDetail d = start_detail(c, "mixed", true);
    const auto& levels = c.m.levels;
    const bool l1_untimed = levels.size() > 1;
    for (std::size_t i = 0; i < levels.size(); ++i)
        d.prediction.terms.push_back(term_for(c, levels[i], true, !(l1_untimed && i == 0)));
    finish(d, c);
    if (c.m.overlap_exponent || c.m.compute_overlap_exponent || c.m.cache_overlap_exponent) {
        // Partial overlap (overlap.hpp, mixed_time): t = (t_C^p + sum t_level^p)^(1/p), or with a
        // compute/data exponent q, ((sum t_level^p)^(q/p) + t_C^q)^(1/q); the bottleneck stays the largest
        // term.
        // With a cache/cache exponent pc, the caches' terms combine first: (t_MEM^p + (sum_cache
        // t_level^pc)^(p/pc))^(1/p) in place of the sum of t_level^p (overlap.hpp, CacheOverlap).
        core::Prediction& p = d.prediction;
        const DataTerms data = data_terms(p);
        const double t_max = p.seconds_per_iteration;
        const CacheOverlap cache{c.m.cache_overlap_exponent, data.last_is_memory};
        const double t = mixed_time(data.seconds, d.compute.seconds_per_iteration, c.m.overlap_exponent,
                                    c.m.compute_overlap_exponent, cache);
        d.overlap_exponent = c.m.overlap_exponent;
        d.compute_overlap_exponent = c.m.compute_overlap_exponent;
        const bool pc_used = cache.applies(data.seconds);
        if (pc_used)
            d.cache_overlap_exponent = cache.exponent;
        set_time(d, c, t);
        const std::string p_text =
            (c.m.overlap_exponent ? fmt::format("p = {:.3g}", *c.m.overlap_exponent)
                                  : std::string("p = max")) +
            (pc_used ? fmt::format(" (caches among themselves pc = {:.3g})", *cache.exponent)
                     : std::string());
        p.notes.push_back(
            c.m.compute_overlap_exponent
                ? fmt::format(
                      "terms overlap partially: t = ((sum of t_level^p)^(q/p) + t_C^q)^(1/q) with {}, "
                      "q = {:.3g} (machine file) = {:.4g} ns, {:+.1f} % over the largest term ({:.4g} ns)",
                      p_text, *c.m.compute_overlap_exponent, t * 1e9, (t / t_max - 1) * 100, t_max * 1e9)
                : fmt::format("terms overlap partially: t = (sum of t_i^p)^(1/p) with {} (machine "
                              "file) = {:.4g} ns, {:+.1f} % over the largest term ({:.4g} ns)",
                              p_text, t * 1e9, (t / t_max - 1) * 100, t_max * 1e9));
    }
    add_calibration_band(d, c);
    if (l1_untimed)
        d.prediction.notes.push_back(levels.front().name +
                                     " is not timed: its reuse is covered by the validity limits");

    const core::LevelTerm& mem = d.prediction.terms.back();
    const auto& acc = c.traffic.accesses;
    auto count = [&](const std::string& key) -> std::optional<double> {
        auto it = acc.find(key);
        if (acc.empty())
            return std::nullopt;
        return it == acc.end() ? 0.0 : it->second;
    };
    const auto n_mem = count("MEM");
    double n_cache_total = 0;
    double n_through = 0;
    double t_cache_max = 0;
    for (std::size_t i = levels.size() - 1; i-- > (l1_untimed ? 1 : 0);) {
        const core::LevelTerm& term = d.prediction.terms[i];
        Threshold th;
        th.level = term.level;
        th.bandwidth_ratio = *term.bandwidth_gbs / *mem.bandwidth_gbs;
        th.bytes_actual = term.bytes_per_iteration;
        th.bytes_threshold = th.bandwidth_ratio * mem.bytes_per_iteration;
        th.cache_bound = th.bytes_actual > th.bytes_threshold;
        if (n_mem) {
            n_through += *count(term.level);
            th.n_actual = n_through;
            th.n_threshold = (th.bandwidth_ratio - 1) * *n_mem;
        }
        n_cache_total = n_through;
        t_cache_max = std::max(t_cache_max, term.seconds_per_iteration.value_or(0.0));
        d.thresholds.push_back(th);
    }
    std::reverse(d.thresholds.begin(), d.thresholds.end());

    const bool memory_bound = mem.seconds_per_iteration.value_or(0.0) >= t_cache_max * (1 - k_tie);
    const auto l1_short = count("L1_short");
    const auto l1_long = count("L1_long");
    if (n_mem && l1_short && l1_long) {
        const core::ValidityLimits& v = c.m.validity;
        if (memory_bound) {
            d.validity.push_back({fmt::format("L1_short < {:g} x n_MEM", v.l1_short_per_mem), *l1_short,
                                  v.l1_short_per_mem * *n_mem, *l1_short < v.l1_short_per_mem * *n_mem});
            d.validity.push_back({fmt::format("L1_long < {:g} x (n_MEM + n_cache)", v.l1_long_per_traffic),
                                  *l1_long, v.l1_long_per_traffic * (*n_mem + n_cache_total),
                                  *l1_long < v.l1_long_per_traffic * (*n_mem + n_cache_total)});
        } else {
            d.validity.push_back({fmt::format("L1_long < {:g} x (n_MEM + n_cache)", v.l1_long_cache_bound),
                                  *l1_long, v.l1_long_cache_bound * (*n_mem + n_cache_total),
                                  *l1_long < v.l1_long_cache_bound * (*n_mem + n_cache_total)});
        }
        for (const auto& chk : d.validity) {
            if (!chk.ok) {
                d.prediction.valid = false;
                d.prediction.notes.push_back(
                    fmt::format("outside validity ({}-bound): {} fails, {:g} >= {:g}",
                                memory_bound ? "memory" : "cache", chk.rule, chk.value, chk.limit));
            }
        }
    } else {
        d.prediction.notes.push_back(
            "L1 reuse counts unknown for this kernel form: validity limits not checked");
    }
    return d;
}

// How the terms combine, as the model combines them: max; one p-norm with t_C; or the data terms' p-norm
// combined with t_C by q (model/overlap.hpp, mixed_time). With a cache/cache exponent pc the caches' terms
// form one pc-norm first ("t_MEM^p + (t_L2^pc + t_L3^pc)^(p/pc)"; CacheOverlap).
std::string combination_text(const ModelDetail& d) {
    std::string names = "t_C";
    std::string data_powers;  // "t_L2^p + t_MEM^p"
    std::string cache_powers; // "t_L2^pc + t_L3^pc"
    for (const auto& t : d.prediction.terms)
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
        pc_text = ", pc = " + explain_number(*d.cache_overlap_exponent);
    }
    const std::string p_text = d.overlap_exponent ? explain_number(*d.overlap_exponent) : std::string("max");
    if (d.compute_overlap_exponent)
        return fmt::format("(({})^(q/p) + t_C^q)^(1/q) with p = {}{}, q = {}", data_powers, p_text, pc_text,
                           explain_number(*d.compute_overlap_exponent));
    if (d.overlap_exponent || d.cache_overlap_exponent)
        return fmt::format("(t_C^p{}{})^(1/p) with p = {}{}", data_powers.empty() ? "" : " + ", data_powers,
                           p_text, pc_text);
    return fmt::format("max({})", names);
}

std::string explain_mixed(const ModelDetail& d, double f) {
    const core::Prediction& p = d.prediction;
    std::string out = fmt::format("  t_C = flops / P_eff = {:g} / {} GFLOP/s ({}) = {}\n", f,
                                  explain_number(d.compute.gflops), d.compute.source,
                                  core::format_seconds(d.compute.seconds_per_iteration));
    for (const auto& t : p.terms) {
        if (!t.seconds_per_iteration) {
            out += fmt::format("  {}: not timed ({} moved; L1 reuse is judged by the validity limits)\n",
                               t.level, explain_bytes(t.bytes_per_iteration));
            continue;
        }
        out += fmt::format("  t_{} = D / B = {} / {} GB/s ({}) = {}\n", t.level,
                           explain_bytes(t.bytes_per_iteration), explain_number(*t.bandwidth_gbs),
                           t.bandwidth_source, core::format_seconds(*t.seconds_per_iteration));
    }
    out += fmt::format("  t = {} = {} ({}); P = flops / t = {} GFLOP/s; C_p = flops / (t x P_peak) = "
                       "{:g} / ({} x {} GFLOP/s) = {}\n",
                       combination_text(d), core::format_seconds(p.seconds_per_iteration), p.bottleneck,
                       explain_number(p.gflops), f, core::format_seconds(p.seconds_per_iteration),
                       explain_number(d.peak_gflops), explain_percent(p.peak_fraction));
    for (const auto& th : d.thresholds) {
        out +=
            fmt::format("  {} becomes the bottleneck instead of MEM when D_{} > (B_{} / B_MEM) x D_MEM = {} "
                        "x D_MEM = {}",
                        th.level, th.level, th.level, explain_number(th.bandwidth_ratio),
                        explain_bytes(th.bytes_threshold));
        if (th.n_threshold)
            out += fmt::format("; in accesses: n_cache > (B_{} / B_MEM - 1) x n_MEM = {} (kernel: {:g})",
                               th.level, explain_number(*th.n_threshold), *th.n_actual);
        out += "\n";
    }
    for (const auto& v : d.validity)
        out += fmt::format("  validity: {} -> {:g} {} {:g}: {}\n", v.rule, v.value,
                           v.ok ? "<" : ">=", v.limit, v.ok ? "inside" : "outside validity");
    return out;
}

} // namespace

extern const Model k_mixed_model{
    "mixed",
    "t = max(t_MEM, t_caches, t_C), t_level = D_level / B_level, t_C = flops / P_eff",
    "memory and cache access mixed in one loop",
    0,
    mixed,
    explain_mixed};

} // namespace roofcast::model
