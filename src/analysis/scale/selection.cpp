#include "analysis/scale/fit_detail.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>

namespace roofcast::model::scale {

namespace detail {

double relative_error(double predicted, double measured, double scale) {
    const double denom = std::abs(measured) > 1e-12 * scale ? std::abs(measured) : scale;
    return std::abs(predicted - measured) / denom;
}

Folds make_folds(int n, Selection sel) {
    Folds f;
    if (sel == Selection::forecast) {
        const int h = n >= 5 ? std::max(2, n / 4) : (n >= 3 ? 1 : 0);
        for (int t = n - h; t < n; ++t) {
            std::vector<int> tr(static_cast<std::size_t>(t));
            std::iota(tr.begin(), tr.end(), 0);
            f.train.push_back(std::move(tr));
            f.test.push_back(t);
        }
    } else if (sel == Selection::loo && n >= 3) {
        for (int t = 0; t < n; ++t) {
            std::vector<int> tr;
            for (int k = 0; k < n; ++k)
                if (k != t)
                    tr.push_back(k);
            f.train.push_back(std::move(tr));
            f.test.push_back(t);
        }
    }
    return f;
}

bool better(double score, double best) {
    return score < best * (1.0 - 1e-9) - 1e-12;
}

} // namespace detail

using namespace detail;

namespace {

void finish(Fit& f) {
    f.rss = 0.0;
    double ape = 0.0;
    double scale = 0.0;
    for (double v : f.ys)
        scale += std::abs(v);
    scale /= static_cast<double>(f.ys.size());
    for (std::size_t i = 0; i < f.xs.size(); ++i) {
        const double p = f.model.evaluate(f.xs[i]);
        f.rss += (p - f.ys[i]) * (p - f.ys[i]);
        ape += scale > 0.0 ? relative_error(p, f.ys[i], scale) : std::abs(p - f.ys[i]);
    }
    f.mape = 100.0 * ape / static_cast<double>(f.xs.size());
}

Prepared prepare(const Series& s, std::size_t parameters) {
    Prepared p;
    for (const auto& pt : s.points) {
        p.xs.push_back(pt.x);
        p.ys.push_back(pt.mean());
    }
    // Scale order for validation: one parameter sorted by x; two by normalised log position.
    if (parameters == 2 && p.xs.size() > 1) {
        std::array<double, 2> lo{k_inf, k_inf}, hi{-k_inf, -k_inf};
        for (const auto& x : p.xs)
            for (std::size_t k = 0; k < 2; ++k) {
                lo[k] = std::min(lo[k], x[k]);
                hi[k] = std::max(hi[k], x[k]);
            }
        auto pos = [&](const Coord& x) {
            double v = 0.0;
            for (std::size_t k = 0; k < 2; ++k) {
                if (!(hi[k] > lo[k]))
                    continue;
                v += lo[k] > 0.0 ? std::log(x[k] / lo[k]) / std::log(hi[k] / lo[k])
                                 : (x[k] - lo[k]) / (hi[k] - lo[k]);
            }
            return v;
        };
        std::vector<std::size_t> order(p.xs.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return pos(p.xs[a]) < pos(p.xs[b]); });
        Prepared q;
        for (auto i : order) {
            q.xs.push_back(p.xs[i]);
            q.ys.push_back(p.ys[i]);
        }
        p.xs = std::move(q.xs);
        p.ys = std::move(q.ys);
    }
    for (double v : p.ys)
        p.scale += std::abs(v);
    p.scale /= static_cast<double>(std::max<std::size_t>(1, p.ys.size()));
    return p;
}

// Degenerate series get a model without a contest; returns true when handled.
bool degenerate(Fit& f, const Prepared& p) {
    const std::size_t n = p.ys.size();
    if (n == 0) {
        f.model = constant_model(std::nan(""));
        f.notes.push_back("no usable points: no model");
        return true;
    }
    if (n == 1) {
        f.model = constant_model(p.ys[0]);
        f.notes.push_back("one point: constant model, no trend can be inferred");
        f.candidates = 1;
        return true;
    }
    const auto [lo, hi] = std::minmax_element(p.ys.begin(), p.ys.end());
    if (*hi - *lo <= 1e-12 * std::max(std::abs(*hi), std::abs(*lo))) {
        f.model = constant_model(std::accumulate(p.ys.begin(), p.ys.end(), 0.0) / static_cast<double>(n));
        f.notes.push_back(*hi == 0.0 ? "all values are zero: constant model"
                                     : "all values are equal: constant model");
        f.candidates = 1;
        return true;
    }
    return false;
}

// The contest of one-parameter candidates. Each family of candidates (candidates.cpp) scores its
// members on the validation folds and says how to fit each on all points; the contest picks the
// winner and the near-best contenders from those scores alone.
void fit_one_parameter(Fit& f, const Prepared& p, const Basis& basis, Selection sel,
                       const std::shared_ptr<const Grid>& grid) {
    const int n = static_cast<int>(p.ys.size());
    const double* y = p.ys.data();
    if (basis.skipped() > 0)
        f.notes.push_back(
            fmt::format("{} candidate terms skipped (need positive parameter values)", basis.skipped()));
    if (n == 2) {
        // Two points: every two-coefficient model interpolates them and nothing validates a choice;
        // take the straight line and say so.
        const int idx[2] = {0, 1};
        for (const auto& c : basis.candidates())
            if (c.family == Family::linear) {
                f.model = line_model(c, fit_line(basis.column(c), y, idx, 2, c.family));
                f.candidates = 1;
                f.notes.push_back("two points: straight line through both, no validation possible");
                return;
            }
    }
    // The folds depend only on the number of points: the basis holds them when it is shared.
    const ColumnFolds* columns = basis.folds(sel);
    const Folds own = columns ? Folds{} : make_folds(n, sel);
    Contest contest{
        p,    basis,  columns ? columns->folds : own, sel, std::vector<int>(static_cast<std::size_t>(n)),
        grid, columns};
    std::iota(contest.all.begin(), contest.all.end(), 0);
    std::vector<Contender> contenders;
    contenders.reserve(basis.candidates().size() + 8);
    for (const CandidateFamily* family : candidate_families())
        family->contend(contest, contenders);
    f.candidates = contenders.size();
    const auto fit_all = [&](std::size_t k) { return contenders[k].family->fit_all(contest, contenders[k]); };
    // The first contender (the constant) is the default and wins ties; a later one must be better and
    // have a fit on all points.
    std::size_t chosen = 0;
    double best = contenders.front().score;
    f.model = *fit_all(0);
    for (std::size_t k = 1; k < contenders.size(); ++k) {
        if (!better(contenders[k].score, best))
            continue;
        auto m = fit_all(k);
        if (!m)
            continue;
        best = contenders[k].score;
        chosen = k;
        f.model = std::move(*m);
    }
    // Near-best contenders: score within twice the best (plus rounding), up to k_max_alternatives,
    // listed in family listing order (a stable order: by listing, then by place) before sorting by score.
    constexpr std::size_t k_max_alternatives = 4;
    if (std::isfinite(best)) {
        int last_listing = 0;
        for (const auto& c : contenders)
            last_listing = std::max(last_listing, c.listing);
        std::vector<std::size_t> near;
        for (int listing = 0; listing <= last_listing; ++listing)
            for (std::size_t k = 0; k < contenders.size(); ++k)
                if (contenders[k].listing == listing && k != chosen &&
                    contenders[k].score <= 2.0 * best + 1e-12)
                    near.push_back(k);
        f.alternatives.reserve(std::min(near.size(), k_max_alternatives));
        std::sort(near.begin(), near.end(),
                  [&](std::size_t u, std::size_t v) { return contenders[u].score < contenders[v].score; });
        for (std::size_t k : near) {
            if (f.alternatives.size() == k_max_alternatives)
                break;
            if (auto m = fit_all(k))
                f.alternatives.push_back(std::move(*m));
        }
    }
    if (sel != Selection::mape && !contest.folds.test.empty() && std::isfinite(best)) {
        f.validation_error = best;
        f.validation_distance = fold_distance(p.xs, contest.folds, sel, 1);
    }
    if (sel != Selection::mape && contest.folds.test.empty())
        f.notes.push_back("too few points to validate: selected by MAPE");
}

Fit fit_prepared(const Series& s, std::size_t parameters, Selection sel, const Basis* basis,
                 const std::shared_ptr<const Grid>& grid) {
    Fit f;
    f.selection = sel;
    f.notes = s.notes;
    const Prepared p = prepare(s, parameters);
    f.xs = p.xs;
    f.ys = p.ys;
    // Pooled within-point relative variance, divided by the mean repetition count (variance of a mean).
    double ss = 0.0, dof = 0.0, reps = 0.0;
    for (const auto& pt : s.points) {
        const double m = pt.mean();
        reps += static_cast<double>(pt.values.size());
        if (pt.values.size() < 2 || m == 0.0)
            continue;
        for (double v : pt.values)
            ss += ((v - m) / m) * ((v - m) / m);
        dof += static_cast<double>(pt.values.size() - 1);
    }
    if (dof > 0.0)
        f.repetition_rel_variance = ss / dof / (reps / static_cast<double>(s.points.size()));
    if (!degenerate(f, p)) {
        if (std::any_of(p.ys.begin(), p.ys.end(), [](double v) { return v <= 0.0; }))
            f.notes.push_back("non-positive values: relative errors at zeros use the mean magnitude");
        if (parameters == 1) {
            if (basis) {
                fit_one_parameter(f, p, *basis, sel, grid);
            } else {
                std::vector<double> x;
                for (const auto& c : p.xs)
                    x.push_back(c[0]);
                fit_one_parameter(f, p, Basis(x), sel, grid);
            }
        } else {
            fit_two_parameters(f, p, sel);
        }
    }
    finish(f);
    return f;
}

} // namespace

Fit fit_series(const Series& s, std::size_t parameters, Selection sel,
               const std::shared_ptr<const Grid>& grid) {
    return fit_prepared(s, parameters, sel, nullptr, grid);
}

std::optional<Model> fit_family(Family family, const std::vector<double>& x, const std::vector<double>& y) {
    const int n = static_cast<int>(std::min(x.size(), y.size()));
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    if (family == Family::exponential) {
        const ExpCoef e = fit_exponential(x.data(), y.data(), all.data(), n, std::nan(""));
        if (!e.ok)
            return std::nullopt;
        Model m;
        m.family = Family::exponential;
        m.coef = {e.a, std::exp(e.r), e.c};
        return m;
    }
    const Basis basis(x);
    for (const auto& c : basis.candidates()) {
        if (c.family != family)
            continue;
        const Line l = fit_line(basis.column(c), y.data(), all.data(), n, family);
        if (!l.ok)
            return std::nullopt;
        return line_model(c, l);
    }
    return std::nullopt;
}

std::vector<Fit> fit_all(const Dataset& d, Selection sel, const std::shared_ptr<const Grid>& grid) {
    const std::size_t nparams = d.parameters.size();
    std::vector<std::unique_ptr<Basis>> owned;
    std::vector<const Basis*> basis_of(d.series.size(), nullptr);
    if (nparams == 1) {
        struct Shared {
            std::unique_ptr<Basis> basis;
            std::size_t series = 0;
        };
        std::map<std::vector<double>, Shared> bases;
        std::vector<double> key;
        Shared* last = nullptr;
        for (std::size_t i = 0; i < d.series.size(); ++i) {
            const auto& pts = d.series[i].points;
            // Neighbouring series are mostly measured at the same points: the last basis, without a lookup.
            const bool same = last && key.size() == pts.size() &&
                              std::equal(pts.begin(), pts.end(), key.begin(),
                                         [](const Point& p, double x) { return p.x[0] == x; });
            if (!same) {
                key.clear();
                for (const auto& p : pts)
                    key.push_back(p.x[0]);
                last = &bases[key];
                if (!last->basis)
                    last->basis = std::make_unique<Basis>(key);
            }
            ++last->series;
            basis_of[i] = last->basis.get();
        }
        // The columns' share of the validation fits, once per set of points that several series share.
        constexpr std::size_t k_min_shared = 4;
        for (auto& [x, shared] : bases)
            if (shared.series >= k_min_shared)
                shared.basis->prepare_folds(sel);
        owned.reserve(bases.size());
        for (auto& [x, shared] : bases)
            owned.push_back(std::move(shared.basis));
    }
    std::vector<Fit> out(d.series.size());
    const auto n = static_cast<std::ptrdiff_t>(d.series.size());
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        out[k] = fit_prepared(d.series[k], nparams, sel, basis_of[k], grid);
    }
    return out;
}

} // namespace roofcast::model::scale
