#include "analysis/scale/fit_detail.hpp"

#include <cmath>
#include <memory>

namespace roofcast::model::scale::detail {

namespace {

// Listing order of the near-best contenders (model-selection uncertainty, intervals.cpp): the basis
// columns, then the constant, the exponential and the piecewise family.
enum Listing {
    k_list_columns = 0,
    k_list_constant = 1,
    k_list_exponential = 2,
    k_list_piecewise = 3,
    k_list_polynomial = 4,
    k_list_grid = 5
};

// What the constant and exponential families' validation fits predict, as Model::evaluate computes it
// for their Models, without building a Model (and its vectors) for each fold.
struct Constant {
    double c0;
    double evaluate(const Coord&) const { return c0; }
};
struct Decay {
    double a, b, c; // a·b^(-x) + c
    explicit Decay(const ExpCoef& e) : a(e.a), b(std::exp(e.r)), c(e.c) {}
    double evaluate(const Coord& x) const { return a * std::pow(b, -x[0]) + c; }
};

// The constant c0 (one coefficient).
class ConstantFamily final : public CandidateFamily {
public:
    void contend(const Contest& c, std::vector<Contender>& out) const override {
        const double* y = c.p.ys.data();
        const auto fit_on = [&](const int* idx, int m) {
            return std::optional<Constant>(Constant{mean_of(y, idx, m)});
        };
        out.push_back({score_candidate(fit_on, c.folds, c.sel, c.p.xs, c.p.ys, c.p.scale, 1), k_list_constant,
                       this, 0, nullptr});
    }
    std::optional<Model> fit_all(const Contest& c, const Contender&) const override {
        return constant_model(mean_of(c.p.ys.data(), c.all.data(), static_cast<int>(c.all.size())));
    }
};

// Every two-coefficient column of the basis: the PMNF terms and the linear, inverse and logarithmic
// families. Scored straight from the precomputed column (no Model per fold): the hot loop. With the basis's
// precomputed folds (column_folds.cpp) each column costs one cross product per fold; without them (points
// measured by few series) fit_line does the same arithmetic whole.
class ColumnFamily final : public CandidateFamily {
public:
    void contend(const Contest& c, std::vector<Contender>& out) const override {
        const int n = static_cast<int>(c.all.size());
        const double* y = c.p.ys.data();
        const auto& cands = c.basis.candidates();
        const bool on_all = c.sel == Selection::mape || c.folds.test.empty();
        const std::size_t first = out.size();
        out.resize(first + cands.size());
        for (std::size_t k = 0; k < cands.size(); ++k) {
            out[first + k].listing = k_list_columns;
            out[first + k].family = this;
            out[first + k].member = k;
        }
        if (c.columns) {
            constexpr std::size_t k_stack = 256;
            double stack[k_stack];
            std::vector<double> heap(cands.size() > k_stack ? cands.size() : 0);
            double* scores = cands.size() > k_stack ? heap.data() : stack;
            score_columns(c.basis, *c.columns, y, c.p.scale, on_all, scores);
            for (std::size_t k = 0; k < cands.size(); ++k)
                out[first + k].score = scores[k];
            return;
        }
        for (std::size_t k = 0; k < cands.size(); ++k) {
            const double* b = c.basis.column(cands[k]);
            double s = 0.0;
            bool ok = true;
            if (on_all) {
                const Line l = fit_line(b, y, c.all.data(), n, cands[k].family);
                ok = l.ok;
                for (int i = 0; ok && i < n; ++i)
                    s += relative_error(l.c0 + l.c1 * b[i], y[i], c.p.scale);
                s /= n;
            } else {
                for (std::size_t f = 0; ok && f < c.folds.test.size(); ++f) {
                    const auto& tr = c.folds.train[f];
                    const Line l = fit_line(b, y, tr.data(), static_cast<int>(tr.size()), cands[k].family);
                    ok = l.ok;
                    const int t = c.folds.test[f];
                    s += relative_error(l.c0 + l.c1 * b[t], y[t], c.p.scale);
                }
                s /= static_cast<double>(c.folds.test.size());
            }
            out[first + k].score = ok && std::isfinite(s) ? s : k_inf;
        }
    }
    std::optional<Model> fit_all(const Contest& c, const Contender& member) const override {
        const Basis::Cand& cand = c.basis.candidates()[member.member];
        const Line full = fit_line(c.basis.column(cand), c.p.ys.data(), c.all.data(),
                                   static_cast<int>(c.all.size()), cand.family);
        if (!full.ok)
            return std::nullopt;
        return line_model(cand, full);
    }
};

// a·b^(-x) + c (three coefficients), from three points on.
class ExponentialFamily final : public CandidateFamily {
public:
    void contend(const Contest& c, std::vector<Contender>& out) const override {
        const int n = static_cast<int>(c.all.size());
        if (n < 3)
            return;
        const double* x = c.basis.x().data();
        const double* y = c.p.ys.data();
        const ExpCoef full = fit_exponential(x, y, c.all.data(), n, std::nan(""));
        if (!full.ok)
            return;
        const double rho = std::log(full.r);
        const auto to_model = [](const ExpCoef& e) {
            Model m;
            m.family = Family::exponential;
            m.coef = {e.a, std::exp(e.r), e.c};
            return m;
        };
        const auto fit_on = [&](const int* idx, int m) -> std::optional<Decay> {
            if (m == n)
                return Decay{full};
            const ExpCoef e = fit_exponential(x, y, idx, m, rho);
            if (!e.ok)
                return std::nullopt;
            return Decay{e};
        };
        out.push_back({score_candidate(fit_on, c.folds, c.sel, c.p.xs, c.p.ys, c.p.scale, 3),
                       k_list_exponential, this, 0, std::make_unique<const Model>(to_model(full))});
    }
    std::optional<Model> fit_all(const Contest&, const Contender& member) const override {
        return member.model ? std::optional<Model>(*member.model) : std::nullopt;
    }
};

// Two PMNF terms, c0 + c1·x^k + c2·x^(k-1) for k = 2, 3 (Calotoiu et al., SC'13, Sec. II-A, Eq. 1 with
// n = 2 terms, restricted to consecutive whole powers): the count of a loop nest over a k-dimensional
// domain with a (k-1)-dimensional boundary (n³ interior points + n² face points). Only where a
// held-out point judges it (forecast or leave-one-out selection, from four points on): on the fitting
// points alone three coefficients always look at least as good as two. A fit is admissible only on its
// asymptotic branch: a positive leading coefficient, and a leading term larger than the second at the
// largest fitted point (an interior (n−2)³ = n³ − 6n² + … passes; a cancellation of two large terms
// that happens to meet one held-out point, as in start-up code measured at 1, 2, 4, 8 ranks, does not).
class PolynomialFamily final : public CandidateFamily {
public:
    void contend(const Contest& c, std::vector<Contender>& out) const override {
        const int n = static_cast<int>(c.all.size());
        if (n < 4 || c.sel == Selection::mape || c.folds.test.empty())
            return;
        for (std::size_t d = 0; d < k_polynomial_degrees.size(); ++d) {
            const std::vector<Compound> terms = polynomial_compounds(k_polynomial_degrees[d], 0);
            const auto fit_on = [&c, &terms](const int* idx, int m) { return fit(c, terms, idx, m); };
            const double score = score_candidate(fit_on, c.folds, c.sel, c.p.xs, c.p.ys, c.p.scale, 3);
            out.push_back({score, k_list_polynomial, this, d, nullptr});
        }
    }
    std::optional<Model> fit_all(const Contest& c, const Contender& member) const override {
        const std::vector<Compound> terms = polynomial_compounds(k_polynomial_degrees[member.member], 0);
        return fit(c, terms, c.all.data(), static_cast<int>(c.all.size()));
    }

private:
    static std::optional<Model> fit(const Contest& c, const std::vector<Compound>& terms, const int* idx,
                                    int m) {
        auto mdl = fit_pmnf_model(terms, c.p.xs, c.p.ys.data(), idx, m);
        if (!mdl || !on_asymptotic_branch(mdl->coef, terms, 0, c.p.xs, idx, m))
            return std::nullopt;
        return mdl;
    }
};

// Segmented models, only with enough points for two segments of three.
class PiecewiseFamily final : public CandidateFamily {
public:
    void contend(const Contest& c, std::vector<Contender>& out) const override {
        if (c.all.size() < 6)
            return;
        const auto fit_on = [&](const int* idx, int m) {
            return fit_piecewise(c.basis, c.p.ys.data(), idx, m);
        };
        const double s = score_candidate(fit_on, c.folds, c.sel, c.p.xs, c.p.ys, c.p.scale, 6);
        std::optional<Model> whole =
            fit_piecewise(c.basis, c.p.ys.data(), c.all.data(), static_cast<int>(c.all.size()));
        const double score = whole ? s : k_inf; // no fit on all points: not a contender
        out.push_back({score, k_list_piecewise, this, 0,
                       whole ? std::make_unique<const Model>(std::move(*whole)) : nullptr});
    }
    std::optional<Model> fit_all(const Contest&, const Contender& member) const override {
        return member.model ? std::optional<Model>(*member.model) : std::nullopt;
    }
};

// The halo terms of a process grid (--grid, grid.hpp): a fixed problem's halo volume follows the grid's
// internal cuts, the messages (and a fixed problem per rank's halo) its faces between neighbours; each
// alone or beside a per-rank cost of the launch.
class GridFamily final : public CandidateFamily {
public:
    void contend(const Contest& c, std::vector<Contender>& out) const override {
        if (!c.grid)
            return;
        const std::shared_ptr<const Grid>& grid = c.grid;
        for (std::size_t member = 0; member < k_term_sets.size(); ++member) {
            const auto& terms = k_term_sets[member];
            const auto fit_on = [&c, &grid, &terms](const int* idx, int m) {
                return fit_grid_terms(grid, terms, c.p, idx, m);
            };
            const double score =
                score_candidate(fit_on, c.folds, c.sel, c.p.xs, c.p.ys, c.p.scale, terms.size() + 1);
            out.push_back({score, k_list_grid, this, member, nullptr});
        }
    }
    std::optional<Model> fit_all(const Contest& c, const Contender& member) const override {
        return fit_grid_terms(c.grid, k_term_sets[member.member], c.p, c.all.data(),
                              static_cast<int>(c.all.size()));
    }

private:
    static inline const std::vector<std::vector<GridTerm>> k_term_sets = {{GridTerm::cuts},
                                                                          {GridTerm::faces},
                                                                          {GridTerm::ranks, GridTerm::cuts},
                                                                          {GridTerm::ranks, GridTerm::faces}};
};

} // namespace

const std::vector<const CandidateFamily*>& candidate_families() {
    static const ConstantFamily k_constant;
    static const ColumnFamily k_columns;
    static const ExponentialFamily k_exponential;
    static const PiecewiseFamily k_piecewise;
    static const PolynomialFamily k_polynomial;
    static const GridFamily k_grid;
    static const std::vector<const CandidateFamily*> k_families{&k_constant,  &k_columns,    &k_exponential,
                                                                &k_piecewise, &k_polynomial, &k_grid};
    return k_families;
}

} // namespace roofcast::model::scale::detail
