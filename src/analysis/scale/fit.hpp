// Fitting and selecting scaling models for one function's metric, and predicting with an interval.
//
// Candidates (all fitted by least squares on the residual sum of squares, on the mean of the
// repetitions at each point, as Extra-P does):
//  - constant c0;
//  - Extra-P's performance-model normal form (PMNF), one term per parameter: c0 + c1·x^i·log2(x)^j,
//    i in {0, 1/4, 1/3, 1/2, 2/3, 3/4, 4/5, 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3, 5/2, 8/3, 11/4, 3}
//    and their negatives (strong scaling), j in {0, 1, 2} (Calotoiu et al., "Using automated
//    performance modeling to find scalability bugs in complex codes", SC'13, Sec. II-A, Eq. 1);
//    for two parameters the additive and multiplicative combinations of each parameter's best terms
//    (Calotoiu et al., "Fast multi-parameter performance modeling", IEEE CLUSTER 2016, Sec. III-B);
//  - four families with constraints: linear a·x + b; inverse a + b/x with a >= 0; logarithmic
//    log(x)/log(a) + b with a > 1; exponential a·b^(-x) + c with b > 1, c >= 0 (Levenberg–Marquardt,
//    Marquardt 1963, on the variable-projection functional, Golub & Pereyra, SIAM J. Numer. Anal.
//    10(2), 1973);
//  - two PMNF terms c0 + c1·x^k + c2·x^(k-1), k = 2, 3 (loop-nest counts: interior plus boundary), only
//    under a validated selection with at least four points and on the asymptotic branch (candidates.cpp);
//  - with a process grid (`--grid`, grid.hpp): c0 + c1·g(p) and c0 + c1·p + c2·g(p), g the grid's internal
//    cuts or its faces between neighbours at p ranks (the halo terms of a domain decomposition whose
//    shape changes with the rank count, Gropp et al., "Using MPI", 3rd ed., Sec. 4.6);
//  - piecewise (segmented) one-parameter models with one breakpoint (>= 6 points) or two (>= 9
//    points), each segment the best PMNF term on its points.
// Selection (see docs/design.md): `forecast` (default) scores each candidate by its relative error
// when it predicts the largest points from fits on the smaller ones (rolling-origin validation,
// Tashman, Int. J. Forecasting 16(4), 2000); `loo` by leave-one-out relative error; `mape` by the
// mean absolute percentage error on the fitting points (the classic rule). Ties go to the candidate
// with fewer coefficients. Contract: never throws on data; degenerate series (one point, constants,
// zeros, two points) get a model plus a note.
#pragma once

#include "analysis/scale/dataset.hpp"
#include "analysis/scale/grid.hpp"
#include "core/names.hpp"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model::scale {

enum class Selection { forecast, loo, mape };
inline constexpr core::NameTable<Selection, 3> k_selection_names{
    {{Selection::forecast, "forecast"}, {Selection::loo, "loo"}, {Selection::mape, "mape"}}};
Selection parse_selection(const std::string& text); // InputError(field "select") on bad text
const char* to_string(Selection s);

enum class Family { constant, pmnf, linear, inverse, logarithmic, exponential, piecewise, grid };
inline constexpr core::NameTable<Family, 8> k_family_names{{{Family::constant, "constant"},
                                                            {Family::pmnf, "pmnf"},
                                                            {Family::linear, "linear"},
                                                            {Family::inverse, "inverse"},
                                                            {Family::logarithmic, "logarithmic"},
                                                            {Family::exponential, "exponential"},
                                                            {Family::piecewise, "piecewise"},
                                                            {Family::grid, "grid"}}};
const char* to_string(Family f);

// x^i · log2(x)^j for one parameter; {0, 0} is the constant 1.
struct Term {
    double i = 0.0;
    int j = 0;
};

// A product of one term per parameter.
using Compound = std::array<Term, k_max_parameters>;

struct Model {
    Family family = Family::constant;
    // Linear-in-coefficients families: y = coef[0] + sum_k coef[k+1]·terms[k](x).
    // Exponential: coef = {a, b, c} for a·b^(-x) + c.
    std::vector<Compound> terms;
    std::vector<double> coef;
    // Piecewise: segments[k] holds for breaks[k-1] <= x < breaks[k] (first parameter).
    std::vector<double> breaks;
    std::vector<Model> segments;
    // Grid: y = coef[0] + sum_k coef[k+1]·grid_terms[k](ranks) on the process grid `grid` (grid.hpp).
    std::vector<GridTerm> grid_terms;
    std::shared_ptr<const Grid> grid;

    std::size_t parameter_count() const; // fitted numbers, breakpoints included
    double evaluate(const Coord& x) const;
    // The families linear in their coefficients (all but exponential and piecewise): their terms, the value
    // of term k at x, and evaluate() from the terms' values with coefficients `c` (the same sum in the same
    // order, so linear_sum(coef.data(), values at x) is evaluate(x) to the bit).
    bool linear() const { return family != Family::exponential && family != Family::piecewise; }
    std::size_t term_count() const { return family == Family::grid ? grid_terms.size() : terms.size(); }
    double term(std::size_t k, const Coord& x) const;
    double linear_sum(const double* c, const double* values) const;
    std::string formula(const std::vector<std::string>& names) const;
};

struct Fit {
    Model model;
    std::vector<Coord> xs;  // fitting points (sorted)
    std::vector<double> ys; // mean of repetitions at each point
    double mape = 0.0;      // % on the fitting points
    double rss = 0.0;
    std::optional<double> validation_error; // relative error of the selection's validation, if any
    double validation_distance = 0.0;       // mean extrapolation distance of the forecast folds
    // Pooled relative variance of a point's mean over its repetitions (0 without repetitions): the
    // measurement noise a new run at the target would show, added to the interval.
    double repetition_rel_variance = 0.0;
    Selection selection = Selection::forecast;
    std::size_t candidates = 0;     // how many candidates were compared
    std::vector<std::string> notes; // degenerate cases, skipped candidates
    // Near-best contenders (validation score within twice the winner's, one-parameter series): how
    // far their predictions differ from the winner's is model-selection uncertainty.
    std::vector<Model> alternatives;
};

struct Prediction {
    Coord x{};
    double value = 0.0;
    std::optional<double> lo, hi; // 95 % prediction interval; nullopt when it cannot be estimated
    double distance = 0.0;        // extrapolation distance in measured log-ranges (0 inside the data)
    bool far = false;             // distance > k_far_distance
};

inline constexpr double k_far_distance = 1.0;

// Precomputed PMNF/family basis columns for one set of one-parameter points: shared by every
// series measured at the same points, so the hot loop only forms dot products.
class Basis;

// Fits one series (parameters = number of parameters of its data set). A grid adds its candidates to a
// one-parameter contest whose parameter is the rank count.
Fit fit_series(const Series& s, std::size_t parameters, Selection sel,
               const std::shared_ptr<const Grid>& grid = nullptr);

// Fits one named family (linear, inverse, logarithmic, exponential) on all points, honouring its
// constraints; nullopt when the family has no admissible fit (e.g. a decreasing logarithm).
std::optional<Model> fit_family(Family family, const std::vector<double>& x, const std::vector<double>& y);

// Fits every series of a data set (OpenMP over series, bases shared per distinct point set).
std::vector<Fit> fit_all(const Dataset& d, Selection sel, const std::shared_ptr<const Grid>& grid = nullptr);

// Predicts at x with a 95 % interval: the wider of the residual-based prediction interval
// (t-quantile · sqrt(s²·(1 + g^T (J^T J)^-1 g) + v_rep·ŷ²), Seber & Wild, "Nonlinear Regression",
// 1989, Sec. 5.1, with v_rep the repetitions' relative variance of a mean) and the relative error
// seen in validation applied to the prediction, grown in proportion when the target lies further
// out than the validation folds did, and wide enough to hold the near-best contenders' predictions.
Prediction predict(const Fit& f, const Coord& x, std::size_t parameters);

} // namespace roofcast::model::scale
