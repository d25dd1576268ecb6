// Internals of the scaling fits (analysis/scale/fit.hpp), shared by the files that implement one idea
// each: basis.cpp (PMNF terms, basis columns, closed-form least squares), nonlinear.cpp (the
// exponential family by variable projection and Levenberg–Marquardt), piecewise.cpp (segmented
// models), pmnf_search.cpp (multi-parameter PMNF term search), selection.cpp (validation folds, the
// candidate contest and the public fit entry points), intervals.cpp (extrapolation distance and
// prediction intervals) and model_text.cpp (evaluation and formula text of a Model).
// Not a public interface: only the analysis/scale sources include it.
#pragma once

#include "analysis/scale/fit.hpp"

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::scale {

namespace detail {
struct ColumnFolds;
}

// Precomputed PMNF/family basis columns for one set of one-parameter points (basis.cpp).
class Basis {
public:
    explicit Basis(std::vector<double> xs);
    ~Basis();
    Basis(const Basis&) = delete;
    Basis& operator=(const Basis&) = delete;
    struct Cand {
        Term term;
        Family family;
        std::size_t offset;
    };
    const std::vector<double>& x() const { return m_x; }
    const std::vector<Cand>& candidates() const { return m_cands; }
    const double* column(const Cand& c) const { return m_cols.data() + c.offset; }
    std::size_t skipped() const { return m_skipped; }
    // The columns' share of every fit under `sel` (column_folds.cpp), computed once for the many series
    // measured at these points; folds() is null until then, or for another selection.
    void prepare_folds(Selection sel);
    const detail::ColumnFolds* folds(Selection sel) const;

private:
    std::vector<double> m_x;
    std::vector<Cand> m_cands;
    std::vector<double> m_cols;
    std::size_t m_skipped = 0;
    std::unique_ptr<detail::ColumnFolds> m_folds;
};

namespace detail {

inline constexpr double k_inf = std::numeric_limits<double>::infinity();

// Extra-P's default exponent sets (Calotoiu et al., SC'13, Sec. II-A; Extra-P 4 single-parameter
// modeler): polynomial exponents I and logarithm exponents J of the PMNF term x^i·log2(x)^j.
inline constexpr std::array<double, 20> k_poly_exponents = {
    0.0, 0.25,      1.0 / 3.0, 0.5, 2.0 / 3.0, 0.75,      0.8, 1.0,       1.25, 4.0 / 3.0,
    1.5, 5.0 / 3.0, 1.75,      2.0, 2.25,      7.0 / 3.0, 2.5, 8.0 / 3.0, 2.75, 3.0};
inline constexpr std::array<int, 3> k_log_exponents = {0, 1, 2};

// basis.cpp
double term_value(const Term& t, double x);
double compound_value(const Compound& c, const Coord& x);

// Two-coefficient least squares y = c0 + c1·b on a subset, centred two-pass form for accuracy
// when b spans many orders of magnitude. Constraints of the families are applied as active sets:
// for the inverse family the optimum with c0 < 0 lies on c0 = 0 (then c1 = Σby/Σb²); for the
// logarithmic family c1 = 1/log2(a) must be > 0, otherwise the family has no admissible fit.
struct Line {
    double c0 = 0.0, c1 = 0.0;
    bool ok = false;
};

Line fit_line(const double* b, const double* y, const int* idx, int m, Family fam);
Model line_model(const Basis::Cand& c, const Line& l);
Model constant_model(double c0);
double mean_of(const double* y, const int* idx, int m);
// Least squares a·c = rhs with a's columns scaled to one numerical range before a rank-revealing QR; the
// coefficients c, or nullopt where a holds a non-finite value or its columns do not determine them.
std::optional<std::vector<double>> scaled_least_squares(Eigen::MatrixXd a, const Eigen::VectorXd& rhs);
// Generic linear least squares for two-parameter compounds (up to four coefficients).
std::optional<std::vector<double>> fit_compounds(const std::vector<Compound>& terms,
                                                 const std::vector<Coord>& xs, const double* y,
                                                 const int* idx, int m);

// The two-term polynomial c0 + c1·x^k + c2·x^(k-1) of parameter q (candidates.cpp derives it): its degrees,
// its two compounds, and whether a fit whose first two compounds are those (terms[0], terms[1], coefficients
// coef[1], coef[2]) lies on its asymptotic branch over the points idx: a positive leading coefficient and a
// leading term larger than the second at the largest value of x_q.
inline constexpr std::array<double, 2> k_polynomial_degrees = {2.0, 3.0};
std::vector<Compound> polynomial_compounds(double k, std::size_t q);
bool on_asymptotic_branch(const std::vector<double>& coef, const std::vector<Compound>& terms, std::size_t q,
                          const std::vector<Coord>& xs, const int* idx, int m);
// fit_compounds as a PMNF Model (nullopt where the fit is not determined).
std::optional<Model> fit_pmnf_model(const std::vector<Compound>& terms, const std::vector<Coord>& xs,
                                    const double* y, const int* idx, int m);

// nonlinear.cpp: the exponential family a·b^(-x) + c (r = ln b).
struct ExpCoef {
    double a = 0.0, r = 0.0, c = 0.0;
    double rss = k_inf;
    bool ok = false;
};
// rho_start: ln r of a previous fit to start from (NaN: a grid search first).
ExpCoef fit_exponential(const double* x, const double* y, const int* idx, int m, double rho_start);

// piecewise.cpp
std::optional<Model> fit_piecewise(const Basis& basis, const double* y, const int* idx, int m);

// selection.cpp
double relative_error(double predicted, double measured, double scale);

// Validation folds: (training size/indices, held-out index). Points are in "scale" order, so the
// forecast folds hold out the largest points and train on everything smaller.
struct Folds {
    std::vector<std::vector<int>> train;
    std::vector<int> test;
};

Folds make_folds(int n, Selection sel);
bool better(double score, double best);
struct Prepared {
    std::vector<Coord> xs;
    std::vector<double> ys;
    double scale = 0.0;
};
// Score of a candidate given a subset fitter: validation error for forecast/loo, MAPE for mape.
template <class FitFn>
double score_candidate(const FitFn& fit_on, const Folds& folds, Selection sel, const std::vector<Coord>& xs,
                       const std::vector<double>& ys, double scale, std::size_t params) {
    const int n = static_cast<int>(ys.size());
    if (sel == Selection::mape || folds.test.empty()) {
        std::vector<int> all(static_cast<std::size_t>(n));
        std::iota(all.begin(), all.end(), 0);
        const auto model = fit_on(all.data(), n);
        if (!model)
            return k_inf;
        double s = 0.0;
        for (int i = 0; i < n; ++i)
            s += relative_error(model->evaluate(xs[static_cast<std::size_t>(i)]),
                                ys[static_cast<std::size_t>(i)], scale);
        return s / n;
    }
    double s = 0.0;
    for (std::size_t f = 0; f < folds.test.size(); ++f) {
        const auto& tr = folds.train[f];
        if (tr.size() < params)
            return k_inf;
        const auto model = fit_on(tr.data(), static_cast<int>(tr.size()));
        if (!model)
            return k_inf;
        const auto t = static_cast<std::size_t>(folds.test[f]);
        const double e = relative_error(model->evaluate(xs[t]), ys[t], scale);
        if (!std::isfinite(e))
            return k_inf;
        s += e;
    }
    return s / static_cast<double>(folds.test.size());
}

// column_folds.cpp: the part of fit_line that depends only on a column and a fold, not on the values y:
// the column's mean over the fold's training points, its centred values and their sum of squares. Each
// series then forms only the cross products with its own centred values, with the same operations in the
// same order as fit_line, so the scores are those of fit_line bit for bit.
struct ColumnFold {
    std::vector<int> idx;                // training points
    int test = -1;                       // held-out point; -1 for the fit on all points
    std::vector<double> mb, sxx, sbb;    // per candidate: mean, centred sum of squares, sum of squares
    std::vector<double> db;              // centred values: db[k * candidates + c] for training point k
    std::vector<unsigned char> solvable; // fit_line's test on sxx passes (and two points or more)
    std::vector<double> b_test;          // per candidate, its value at the held-out point
    std::vector<unsigned char> plain;    // a column without constraints (not inverse, not logarithmic)
};
inline constexpr std::size_t k_max_fold_points = 64; // Basis::prepare_folds leaves larger sets alone
struct ColumnFolds {
    Selection sel = Selection::forecast;
    Folds folds;
    std::vector<ColumnFold> fold; // one per validation fold
    ColumnFold all;               // all points (MAPE selection, or too few points to validate)
};
ColumnFolds make_column_folds(const Basis& basis, Selection sel);
// Every candidate column's selection score for the values y (k_inf where it has none), as ColumnFamily
// scores a column with fit_line: the mean relative error over the folds, or over all points when
// `on_all_points`.
void score_columns(const Basis& basis, const ColumnFolds& cf, const double* y, double scale,
                   bool on_all_points, double* scores);

// candidates.cpp: the candidate families of the one-parameter contest behind one interface.
class CandidateFamily;
// One member of the contest: its selection score (k_inf when it has none), and what its family needs to fit
// it on all points (CandidateFamily::fit_all), when it is asked to: which member it is, or the fit already
// made for the score.
struct Contender {
    double score = k_inf;
    int listing = 0; // the family's place in the near-best list (ties of the score keep this order)
    const CandidateFamily* family = nullptr;
    std::size_t member = 0;
    std::unique_ptr<const Model> model; // small beside a Model: a contest holds over a hundred members
};
// What every family is scored on: the points, their basis columns, the validation folds.
struct Contest {
    const Prepared& p;
    const Basis& basis;
    const Folds& folds;
    Selection sel;
    std::vector<int> all;             // 0 .. n-1, for fits on every point
    std::shared_ptr<const Grid> grid; // the process grid of `--grid`, if any (GridFamily)
    const ColumnFolds* columns;       // the basis's precomputed folds under sel, or null
};
class CandidateFamily {
public:
    virtual ~CandidateFamily() = default;
    // Appends this family's members, scored, in evaluation order.
    virtual void contend(const Contest& c, std::vector<Contender>& out) const = 0;
    // The member's fit on all points (nullopt where it has none).
    virtual std::optional<Model> fit_all(const Contest& c, const Contender& member) const = 0;
};
// The families in evaluation order (constant first: it wins ties; then the PMNF and constrained
// linear-in-coefficients columns, the exponential family and the piecewise models).
const std::vector<const CandidateFamily*>& candidate_families();

// grid.cpp: c0 + sum_k c_k·terms[k](ranks) by least squares on the points idx (nullopt where the terms'
// columns do not determine the coefficients, or a point's rank count has no grid shape).
std::optional<Model> fit_grid_terms(const std::shared_ptr<const Grid>& grid,
                                    const std::vector<GridTerm>& terms, const Prepared& p, const int* idx,
                                    int m);

// pmnf_search.cpp
void fit_two_parameters(Fit& f, const Prepared& p, Selection sel);

// intervals.cpp
double extrapolation_distance(const std::vector<Coord>& xs, const Coord& x, std::size_t parameters);
double fold_distance(const std::vector<Coord>& xs, const Folds& folds, Selection sel, std::size_t parameters);

// model_text.cpp
std::string num(double v);

} // namespace detail
} // namespace roofcast::model::scale
