#include "analysis/threads/time_model.hpp"

#include "analysis/scale/fit.hpp"
#include "analysis/threads/fit_detail.hpp"
#include "core/error.hpp"
#include "core/names.hpp"
#include "core/stats.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <set>

namespace roofcast::model::threads::detail {

double hinge(double x, double b) {
    return std::max(0.0, x - b);
}

bool in_memory(const ThreadsModel& m, double n, double s) {
    return m.memory_from && n >= *m.memory_from * m.capacity_scale(m.memory_instances, s);
}

std::vector<double> design_row(const ThreadsModel& m, double n, double s) {
    std::vector<double> r{1.0, s};
    for (const double b : m.s_breaks)
        r.push_back(hinge(s, b));
    if (m.oversubscription_step)
        r.push_back(s > m.hw_threads ? 1.0 : 0.0);
    const bool mem = in_memory(m, n, s);
    // The roofcast memory regime continues the cache regimes: the first n_b elements (the break at s threads)
    // cost what they cost in the last cache, the elements beyond it stream from memory (a victim cache of
    // n_b elements serves n_b of them whatever the working set, so the time bends at n_b rather than jumping
    // to a separate line). Doda's doda-memory keeps its own line α·n + β.
    const bool continued = mem && m.kind == Kind::roofcast;
    const double at = continued ? *m.memory_from * m.capacity_scale(m.memory_instances, s) : n;
    const double c = mem && !continued ? 0.0 : m.work_share(s);
    if (m.tseq_intercept)
        r.push_back(c);
    r.push_back(c * at);
    for (std::size_t k = 0; k < m.n_breaks.size(); ++k)
        r.push_back(c * hinge(at, m.n_breaks[k] * m.capacity_scale(m.n_break_instances[k], s)));
    // Contention in a shared cache: every element beyond the break costs d more per further core on one
    // instance (time_model.hpp; zero at one core, so T_seq keeps its one-thread meaning).
    if (const auto k = m.contention_break())
        r.push_back(c * (m.cores_beyond(*k, s) - 1.0) *
                    hinge(at, m.n_breaks[*k] * m.capacity_scale(m.n_break_instances[*k], s)));
    if (m.memory_from) {
        const double x = m.kind == Kind::roofcast ? (n - at) * m.bytes_per_n / (m.memory_rate(s) * 1e9) : n;
        r.push_back(mem ? x : 0.0);
        r.push_back(mem ? 1.0 : 0.0);
    }
    return r;
}

Eigen::MatrixXd scaled_design(const ThreadsModel& m, const std::vector<Measurement>& pts,
                              Eigen::VectorXd& norms) {
    const std::size_t cols = design_row(m, pts.front().n, pts.front().s).size();
    Eigen::MatrixXd base(static_cast<Eigen::Index>(pts.size()), static_cast<Eigen::Index>(cols));
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double w = 1.0 / pts[i].seconds.median;
        const auto r = design_row(m, pts[i].n, pts[i].s);
        for (std::size_t j = 0; j < cols; ++j)
            base(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = r[j] * w;
    }
    // Columns span decades (1, s, n/s, bytes/B): scale them to unit norm so the rank test is meaningful.
    norms = base.colwise().norm().transpose();
    for (Eigen::Index j = 0; j < norms.size(); ++j)
        if (norms(j) > 0)
            base.col(j) /= norms(j);
    return base;
}

std::size_t design_rank(const ThreadsModel& m, const std::vector<Measurement>& pts) {
    Eigen::VectorXd norms;
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(scaled_design(m, pts, norms));
    qr.setThreshold(k_rank_threshold);
    return static_cast<std::size_t>(qr.rank());
}

} // namespace roofcast::model::threads::detail

namespace roofcast::model::threads {

using detail::hinge;
using detail::in_memory;
using detail::k_inf;

namespace {

// Relative residuals (model − median)/median of every point.
std::vector<double> relative_residuals(const ThreadsModel& m, const std::vector<Measurement>& pts) {
    std::vector<double> r;
    for (const auto& p : pts)
        r.push_back((m.evaluate(p.n, p.s) - p.seconds.median) / p.seconds.median);
    return r;
}

// Weighted least squares of the model's coefficients on relative residuals (weights 1/median), made
// robust by iteratively reweighted least squares with Huber's weights (Huber, "Robust estimation of a
// location parameter", Ann. Math. Statist. 35(1), 1964; k = 1.345, scale 1.4826·MAD): on a shared host a
// few points disturbed by other processes (a thread descheduled for a time slice) would otherwise pull
// every regime. Returns the sum of |relative residuals| (what the break refinement compares).
double solve(ThreadsModel& m, const std::vector<Measurement>& pts) {
    const std::size_t cols = detail::design_row(m, pts.front().n, pts.front().s).size();
    const auto rows = static_cast<Eigen::Index>(pts.size());
    Eigen::VectorXd norms;
    const Eigen::MatrixXd base = detail::scaled_design(m, pts, norms);
    Eigen::VectorXd huber = Eigen::VectorXd::Ones(rows);
    for (int iteration = 0; iteration < 30; ++iteration) {
        Eigen::MatrixXd a = huber.cwiseSqrt().asDiagonal() * base;
        Eigen::VectorXd y = huber.cwiseSqrt();
        Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
        qr.setThreshold(detail::k_rank_threshold);
        if (static_cast<std::size_t>(qr.rank()) < cols)
            throw core::InputError(
                "", "sizes_threads",
                fmt::format("expected points that determine the {} model ({} parameters, rank {} once "
                            "weighted)",
                            to_string(m.kind), cols, qr.rank()));
        const Eigen::VectorXd c = qr.solve(y);
        std::vector<double> coef(cols, 0.0);
        for (std::size_t j = 0; j < cols; ++j)
            coef[j] = norms(static_cast<Eigen::Index>(j)) > 0
                          ? c(static_cast<Eigen::Index>(j)) / norms(static_cast<Eigen::Index>(j))
                          : 0.0;
        const bool settled = !m.coef.empty() && m.coef.size() == cols &&
                             std::equal(coef.begin(), coef.end(), m.coef.begin(), [](double x, double y) {
                                 return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
                             });
        m.coef = std::move(coef);
        if (settled && iteration > 0)
            break;
        std::vector<double> r = relative_residuals(m, pts);
        std::vector<double> abs_r;
        for (const double v : r)
            abs_r.push_back(std::abs(v));
        const double scale = 1.4826 * core::median(abs_r).value_or(0.0);
        if (!(scale > 1e-12))
            break; // (nearly) exact fit: nothing to down-weight
        for (Eigen::Index i = 0; i < rows; ++i) {
            const double u = std::abs(r[static_cast<std::size_t>(i)]) / (1.345 * scale);
            huber(i) = u <= 1.0 ? 1.0 : 1.0 / u;
        }
    }
    m.dof = pts.size() > cols ? pts.size() - cols : 0;
    double sum = 0.0;
    for (const double v : relative_residuals(m, pts))
        sum += std::abs(v);
    return sum;
}

std::vector<std::pair<int, double>> bandwidth_from_sweep(const std::vector<Measurement>& pts, double bpn) {
    // B(s) = bytes of the largest size / its median time, per thread count (docs/threads.md).
    std::vector<std::pair<int, double>> out;
    std::set<int> ss;
    for (const auto& p : pts)
        ss.insert(p.s);
    for (const int s : ss) {
        const Measurement* best = nullptr;
        for (const auto& p : pts)
            if (p.s == s && (!best || p.n > best->n))
                best = &p;
        out.emplace_back(s, best->n * bpn / best->seconds.median / 1e9);
    }
    return out;
}

// The design's column layout (design_row()): θ's columns first (θ0, θ1, one hinge per s break, the
// oversubscription step), then T_seq's (intercept unless merged into θ, slope, one hinge per n break), then
// the contention term and the memory regime's. T_seq's slope in cache regime k (0 = below the first break)
// at one thread is its slope plus the first k hinges'.
std::size_t tseq_slope_column(const ThreadsModel& m) {
    return 2 + m.s_breaks.size() + (m.oversubscription_step ? 1 : 0) + (m.tseq_intercept ? 1 : 0);
}

// T_seq(0): its intercept, or 0 where it was merged into θ(s) (determine()).
double tseq_intercept_value(const ThreadsModel& m) {
    return m.tseq_intercept ? m.coef[tseq_slope_column(m) - 1] : 0.0;
}

double tseq_slope(const ThreadsModel& m, std::size_t k) {
    const std::size_t t = tseq_slope_column(m);
    double slope = m.coef[t];
    for (std::size_t q = 0; q < k; ++q)
        slope += m.coef[t + 1 + q];
    return slope;
}

void describe(ThreadsModel& m, const std::vector<Measurement>& pts) {
    const auto& c = m.coef;
    m.regimes.clear();
    for (std::size_t k = 0; k <= m.s_breaks.size(); ++k) {
        const double lo = k == 0 ? 1.0 : m.s_breaks[k - 1];
        const double hi = k < m.s_breaks.size() ? m.s_breaks[k] : k_inf;
        std::size_t n_pts = 0;
        double last = lo; // the segment's last thread count: its bound, or the largest measured beyond lo
        for (const auto& p : pts) {
            n_pts += (p.s > lo || k == 0) && p.s <= hi;
            if (p.s <= hi)
                last = std::max(last, static_cast<double>(p.s));
        }
        if (!std::isinf(hi))
            last = hi;
        m.regimes.push_back(
            {fmt::format("theta {}", k == 0           ? fmt::format("s<={:g}", hi)
                                     : std::isinf(hi) ? fmt::format("s>{:g}", lo)
                                                      : fmt::format("{:g}<s<={:g}", lo, hi)),
             lo,
             hi,
             n_pts,
             {{"fixed(lo)", m.fixed_cost(lo), "s",
               "time of a call with no work at the segment's first thread count, T(0, s) = θ(s) + "
               "T_seq(0)·share(s): thread start/join and the call's constant part"},
              {"fixed(hi)", m.fixed_cost(last), "s",
               fmt::format("the same at the segment's last thread count (s = {:g})", last)}}});
    }
    if (m.oversubscription_step) {
        std::size_t n_pts = 0;
        for (const auto& p : pts)
            n_pts += p.s > m.hw_threads;
        m.regimes.push_back({fmt::format("theta step s>{}", m.hw_threads),
                             static_cast<double>(m.hw_threads),
                             k_inf,
                             n_pts,
                             {{"step", c[2 + m.s_breaks.size()], "s",
                               "added once the threads outnumber the hardware threads (a region's end waits "
                               "for threads the scheduler has taken off their core)"}}});
    }
    const std::size_t j = tseq_slope_column(m);
    for (std::size_t k = 0; k <= m.n_breaks.size(); ++k) {
        const double lo = k == 0 ? 0.0 : m.n_breaks[k - 1];
        const double hi = k < m.n_breaks.size() ? m.n_breaks[k] : m.memory_from.value_or(k_inf);
        const double tslope = tseq_slope(m, k);
        // T_seq at the regime start, then its intercept a_k = T_seq(lo) - slope·lo.
        double tseq_lo = tseq_intercept_value(m) + c[j] * lo;
        for (std::size_t q = 0; q < m.n_breaks.size(); ++q)
            tseq_lo += c[j + 1 + q] * hinge(lo, m.n_breaks[q]);
        std::size_t n_pts = 0;
        for (const auto& p : pts)
            n_pts += p.n >= lo && p.n < hi;
        m.regimes.push_back(
            {m.n_names[k],
             lo,
             hi,
             n_pts,
             {{"a", tseq_lo - tslope * lo, "s", "T_seq intercept (fixed cost of one thread's work)"},
              {"b", tslope, "s/element", "T_seq slope (time per element, one thread)"},
              {"rate", tslope > 0 ? m.bytes_per_n / tslope / 1e9 : 0.0, "GB/s",
               "working-set bytes per second of one thread (bytes_per_n / b)"}}});
    }
    if (const auto k = m.contention_break()) {
        const double d = c[j + 1 + m.n_breaks.size()];
        const double b = tseq_slope(m, *k + 1);
        m.regimes[m.regimes.size() - m.n_breaks.size() + *k].parameters.push_back(
            {"contention", d, "s/element",
             fmt::format("added time per element for each further core sharing this cache (Gunther's "
                         "contention sigma = contention / b = {:.3g})",
                         b > 0 ? d / b : 0.0)});
    }
    if (m.memory_from) {
        const std::size_t q = j + 1 + m.n_breaks.size() + (m.contention_break() ? 1 : 0);
        std::size_t n_pts = 0;
        for (const auto& p : pts)
            n_pts += p.n >= *m.memory_from;
        if (m.kind == Kind::roofcast) {
            m.regimes.push_back(
                {"MEM",
                 *m.memory_from,
                 k_inf,
                 n_pts,
                 {{"gamma", c[q], "1",
                   "time / (bytes beyond the break / B(s)): 1 when the kernel streams at B(s)"},
                  {"beta", c[q + 1], "s", "step at the break into memory"}}});
            if (m.core_gbs)
                m.regimes.back().parameters.push_back(
                    {"core_rate", *m.core_gbs, "GB/s",
                     "one core's rate in the last cache: B(s) is capped at min(s, cores) times it"});
        } else
            m.regimes.push_back({"MEM",
                                 *m.memory_from,
                                 k_inf,
                                 n_pts,
                                 {{"alpha", c[q], "s/element", "time per element, independent of s"},
                                  {"beta", c[q + 1], "s", "fixed cost in the memory regime"}}});
    }
}

ThreadsModel initial(Kind kind, const Context& ctx, const std::vector<Measurement>& pts) {
    ThreadsModel m;
    m.kind = kind;
    m.bytes_per_n = ctx.bytes_per_n;
    m.hw_threads = std::max(ctx.hw_threads, ctx.cores);
    m.cores = std::max(1, ctx.cores);
    if (ctx.cores >= 1) {
        m.s_breaks.push_back(ctx.cores);
        m.s_names.push_back("cores");
    }
    if (ctx.hw_threads > ctx.cores) {
        m.s_breaks.push_back(ctx.hw_threads);
        m.s_names.push_back("hw threads");
    }
    std::vector<Cache> caches = ctx.caches;
    std::sort(caches.begin(), caches.end(), [](const Cache& a, const Cache& b) { return a.bytes < b.bytes; });
    m.n_names.push_back(caches.empty() ? "CACHE" : caches.front().name);
    for (std::size_t k = 0; k < caches.size(); ++k) {
        const double nb = caches[k].bytes / ctx.bytes_per_n;
        const bool last = k + 1 == caches.size();
        // Instances of the cache the threads' data spreads over: one per core for a private cache, one
        // for a cache all cores share; unknown sharing (0) is taken as one, the capacity unscaled.
        const double instances = caches[k].shared_by_cores > 0
                                     ? std::max(1.0, std::floor(double(m.cores) / caches[k].shared_by_cores))
                                     : 1.0;
        if (last && kind != Kind::doda) {
            m.memory_from = nb;
            m.memory_instances = instances;
        } else {
            m.n_breaks.push_back(nb);
            m.n_break_instances.push_back(instances);
            m.n_names.push_back(last ? "MEM" : caches[k + 1].name);
            // roofcast: the level beyond this break is a cache that several cores share.
            const bool to_shared =
                kind == Kind::roofcast && !last && m.cores > 1 && caches[k + 1].shared_by_cores > 1;
            m.n_break_to_shared.push_back(to_shared);
        }
    }
    if (kind == Kind::roofcast) {
        m.oversubscription_step = ctx.hw_threads >= 1;
        m.bandwidth_gbs =
            ctx.bandwidth_gbs.empty() ? bandwidth_from_sweep(pts, ctx.bytes_per_n) : ctx.bandwidth_gbs;
        if (ctx.bandwidth_gbs.empty())
            m.notes.push_back(
                "B(s) estimated from the largest measured size at each s (no machine-file bandwidth)");
    }
    return m;
}

} // namespace

const char* to_string(Kind k) {
    static constexpr core::NameTable<Kind, 3> names{
        {{Kind::roofcast, "roofcast"}, {Kind::doda, "doda"}, {Kind::doda_memory, "doda-memory"}}};
    return core::name_of(names, k).data();
}

double ThreadsModel::bandwidth(double s) const {
    if (bandwidth_gbs.empty())
        return 1.0;
    if (s <= bandwidth_gbs.front().first)
        return bandwidth_gbs.front().second;
    for (std::size_t k = 1; k < bandwidth_gbs.size(); ++k)
        if (s <= bandwidth_gbs[k].first) {
            const auto [s0, b0] = bandwidth_gbs[k - 1];
            const auto [s1, b1] = bandwidth_gbs[k];
            return b0 + (b1 - b0) * (s - s0) / (s1 - s0);
        }
    return bandwidth_gbs.back().second;
}

double ThreadsModel::memory_rate(double s) const {
    const double b = bandwidth(s);
    if (!core_gbs)
        return b;
    return std::min(b, std::max(1.0, std::min(s, static_cast<double>(cores))) * *core_gbs);
}

double ThreadsModel::capacity_scale(double instances, double s) const {
    // s threads on min(s, P) cores, spread over the instances first (an unpinned team is spread by the
    // scheduler): their data sees min(s, P, instances) instances of the cache.
    if (kind != Kind::roofcast)
        return 1.0;
    return std::max(1.0, std::min({s, static_cast<double>(cores), instances}));
}

double ThreadsModel::cores_beyond(std::size_t k, double s) const {
    const double instances = k + 1 < n_break_instances.size() ? n_break_instances[k + 1] : memory_instances;
    return std::max(1.0, std::min(s, static_cast<double>(cores)) / std::max(1.0, instances));
}

std::optional<std::size_t> ThreadsModel::contention_break() const {
    if (kind != Kind::roofcast)
        return std::nullopt;
    for (std::size_t k = 0; k < n_break_to_shared.size() && k < n_breaks.size(); ++k)
        if (n_break_to_shared[k])
            return k;
    return std::nullopt;
}

double ThreadsModel::theta(double s) const {
    double t = coef[0] + coef[1] * s;
    for (std::size_t k = 0; k < s_breaks.size(); ++k)
        t += coef[2 + k] * hinge(s, s_breaks[k]);
    if (oversubscription_step && s > hw_threads)
        t += coef[2 + s_breaks.size()];
    return t;
}

double ThreadsModel::fixed_cost(double s) const {
    return evaluate(0.0, s);
}

double ThreadsModel::work_share(double s) const {
    // Beyond the hardware threads a region's s equal chunks run in ceil(s/H) waves of H at once (a chunk of
    // a short region runs to its end within one scheduler time slice), so one thread's wall time holds
    // ceil(s/H) chunks of T_seq/s; Doda's forms keep 1/s.
    if (kind != Kind::roofcast || hw_threads < 1 || s <= hw_threads)
        return 1.0 / s;
    return std::ceil(s / hw_threads) / s;
}

double ThreadsModel::evaluate(double n, double s) const {
    const auto r = detail::design_row(*this, n, s);
    double v = 0.0;
    for (std::size_t j = 0; j < r.size(); ++j)
        v += r[j] * coef[j];
    return v;
}

std::string ThreadsModel::formula() const {
    switch (kind) {
    case Kind::doda:
        return "T(n,s) = θ(s) + T_seq(n)/s";
    case Kind::doda_memory:
        return "T(n,s) = θ(s) + T_seq(n)/s below the last cache; θ(s) + α·n + β above";
    case Kind::roofcast:
        return std::string(
                   "T(n,s) = θ(s) + T_seq(n)·⌈s/H⌉/s below the last cache; θ(s) + γ·bytes(n)/B(s) + β "
                   "above") +
               (oversubscription_step ? "; θ(s) steps up beyond H threads" : "") +
               (contention_break()
                    ? "; in a shared cache each element costs d·(c − 1) more with c cores on it"
                    : "");
    }
    return "";
}

std::optional<std::pair<double, double>> ThreadsModel::interval(double value) const {
    if (dof == 0)
        return std::nullopt;
    const double w = core::t_quantile_975(dof) * rel_sigma * std::abs(value);
    return std::pair{std::max(0.0, value - w), value + w};
}

double relative_rss(const ThreadsModel& m, const std::vector<Measurement>& pts) {
    double rss = 0.0;
    for (const auto& p : pts) {
        const double r = (m.evaluate(p.n, p.s) - p.seconds.median) / p.seconds.median;
        rss += r * r;
    }
    return rss;
}

namespace {

// One core's rate for this kernel in the last cache level (GB/s): bytes per element over the fitted
// T_seq slope there at one thread; nullopt without a memory regime or a positive slope.
std::optional<double> last_cache_core_gbs(const ThreadsModel& m) {
    if (!m.memory_from || m.coef.empty())
        return std::nullopt;
    const double slope = tseq_slope(m, m.n_breaks.size());
    if (!(slope > 0))
        return std::nullopt;
    return m.bytes_per_n / slope / 1e9;
}

// The roofline cap of the memory regime (ThreadsModel::core_gbs): tried from the fitted last-cache rate,
// refitted until the rate settles (at most four times), kept where the relative residual is lower.
void try_core_cap(ThreadsModel& m, const std::vector<Measurement>& pts, double& best) {
    ThreadsModel trial = m;
    double r = best;
    for (int round = 0; round < 4; ++round) {
        const auto rate = last_cache_core_gbs(trial);
        if (!rate)
            return;
        if (trial.core_gbs && std::abs(*rate - *trial.core_gbs) <= 1e-6 * *rate)
            break;
        trial.core_gbs = rate;
        try {
            r = solve(trial, pts);
        } catch (const core::InputError&) {
            return;
        }
    }
    bool binds = false;
    for (const auto& p : pts)
        binds = binds || (in_memory(trial, p.n, p.s) && trial.memory_rate(p.s) < trial.bandwidth(p.s));
    if (!binds || !(r < best * (1 - 1e-9)))
        return;
    best = r;
    m = std::move(trial);
    m.notes.push_back(
        fmt::format("memory regime capped at min(s, {}) × {:.3g} GB/s, the kernel's one-core rate "
                    "in the last cache: bound by its own instructions, not by B(s), at some s",
                    m.cores, *m.core_gbs));
}

} // namespace

ThreadsModel fit_model(Kind kind, const Context& ctx, const std::vector<Measurement>& pts) {
    if (pts.empty())
        throw core::InputError("", "sizes_threads", "expected at least one measured point");
    for (const auto& p : pts)
        if (!(p.seconds.median > 0) || !(p.n > 0) || p.s < 1)
            throw core::InputError(
                "", "measurements",
                fmt::format("expected positive sizes, thread counts and times (n={:g} s={} t={:g})", p.n, p.s,
                            p.seconds.median));
    std::set<int> counts;
    std::set<double> sizes;
    for (const auto& p : pts) {
        counts.insert(p.s);
        sizes.insert(p.n);
    }
    // The least model, θ0 + θ1·s + b·n·share(s), has three parameters: on one thread count the threads'
    // cost cannot be told from the work, on one size the work per element cannot be told from the threads'.
    const auto require_two = [](std::size_t distinct, const char* field, const char* what) {
        if (distinct < 2)
            throw core::InputError("", field,
                                   fmt::format("expected at least 2 distinct {}, got {}", what, distinct));
    };
    require_two(counts.size(), "threads",
                "thread counts (θ(s) and the work T_seq(n)/s cannot be told apart on one)");
    require_two(sizes.size(), "sizes",
                "sizes (the time per element cannot be told from the threads' cost on one)");
    ThreadsModel m = initial(kind, ctx, pts);
    detail::settle(m, pts, true);
    detail::determine(m, pts);
    double best = solve(m, pts);
    if (kind == Kind::roofcast) {
        // Refine the cache breaks (and the start of the memory regime): coordinate descent over
        // factors 2^(k/4), k = -4..4, of each capacity, keeping a change only when it lowers the
        // relative residual and leaves every regime with enough sizes.
        std::vector<double*> breaks;
        for (auto& b : m.n_breaks)
            breaks.push_back(&b);
        if (m.memory_from)
            breaks.push_back(&*m.memory_from);
        std::vector<double> base;
        for (double* b : breaks)
            base.push_back(*b);
        for (int sweep = 0; sweep < 2; ++sweep)
            for (std::size_t k = 0; k < breaks.size(); ++k) {
                const double keep = *breaks[k];
                double best_value = keep;
                for (int f = -4; f <= 4; ++f) {
                    const double cand = base[k] * std::pow(2.0, f / 4.0);
                    const double prev = k == 0 ? 0.0 : *breaks[k - 1];
                    const double next = k + 1 < breaks.size() ? *breaks[k + 1] : k_inf;
                    if (cand <= prev || cand >= next || cand == keep)
                        continue;
                    *breaks[k] = cand;
                    ThreadsModel trial = m;
                    if (!detail::settle(trial, pts, false))
                        continue;
                    try {
                        const double r = solve(trial, pts);
                        if (r < best * (1 - 1e-9)) {
                            best = r;
                            best_value = cand;
                        }
                    } catch (const core::InputError&) {
                    }
                }
                *breaks[k] = best_value;
            }
        best = solve(m, pts);
        try_core_cap(m, pts, best);
    }
    m.rel_sigma = m.dof > 0 ? std::sqrt(relative_rss(m, pts) / static_cast<double>(m.dof)) : 0.0;
    describe(m, pts);
    return m;
}

} // namespace roofcast::model::threads
