#include "analysis/scale/fit_detail.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace roofcast::model::scale {

using namespace detail;

Basis::Basis(std::vector<double> xs) : m_x(std::move(xs)) {
    const std::size_t n = m_x.size();
    auto add = [&](Term t, Family fam) {
        std::vector<double> col(n);
        bool ok = true;
        for (std::size_t i = 0; i < n; ++i) {
            col[i] = term_value(t, m_x[i]);
            ok = ok && std::isfinite(col[i]);
        }
        if (!ok) {
            ++m_skipped;
            return;
        }
        m_cands.push_back({t, fam, m_cols.size()});
        m_cols.insert(m_cols.end(), col.begin(), col.end());
    };
    for (double i : k_poly_exponents)
        for (int j : k_log_exponents)
            if (i != 0.0 || j != 0)
                add({i, j}, Family::pmnf);
    for (double i : k_poly_exponents)
        for (int j : k_log_exponents)
            if (i != 0.0)
                add({-i, j}, Family::pmnf);
    add({1.0, 0}, Family::linear);
    add({-1.0, 0}, Family::inverse);
    add({0.0, 1}, Family::logarithmic);
}

namespace detail {

double term_value(const Term& t, double x) {
    if (t.i == 0.0 && t.j == 0)
        return 1.0;
    if (x <= 0.0 && (t.j != 0 || t.i < 0.0 || t.i != std::floor(t.i)))
        return std::nan("");
    double v = t.i == 0.0 ? 1.0 : (t.i == 1.0 ? x : std::pow(x, t.i));
    if (t.j != 0) {
        const double l = std::log2(x);
        v *= t.j == 1 ? l : l * l;
    }
    return v;
}

double compound_value(const Compound& c, const Coord& x) {
    double v = 1.0;
    for (std::size_t k = 0; k < k_max_parameters; ++k)
        v *= term_value(c[k], x[k]);
    return v;
}

Line fit_line(const double* b, const double* y, const int* idx, int m, Family fam) {
    Line r;
    if (m < 2)
        return r;
    double mb = 0.0, my = 0.0;
    for (int k = 0; k < m; ++k) {
        mb += b[idx[k]];
        my += y[idx[k]];
    }
    mb /= m;
    my /= m;
    double sxx = 0.0, sxy = 0.0;
    for (int k = 0; k < m; ++k) {
        const double db = b[idx[k]] - mb;
        sxx += db * db;
        sxy += db * (y[idx[k]] - my);
    }
    if (!(sxx > 1e-300 * (1.0 + mb * mb)) || !std::isfinite(sxx))
        return r;
    r.c1 = sxy / sxx;
    r.c0 = my - r.c1 * mb;
    r.ok = std::isfinite(r.c0) && std::isfinite(r.c1);
    if (fam == Family::inverse && r.c0 < 0.0) {
        double sby = 0.0, sbb = 0.0;
        for (int k = 0; k < m; ++k) {
            sby += b[idx[k]] * y[idx[k]];
            sbb += b[idx[k]] * b[idx[k]];
        }
        r.c0 = 0.0;
        r.c1 = sby / sbb;
    }
    if (fam == Family::logarithmic && !(r.c1 > 0.0))
        r.ok = false;
    return r;
}

Model line_model(const Basis::Cand& c, const Line& l) {
    Model m;
    m.family = c.family;
    m.terms = {Compound{c.term, Term{}}};
    m.coef = {l.c0, l.c1};
    return m;
}

Model constant_model(double c0) {
    Model m;
    m.family = Family::constant;
    m.coef = {c0};
    return m;
}

double mean_of(const double* y, const int* idx, int m) {
    double s = 0.0;
    for (int k = 0; k < m; ++k)
        s += y[idx[k]];
    return s / m;
}

// Generic linear least squares for two-parameter compounds (up to four coefficients).
std::optional<std::vector<double>> fit_compounds(const std::vector<Compound>& terms,
                                                 const std::vector<Coord>& xs, const double* y,
                                                 const int* idx, int m) {
    const int p = static_cast<int>(terms.size()) + 1;
    if (m < p)
        return std::nullopt;
    Eigen::MatrixXd a(m, p);
    Eigen::VectorXd rhs(m);
    for (int k = 0; k < m; ++k) {
        a(k, 0) = 1.0;
        for (int t = 0; t + 1 < p; ++t)
            a(k, t + 1) =
                compound_value(terms[static_cast<std::size_t>(t)], xs[static_cast<std::size_t>(idx[k])]);
        rhs(k) = y[idx[k]];
    }
    return scaled_least_squares(std::move(a), rhs);
}

std::optional<std::vector<double>> scaled_least_squares(Eigen::MatrixXd a, const Eigen::VectorXd& rhs) {
    const auto p = a.cols();
    if (!a.allFinite())
        return std::nullopt;
    // Scale columns so that x^3·log2(x)^2 and 1 share one numerical range before QR.
    Eigen::VectorXd scale = a.colwise().norm().transpose();
    for (Eigen::Index t = 0; t < p; ++t)
        if (scale(t) > 0.0)
            a.col(t) /= scale(t);
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
    if (qr.rank() < p)
        return std::nullopt;
    const Eigen::VectorXd sol = qr.solve(rhs);
    std::vector<double> c(static_cast<std::size_t>(p));
    for (Eigen::Index t = 0; t < p; ++t)
        c[static_cast<std::size_t>(t)] = sol(t) / scale(t);
    return c;
}

std::vector<Compound> polynomial_compounds(double k, std::size_t q) {
    Compound hi{}, lo{};
    hi[q] = Term{k, 0};
    lo[q] = Term{k - 1.0, 0};
    return {hi, lo};
}

bool on_asymptotic_branch(const std::vector<double>& coef, const std::vector<Compound>& terms, std::size_t q,
                          const std::vector<Coord>& xs, const int* idx, int m) {
    double x_max = 0.0;
    for (int i = 0; i < m; ++i)
        x_max = std::max(x_max, xs[static_cast<std::size_t>(idx[i])][q]);
    const double lead = coef[1] * term_value(terms[0][q], x_max);
    return coef[1] > 0.0 && std::abs(coef[2] * term_value(terms[1][q], x_max)) < lead;
}

std::optional<Model> fit_pmnf_model(const std::vector<Compound>& terms, const std::vector<Coord>& xs,
                                    const double* y, const int* idx, int m) {
    auto coef = fit_compounds(terms, xs, y, idx, m);
    if (!coef)
        return std::nullopt;
    Model mdl;
    mdl.family = Family::pmnf;
    mdl.terms = terms;
    mdl.coef = std::move(*coef);
    return mdl;
}

} // namespace detail
} // namespace roofcast::model::scale
