#include "analysis/scale/fit_detail.hpp"

#include "core/stats.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace roofcast::model::scale {

namespace detail {

// How many measured (log-)ranges x lies beyond the points xs, the largest over the parameters, below the
// smallest point as above the largest. Positive data are measured on a log axis, on which 0 and negative
// values lie infinitely far below (a target of 0 cores is no short step from 4); data that reach 0 or
// below are measured on a linear axis.
double extrapolation_distance(const std::vector<Coord>& xs, const Coord& x, std::size_t parameters) {
    double dist = 0.0;
    if (xs.empty())
        return dist;
    for (std::size_t k = 0; k < parameters; ++k) {
        double lo = k_inf, hi = -k_inf;
        for (const auto& c : xs) {
            lo = std::min(lo, c[k]);
            hi = std::max(hi, c[k]);
        }
        double d = 0.0;
        if (x[k] > hi || x[k] < lo) {
            const double edge = x[k] > hi ? hi : lo;
            if (!(hi > lo) || (lo > 0.0 && !(x[k] > 0.0)))
                d = k_inf;
            else if (lo > 0.0)
                d = std::abs(std::log(x[k] / edge)) / std::log(hi / lo);
            else
                d = std::abs(x[k] - edge) / (hi - lo);
        }
        dist = std::max(dist, d);
    }
    return dist;
}

// Mean extrapolation distance of the forecast folds (0 for other selections).
double fold_distance(const std::vector<Coord>& xs, const Folds& folds, Selection sel,
                     std::size_t parameters) {
    if (sel != Selection::forecast || folds.test.empty())
        return 0.0;
    double sum = 0.0;
    for (std::size_t f = 0; f < folds.test.size(); ++f) {
        std::vector<Coord> train;
        for (int i : folds.train[f])
            train.push_back(xs[static_cast<std::size_t>(i)]);
        const double d =
            extrapolation_distance(train, xs[static_cast<std::size_t>(folds.test[f])], parameters);
        if (!std::isfinite(d))
            return 0.0;
        sum += d;
    }
    return sum / static_cast<double>(folds.test.size());
}

} // namespace detail

using namespace detail;

namespace {

constexpr int k_stack_points = 16;

// gᵀ(JᵀJ)⁺g for the Jacobian J of n points and p coefficients and the gradient g at the target, both written
// by gradient(i, out) (i = n: the target), in matrices of type Matrix and Vector; nullopt when not finite.
template <class Matrix, class Vector, class Gradient>
std::optional<double> leverage(std::size_t n, std::size_t p, Gradient&& gradient) {
    Matrix j(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
    for (std::size_t i = 0; i < n; ++i)
        gradient(i, j.row(static_cast<Eigen::Index>(i)));
    Vector g(static_cast<Eigen::Index>(p));
    gradient(n, g);
    if (!j.allFinite() || !g.allFinite())
        return std::nullopt;
    const Matrix jtj = j.transpose() * j;
    const Vector sol = jtj.completeOrthogonalDecomposition().solve(g);
    return g.dot(sol);
}

} // namespace

Prediction predict(const Fit& f, const Coord& x, std::size_t parameters) {
    Prediction pr;
    pr.x = x;
    pr.value = f.model.evaluate(x);
    pr.distance = extrapolation_distance(f.xs, x, parameters);
    pr.far = pr.distance > k_far_distance;
    if (!std::isfinite(pr.value))
        return pr;

    // Residual-based interval on the points the predicting model was fitted to (for a piecewise
    // model: the segment that predicts x).
    const Model* m = &f.model;
    // The fitting points, or for a piecewise model the segment's (copied only then).
    std::vector<Coord> segment_xs;
    std::vector<double> segment_ys;
    const std::vector<Coord>* pxs = &f.xs;
    const std::vector<double>* pys = &f.ys;
    if (m->family == Family::piecewise) {
        std::size_t k = 0;
        while (k < m->breaks.size() && x[0] >= m->breaks[k])
            ++k;
        const double lo = k == 0 ? -k_inf : m->breaks[k - 1];
        const double hi = k < m->breaks.size() ? m->breaks[k] : k_inf;
        for (std::size_t i = 0; i < f.xs.size(); ++i)
            if (f.xs[i][0] >= lo && f.xs[i][0] < hi) {
                segment_xs.push_back(f.xs[i]);
                segment_ys.push_back(f.ys[i]);
            }
        pxs = &segment_xs;
        pys = &segment_ys;
        m = &f.model.segments[k];
    }
    const std::vector<Coord>& xs = *pxs;
    const std::vector<double>& ys = *pys;
    std::optional<double> half;
    const std::size_t p = m->coef.size();
    if (xs.size() > p) {
        // The model at fitting point i (i = xs.size(): at x) with coefficients `c`. A family linear in its
        // coefficients sums its terms' values, computed once per point; the exponential one is evaluated
        // anew.
        const bool linear = m->linear();
        const std::size_t nt = linear ? m->term_count() : 0;
        std::vector<double> values(linear ? (xs.size() + 1) * nt : 0);
        for (std::size_t i = 0; i <= xs.size() && linear; ++i)
            for (std::size_t k = 0; k < nt; ++k)
                values[i * nt + k] = m->term(k, i < xs.size() ? xs[i] : x);
        Model probe = linear ? Model{} : *m;
        const auto value_at = [&](std::size_t i, const double* c) {
            if (linear)
                return m->linear_sum(c, values.data() + i * nt);
            std::copy(c, c + p, probe.coef.begin());
            return probe.evaluate(i < xs.size() ? xs[i] : x);
        };
        double rss = 0.0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double d = ys[i] - value_at(i, m->coef.data());
            rss += d * d;
        }
        const double s2 = rss / static_cast<double>(xs.size() - p);
        // Jacobian of the model in its coefficients by central differences (exact for the models
        // that are linear in their coefficients, first-order for the exponential family).
        std::vector<double> moved = m->coef;
        // Writes the gradient at point i into out(0, c), c < p (a row of j, or g).
        auto gradient = [&](std::size_t i, auto&& out) {
            for (std::size_t c = 0; c < p; ++c) {
                const double h = 1e-6 * std::max(std::abs(m->coef[c]), 1e-6);
                moved[c] = m->coef[c] + h;
                const double up = value_at(i, moved.data());
                moved[c] = m->coef[c] - h;
                const double down = value_at(i, moved.data());
                moved[c] = m->coef[c];
                out(static_cast<Eigen::Index>(c)) = (up - down) / (2.0 * h);
            }
        };
        // Up to 16 points the matrices live on the stack (the same operations as on the heap).
        const std::optional<double> lev =
            xs.size() <= k_stack_points
                ? leverage<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, k_stack_points,
                                         k_stack_points>,
                           Eigen::Matrix<double, Eigen::Dynamic, 1, 0, k_stack_points, 1>>(xs.size(), p,
                                                                                           gradient)
                : leverage<Eigen::MatrixXd, Eigen::VectorXd>(xs.size(), p, gradient);
        if (lev) {
            const double var = s2 * (1.0 + *lev) + f.repetition_rel_variance * pr.value * pr.value;
            if (std::isfinite(var) && var >= 0.0)
                half = core::t_quantile_975(xs.size() - p) * std::sqrt(var);
        }
    }
    if (!half && f.repetition_rel_variance > 0.0) // no residual dof: measurement noise alone (normal)
        half = 1.959964 * std::sqrt(f.repetition_rel_variance) * std::abs(pr.value);
    if (f.validation_error) {
        // Forecast errors grow with the distance forecast; scale the validated error from the
        // folds' distance to the target's (never below the validated error itself).
        const double grow =
            f.validation_distance > 0.0 ? std::max(1.0, pr.distance / f.validation_distance) : 1.0;
        half = std::max(half.value_or(0.0), *f.validation_error * grow * std::abs(pr.value));
    }
    // Model-selection uncertainty: near-best contenders that predict differently widen the interval.
    if (half) {
        for (const auto& alt : f.alternatives) {
            const double v = alt.evaluate(x);
            if (std::isfinite(v))
                half = std::max(*half, std::abs(v - pr.value));
        }
    }
    if (half) {
        pr.lo = pr.value - *half;
        pr.hi = pr.value + *half;
    }
    return pr;
}

} // namespace roofcast::model::scale
