#include "analysis/scale/fit_detail.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

namespace roofcast::model::scale::detail {

namespace {

// Ranked PMNF terms of one parameter along one line of points (the other parameter fixed).
std::vector<Term> ranked_terms(std::vector<std::pair<double, double>> pts, Selection sel, std::size_t keep) {
    std::sort(pts.begin(), pts.end());
    std::vector<double> x, y;
    for (auto [a, b] : pts) {
        x.push_back(a);
        y.push_back(b);
    }
    const Basis basis(x);
    const Folds folds = make_folds(static_cast<int>(x.size()), sel);
    double scale = 0.0;
    for (double v : y)
        scale += std::abs(v);
    scale /= static_cast<double>(y.size());
    std::vector<std::pair<double, Term>> ranked;
    std::vector<int> all(x.size());
    std::iota(all.begin(), all.end(), 0);
    for (const auto& c : basis.candidates()) {
        if (c.family != Family::pmnf)
            continue;
        const double* b = basis.column(c);
        double s = 0.0;
        bool ok = true;
        if (folds.test.empty() || sel == Selection::mape) {
            const Line l = fit_line(b, y.data(), all.data(), static_cast<int>(all.size()), c.family);
            ok = l.ok;
            for (std::size_t i = 0; ok && i < x.size(); ++i)
                s += relative_error(l.c0 + l.c1 * b[i], y[i], scale);
        } else {
            for (std::size_t k = 0; ok && k < folds.test.size(); ++k) {
                const auto& tr = folds.train[k];
                const Line l = fit_line(b, y.data(), tr.data(), static_cast<int>(tr.size()), c.family);
                ok = l.ok;
                s += relative_error(l.c0 + l.c1 * b[folds.test[k]],
                                    y[static_cast<std::size_t>(folds.test[k])], scale);
            }
        }
        if (ok && std::isfinite(s))
            ranked.emplace_back(s, c.term);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Term> out;
    for (std::size_t k = 0; k < std::min(keep, ranked.size()); ++k)
        out.push_back(ranked[k].second);
    return out;
}

// Candidate terms for one parameter of a two-parameter series: the two best terms along every line
// of points that share a value of the other parameter (Calotoiu et al., CLUSTER 2016, Sec. III-B,
// model each parameter separately first), at most five distinct terms.
std::vector<Term> best_terms(const Prepared& p, std::size_t param, Selection sel) {
    constexpr std::size_t k_max_terms = 5;
    const std::size_t other = 1 - param;
    std::map<double, std::vector<std::pair<double, double>>> lines;
    for (std::size_t i = 0; i < p.xs.size(); ++i)
        lines[p.xs[i][other]].emplace_back(p.xs[i][param], p.ys[i]);
    std::vector<Term> out;
    for (std::size_t rank = 0; rank < 2; ++rank)
        for (const auto& [v, pts] : lines) {
            if (pts.size() < 3)
                continue;
            const auto terms = ranked_terms(pts, sel, 2);
            if (rank >= terms.size())
                continue;
            const Term t = terms[rank];
            if (out.size() < k_max_terms &&
                std::none_of(out.begin(), out.end(), [&](const Term& u) { return u.i == t.i && u.j == t.j; }))
                out.push_back(t);
        }
    if (out.empty())
        return {Term{1.0, 0}, Term{0.0, 1}, Term{-1.0, 0}};
    return out;
}

} // namespace

void fit_two_parameters(Fit& f, const Prepared& p, Selection sel) {
    const int n = static_cast<int>(p.ys.size());
    const double* y = p.ys.data();
    const Folds folds = make_folds(n, sel);
    const auto t0 = best_terms(p, 0, sel);
    const auto t1 = best_terms(p, 1, sel);
    // Hypotheses: one parameter alone, additive t0 + t1, multiplicative t0·t1 and the mixed forms
    // t0 + t0·t1, t1 + t0·t1, t0 + t1 + t0·t1 (Extra-P's multi-parameter hypotheses).
    std::vector<std::vector<Compound>> hyps;
    const Term one{};
    for (const auto& a : t0)
        hyps.push_back({Compound{a, one}});
    for (const auto& b : t1)
        hyps.push_back({Compound{one, b}});
    for (const auto& a : t0)
        for (const auto& b : t1) {
            const Compound ca{a, one}, cb{one, b}, ab{a, b};
            hyps.push_back({ca, cb});
            hyps.push_back({ab});
            hyps.push_back({ca, ab});
            hyps.push_back({cb, ab});
            hyps.push_back({ca, cb, ab});
        }
    // Mixed forms whose additive and multiplicative parts use different terms of a parameter, e.g.
    // c0 + c1·log2(p) + c2·n/p (communication + computation per rank).
    for (const auto& a : t0)
        for (const auto& a2 : t0)
            for (const auto& b : t1) {
                if (a.i == a2.i && a.j == a2.j)
                    continue;
                hyps.push_back({Compound{a, one}, Compound{a2, b}});
                hyps.push_back({Compound{one, b}, Compound{a, one}, Compound{a2, b}});
            }
    for (const auto& b : t1)
        for (const auto& b2 : t1)
            for (const auto& a : t0) {
                if (b.i == b2.i && b.j == b2.j)
                    continue;
                hyps.push_back({Compound{one, b}, Compound{a, b2}});
            }
    // The two-term polynomial of one parameter (x^k + x^(k-1), candidates.cpp), alone and beside each term
    // of the other parameter, where a held-out point judges it and that parameter has four values or more.
    // The guard (`admissible`) is the one-parameter family's: the x^k coefficient positive and its term
    // larger than the x^(k-1) term at the largest fitted value.
    // Per hypothesis, the parameter of its polynomial (its first two compounds), none for the others.
    std::vector<std::optional<std::size_t>> polys(hyps.size());
    if (sel != Selection::mape && !folds.test.empty())
        for (std::size_t q = 0; q < 2; ++q) {
            std::set<double> values;
            for (const auto& x : p.xs)
                values.insert(x[q]);
            if (values.size() < 4)
                continue;
            for (const double k : k_polynomial_degrees) {
                const std::vector<Compound> poly = polynomial_compounds(k, q);
                hyps.push_back(poly);
                polys.push_back(q);
                for (const auto& t : q == 0 ? t1 : t0) {
                    Compound other{};
                    other[1 - q] = t;
                    hyps.push_back({poly[0], poly[1], other});
                    polys.push_back(q);
                }
            }
        }
    const auto admissible = [&](const std::vector<double>& c, std::size_t h, const int* idx, int m) {
        return !polys[h] || on_asymptotic_branch(c, hyps[h], *polys[h], p.xs, idx, m);
    };
    double best = k_inf;
    {
        const auto fit_on = [&](const int* idx, int m) {
            return std::optional<Model>(constant_model(mean_of(y, idx, m)));
        };
        best = score_candidate(fit_on, folds, sel, p.xs, p.ys, p.scale, 1);
        f.model = constant_model(std::accumulate(p.ys.begin(), p.ys.end(), 0.0) / n);
    }
    std::size_t count = 1;
    std::vector<std::pair<double, Model>> scored;
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t hi = 0; hi < hyps.size(); ++hi) {
        const auto& h = hyps[hi];
        const auto fit_on = [&](const int* idx, int m) -> std::optional<Model> {
            auto mdl = fit_pmnf_model(h, p.xs, y, idx, m);
            if (!mdl || !admissible(mdl->coef, hi, idx, m))
                return std::nullopt;
            return mdl;
        };
        const double s = score_candidate(fit_on, folds, sel, p.xs, p.ys, p.scale, h.size() + 1);
        ++count;
        if (!std::isfinite(s))
            continue;
        auto m = fit_on(all.data(), n);
        if (!m)
            continue;
        scored.emplace_back(s, *m);
        if (better(s, best)) {
            best = s;
            f.model = std::move(*m);
        }
    }
    f.candidates = count;
    // Near-best contenders for the interval, as for one parameter (within twice the best score).
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& u, const auto& v) { return u.first < v.first; });
    for (auto& [sc, m] : scored) {
        if (f.alternatives.size() == 4 || !(sc <= 2.0 * best + 1e-12))
            break;
        if (m.terms.size() != f.model.terms.size() || m.coef != f.model.coef)
            f.alternatives.push_back(std::move(m));
    }
    if (sel != Selection::mape && !folds.test.empty() && std::isfinite(best)) {
        f.validation_error = best;
        f.validation_distance = fold_distance(p.xs, folds, sel, 2);
    }
    if (sel != Selection::mape && folds.test.empty())
        f.notes.push_back("too few points to validate: selected by MAPE");
}

} // namespace roofcast::model::scale::detail
