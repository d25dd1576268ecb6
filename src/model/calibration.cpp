#include "model/calibration.hpp"

#include "core/error.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"
#include "model/overlap.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>

namespace roofcast::model {

namespace {

// 95 % quantile of the chi-square distribution with one degree of freedom (1.96^2).
constexpr double k_chi2_1_95 = 3.841;

// One loop of an exponent fit: its measured log time and its predicted time at an exponent (nullopt: the
// max).
struct ExponentSample {
    std::string kernel;
    double log_t = 0;
    std::function<double(std::optional<double>)> time;
};

// The terms of a loop under the calibrated figures: the data terms of the calibrated levels, and t_C.
struct LoopTerms {
    std::vector<double> data;
    bool last_is_memory = false; // the last data term is memory's (overlap.hpp, CacheOverlap)
    std::optional<double> compute;
};

LoopTerms loop_terms(const OverlapPoint& p, const Calibration& c) {
    LoopTerms t;
    std::optional<double> memory; // memory's term goes last, whatever order the levels were calibrated in
    for (const auto& lc : c.levels) {
        const auto b = p.bytes.find(lc.level);
        if (lc.effective_gbs && b != p.bytes.end() && b->second > 0) {
            const double seconds = b->second / (*lc.effective_gbs * core::k_giga);
            if (lc.level == "MEM")
                memory = seconds;
            else
                t.data.push_back(seconds);
        }
    }
    if (memory) {
        t.data.push_back(*memory);
        t.last_is_memory = true;
    }
    if (c.effective_gflops && p.flops > 0)
        t.compute = p.flops / (*c.effective_gflops * core::k_giga);
    return t;
}

// The least value of `at` over u = ln x, 1 <= x <= k_overlap_p_max: a grid of `grid` steps, then
// golden-section refinement around the best grid point. `grid_index` says where the grid's best lay (grid:
// the upper end).
struct LogSearch {
    double u = 0;
    int grid_index = 0;
};
LogSearch search_ln_exponent(const std::function<double(double)>& at, int grid) {
    const double hi = std::log(k_overlap_p_max);
    int best = 0;
    double best_value = at(0.0);
    for (int i = 1; i <= grid; ++i) {
        const double r = at(hi * i / grid);
        if (r < best_value) {
            best = i;
            best_value = r;
        }
    }
    double a = hi * std::max(0, best - 1) / grid, b = hi * std::min(grid, best + 1) / grid;
    const double g = (std::sqrt(5.0) - 1) / 2;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = at(x1), f2 = at(x2);
    for (int it = 0; it < 60; ++it) {
        if (f1 < f2) { // the minimum lies in [a, x2]
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = at(x1);
        } else { // in [x1, b]
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = at(x2);
        }
    }
    return {(a + b) / 2, best};
}

// The profile interval of an exponent (Seber & Wild 1989, Sec. 5.9): every u = ln x whose rms `at(u)` stays
// within the likelihood-ratio bound of `best_rms` over n loops, n ln(rms^2 / best_rms^2) <= 3.84, found by
// bisection on either side of u_best (the rms is unimodal in u on these loops). High nullopt: the bound
// reaches k_overlap_p_max (unbounded).
struct ProfileInterval {
    bool best_inside = true;
    double low = 1.0;
    std::optional<double> high;
};
ProfileInterval profile_interval(const std::function<double(double)>& at, double u_best, double best_rms,
                                 double n) {
    auto inside = [&](double u) {
        const double r = at(u);
        return r <= best_rms || n * std::log((r * r) / (best_rms * best_rms)) <= k_chi2_1_95;
    };
    auto boundary = [&](double in, double out) { // `in` inside, `out` outside
        for (int it = 0; it < 60; ++it) {
            const double mid = 0.5 * (in + out);
            (inside(mid) ? in : out) = mid;
        }
        return std::exp(in);
    };
    ProfileInterval out;
    const double hi = std::log(k_overlap_p_max);
    if (!inside(u_best)) {
        out.best_inside = false;
        return out;
    }
    out.low = inside(0.0) ? 1.0 : boundary(u_best, 0.0);
    if (!inside(hi))
        out.high = boundary(u_best, hi);
    return out;
}

// The rms log error of the samples' predicted times at exponent p (nullopt: the max).
double rms_log_error(const std::vector<ExponentSample>& samples, std::optional<double> p) {
    double sum = 0;
    for (const auto& s : samples) {
        const double e = s.log_t - std::log(s.time(p));
        sum += e * e;
    }
    return std::sqrt(sum / static_cast<double>(samples.size()));
}

constexpr int k_exponent_grid = 256;

// The exponent of the samples' predicted times with the least squared log error and the loops used, without
// its interval (calibration.hpp, OverlapFit); nullopt without samples.
std::optional<OverlapFit> best_exponent(const std::vector<ExponentSample>& samples) {
    if (samples.empty())
        return std::nullopt;
    const LogSearch found =
        search_ln_exponent([&](double u) { return rms_log_error(samples, std::exp(u)); }, k_exponent_grid);
    OverlapFit f;
    f.rms_log_error_max = rms_log_error(samples, std::nullopt);
    if (found.grid_index < k_exponent_grid) {
        f.exponent = std::exp(found.u);
        f.rms_log_error = rms_log_error(samples, f.exponent);
    } else {
        f.rms_log_error = f.rms_log_error_max;
    }
    for (const auto& s : samples)
        f.used.push_back(s.kernel);
    return f;
}

// best_exponent with its profile interval. One fit for p and for q.
std::optional<OverlapFit> fit_exponent(const std::vector<ExponentSample>& samples) {
    auto best = best_exponent(samples);
    if (!best)
        return std::nullopt;
    OverlapFit& f = *best;
    const double hi = std::log(k_overlap_p_max);
    auto at = [&](double u) { return rms_log_error(samples, std::exp(u)); };
    // The profile interval on either side of the best p. p = k_overlap_p_max inside the bound counts as
    // unbounded: the max fits as well.
    if (samples.size() >= 2) {
        const double best_rms = std::min(f.rms_log_error, f.rms_log_error_max);
        const ProfileInterval iv = profile_interval(at, f.exponent ? std::log(*f.exponent) : hi, best_rms,
                                                    static_cast<double>(samples.size()));
        f.interval_known = true;
        if (!iv.best_inside) {
            f.exponent_low = k_overlap_p_max; // only the max itself fits
        } else {
            f.exponent_low = iv.low;
            if (f.exponent)
                f.exponent_high = iv.high;
        }
    }
    return best;
}

// The cache/cache exponent of `c` where the calibration adopted one.
std::optional<double> cache_exponent(const Calibration& c) {
    return c.cache_overlap ? c.cache_overlap->exponent : std::nullopt;
}

// The loops without extra arithmetic as samples of the data/data exponent p, their terms combined with the
// cache/cache exponent `pc` (absent: one p-norm).
std::vector<ExponentSample> data_samples(const std::vector<OverlapPoint>& points, const Calibration& c,
                                         std::optional<double> pc) {
    std::vector<ExponentSample> samples;
    for (const auto& p : points) {
        if (!(p.seconds_per_iteration > 0) || p.with_compute)
            continue;
        const LoopTerms t = loop_terms(p, c);
        if (t.data.empty() && !t.compute)
            continue;
        const CacheOverlap co{pc, t.last_is_memory};
        samples.push_back({p.kernel, std::log(p.seconds_per_iteration), [t, co](std::optional<double> e) {
                               return mixed_time(t.data, t.compute.value_or(0.0), e, std::nullopt, co);
                           }});
    }
    return samples;
}

} // namespace

std::optional<OverlapFit> fit_overlap(const std::vector<OverlapPoint>& points, const Calibration& c) {
    return fit_exponent(data_samples(points, c, cache_exponent(c)));
}

std::optional<OverlapFit> fit_cache_overlap(const std::vector<OverlapPoint>& points, const Calibration& c) {
    // Only loops with memory's term and at least two cache terms tell pc apart from p.
    bool informative = false;
    for (const auto& p : points)
        if (p.seconds_per_iteration > 0 && !p.with_compute) {
            const LoopTerms t = loop_terms(p, c);
            informative = informative || CacheOverlap{std::nullopt, t.last_is_memory}.splits(t.data);
        }
    if (!informative)
        return std::nullopt;
    // The profile: at each pc the rms log error of the best p (best_exponent); searched on u = ln pc.
    auto profile = [&](double u) {
        const auto f = best_exponent(data_samples(points, c, std::exp(u)));
        return std::min(f->rms_log_error, f->rms_log_error_max);
    };
    const auto one = best_exponent(data_samples(points, c, std::nullopt));
    const double r_one = std::min(one->rms_log_error, one->rms_log_error_max);
    const double u_best = search_ln_exponent(profile, 64).u;
    const double best_r = profile(u_best);
    OverlapFit f;
    f.used = one->used;
    f.rms_log_error = best_r;
    f.rms_log_error_max = r_one; // here: the rms with one p-norm for every data term
    const double n = static_cast<double>(f.used.size());
    // Kept only where it fits significantly better than one exponent (likelihood ratio, one more parameter:
    // n ln(rms_one^2 / rms_pc^2) > 3.84), so a machine whose caches overlap as memory does keeps one p.
    // One p that already fits to rounding (synthetic loops) leaves nothing for pc to explain.
    constexpr double k_exact = 1e-9;
    if (r_one < k_exact ||
        n * std::log((r_one * r_one) / std::max(best_r * best_r, k_exact * k_exact)) <= k_chi2_1_95)
        return f;
    f.exponent = std::exp(u_best);
    if (f.used.size() >= 2) {
        const ProfileInterval iv = profile_interval(profile, u_best, best_r, n);
        f.interval_known = true;
        f.exponent_low = iv.low;
        f.exponent_high = iv.high;
    }
    return f;
}

std::optional<OverlapFit> fit_compute_overlap(const std::vector<OverlapPoint>& points, const Calibration& c) {
    const std::optional<double> p_exp = c.overlap ? c.overlap->exponent : std::nullopt;
    const std::optional<double> pc = cache_exponent(c);
    std::vector<ExponentSample> samples;
    for (const auto& p : points) {
        if (!(p.seconds_per_iteration > 0) || !p.with_compute)
            continue;
        LoopTerms t = loop_terms(p, c);
        if (t.data.empty() || !t.compute)
            continue;
        const CacheOverlap co{pc, t.last_is_memory};
        samples.push_back(
            {p.kernel, std::log(p.seconds_per_iteration), [t, p_exp, co](std::optional<double> e) {
                 return mixed_time(t.data, *t.compute, p_exp, e.value_or(k_overlap_p_max), co);
             }});
    }
    return fit_exponent(samples);
}

std::string overlap_text(const OverlapFit& f, const std::string& name) {
    std::string t = f.exponent ? fmt::format("{} = {:.2f}", name, *f.exponent)
                               : fmt::format("{}: the max (complete overlap)", name);
    if (!f.interval_known)
        return t;
    const bool wide = !f.exponent_high || *f.exponent_high > k_wide_interval_ratio * *f.exponent_low;
    t += fmt::format(", 95 % interval {:.2f}-{}", *f.exponent_low,
                     f.exponent_high ? fmt::format("{:.2f}", *f.exponent_high) : std::string("unbounded"));
    if (wide)
        t += " (poorly determined: the overlap loops do not pin the exponent down, so predictions of mixed "
             "terms lie anywhere between those values)";
    return t;
}

std::string effective_bandwidth_text(const LevelCalibration& lc) {
    if (!lc.effective_gbs)
        return "none";
    std::string t = fmt::format("{:.2f} GB/s", *lc.effective_gbs);
    if (!lc.effective_gbs_half_width)
        return t +
               fmt::format(" (from {} loop{}: no interval)", lc.used.size(), lc.used.size() == 1 ? "" : "s");
    t += fmt::format(" ± {:.2f} (95 %, {} loops)", *lc.effective_gbs_half_width, lc.used.size());
    if (wide_calibration(*lc.effective_gbs, *lc.effective_gbs_half_width))
        t += " (wide)";
    return t;
}

Calibration calibrate(const std::vector<CalibrationPoint>& points, const std::vector<OverlapPoint>& overlap) {
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
        std::vector<double> used_gbs;
        for (const auto* p : pts) {
            if (compute_bound(p) || p->gbs < k_plateau_fraction * best_gbs) {
                lc.excluded.push_back(p->kernel);
            } else {
                lc.used.push_back(p->kernel);
                used_gbs.push_back(p->gbs);
            }
        }
        lc.effective_gbs = core::mean(used_gbs);
        if (used_gbs.size() >= 2) {
            double ss = 0;
            for (const double g : used_gbs)
                ss += (g - *lc.effective_gbs) * (g - *lc.effective_gbs);
            const double n = static_cast<double>(used_gbs.size());
            lc.effective_gbs_half_width =
                core::t_quantile_975(used_gbs.size() - 1) * std::sqrt(ss / (n - 1) / n);
        }
        out.levels.push_back(lc);
    }
    out.cache_overlap = fit_cache_overlap(overlap, out);
    out.overlap = fit_overlap(overlap, out);
    out.compute_overlap = fit_compute_overlap(overlap, out);
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
        it->effective_bandwidth_half_width_gbs = lc.effective_gbs_half_width;
        if (!it->bandwidth_gbs) {
            it->bandwidth_gbs = *lc.effective_gbs;
            it->bandwidth_kernel = "calibration";
            it->source = core::Provenance::calibrated;
        }
        m.notes.push_back(fmt::format("{} effective bandwidth {} calibrated from bandwidth-bound calibration "
                                      "loops ({} threads)",
                                      lc.level, effective_bandwidth_text(lc), c.threads));
    }
    if (c.overlap) {
        m.overlap_exponent = c.overlap->exponent;
        m.overlap_exponent_low = c.overlap->interval_known ? c.overlap->exponent_low : std::nullopt;
        m.overlap_exponent_high = c.overlap->interval_known ? c.overlap->exponent_high : std::nullopt;
        m.notes.push_back(
            c.overlap->exponent
                ? fmt::format("mixed model overlap exponent {} fitted on {} overlap loops ({} threads; rms "
                              "log error {:.3f}, {:.3f} with the max)",
                              overlap_text(*c.overlap), c.overlap->used.size(), c.threads,
                              c.overlap->rms_log_error, c.overlap->rms_log_error_max)
                : fmt::format("mixed model: the {} overlap loops fit complete overlap (the max) best ({} "
                              "threads); {}",
                              c.overlap->used.size(), c.threads, overlap_text(*c.overlap)));
    }
    // A new p without the cache/cache exponent removes an earlier one (p was fitted without it); a
    // calibration that fitted no p leaves both as they were.
    if (c.overlap) {
        m.cache_overlap_exponent = cache_exponent(c);
        m.cache_overlap_exponent_low.reset();
        m.cache_overlap_exponent_high.reset();
        if (const auto& pc = c.cache_overlap; pc && pc->exponent) {
            m.cache_overlap_exponent_low = pc->interval_known ? pc->exponent_low : std::nullopt;
            m.cache_overlap_exponent_high = pc->interval_known ? pc->exponent_high : std::nullopt;
            m.notes.push_back(
                fmt::format("mixed model cache/cache exponent {} fitted with p on {} overlap loops "
                            "({} threads; rms log error {:.3f}, {:.3f} with one exponent for "
                            "every data term)",
                            overlap_text(*pc, "pc"), pc->used.size(), c.threads, pc->rms_log_error,
                            pc->rms_log_error_max));
        } else if (pc) {
            m.notes.push_back(
                fmt::format("mixed model: a cache/cache exponent does not fit the {} overlap loops "
                            "significantly better than one p (rms log error {:.3f} against "
                            "{:.3f}); one p for every data term",
                            pc->used.size(), pc->rms_log_error, pc->rms_log_error_max));
        }
    }
    if (c.compute_overlap) {
        const OverlapFit& q = *c.compute_overlap;
        m.compute_overlap_exponent = q.exponent.value_or(k_overlap_p_max);
        m.compute_overlap_exponent_low = q.interval_known ? q.exponent_low : std::nullopt;
        m.compute_overlap_exponent_high = q.interval_known ? q.exponent_high : std::nullopt;
        const std::string text = overlap_text(q, "q");
        m.notes.push_back(
            fmt::format("mixed model compute/data exponent {} fitted on {} overlap loops with arithmetic ({} "
                        "threads; rms "
                        "log error {:.3f}, {:.3f} with the max)",
                        q.exponent ? text : std::string("q: the max (the arithmetic hides completely)"),
                        q.used.size(), c.threads, q.rms_log_error, q.rms_log_error_max));
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
