#include "model/scale/fit.hpp"

#include "core/error.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <memory>
#include <numeric>

namespace roofcast::model::scale {

namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();

// Extra-P's default exponent sets (Calotoiu et al., SC'13, Sec. II-A; Extra-P 4 single-parameter
// modeler): polynomial exponents I and logarithm exponents J of the PMNF term x^i·log2(x)^j.
constexpr std::array<double, 20> k_poly_exponents = {
    0.0, 0.25,      1.0 / 3.0, 0.5, 2.0 / 3.0, 0.75,      0.8, 1.0,       1.25, 4.0 / 3.0,
    1.5, 5.0 / 3.0, 1.75,      2.0, 2.25,      7.0 / 3.0, 2.5, 8.0 / 3.0, 2.75, 3.0};
constexpr std::array<int, 3> k_log_exponents = {0, 1, 2};

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

std::string exponent_text(double e) {
    static const std::array<std::pair<double, const char*>, 14> fractions = {{{0.25, "1/4"},
                                                                              {1.0 / 3.0, "1/3"},
                                                                              {0.5, "1/2"},
                                                                              {2.0 / 3.0, "2/3"},
                                                                              {0.75, "3/4"},
                                                                              {0.8, "4/5"},
                                                                              {1.25, "5/4"},
                                                                              {4.0 / 3.0, "4/3"},
                                                                              {1.5, "3/2"},
                                                                              {5.0 / 3.0, "5/3"},
                                                                              {1.75, "7/4"},
                                                                              {2.25, "9/4"},
                                                                              {7.0 / 3.0, "7/3"},
                                                                              {2.5, "5/2"}}};
    for (const auto& [v, text] : fractions) {
        if (std::abs(std::abs(e) - v) < 1e-12)
            return e < 0 ? fmt::format("(-{})", text) : fmt::format("({})", text);
    }
    if (std::abs(std::abs(e) - 8.0 / 3.0) < 1e-12)
        return e < 0 ? "(-8/3)" : "(8/3)";
    if (std::abs(std::abs(e) - 2.75) < 1e-12)
        return e < 0 ? "(-11/4)" : "(11/4)";
    return e < 0 ? fmt::format("({:g})", e) : fmt::format("{:g}", e);
}

std::string term_text(const Term& t, const std::string& name) {
    std::string out;
    if (t.i != 0.0)
        out = t.i == 1.0 ? name : fmt::format("{}^{}", name, exponent_text(t.i));
    if (t.j != 0) {
        if (!out.empty())
            out += "·";
        out += t.j == 1 ? fmt::format("log2({})", name) : fmt::format("log2({})^{}", name, t.j);
    }
    return out;
}

std::string compound_text(const Compound& c, const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t k = 0; k < names.size(); ++k) {
        const std::string t = term_text(c[k], names[k]);
        if (t.empty())
            continue;
        if (!out.empty())
            out += "·";
        out += t;
    }
    return out.empty() ? "1" : out;
}

std::string num(double v) {
    return fmt::format("{:.8g}", v);
}

// "a + b·t" with the sign of b folded in.
std::string signed_term(double c, const std::string& t) {
    return fmt::format(" {} {}·{}", c < 0 ? "-" : "+", num(std::abs(c)), t);
}

// ---------------------------------------------------------------------------------------------
// Two-coefficient least squares y = c0 + c1·b on a subset, centred two-pass form for accuracy
// when b spans many orders of magnitude. Constraints of the families are applied as active sets:
// for the inverse family the optimum with c0 < 0 lies on c0 = 0 (then c1 = Σby/Σb²); for the
// logarithmic family c1 = 1/log2(a) must be > 0, otherwise the family has no admissible fit.
struct Line {
    double c0 = 0.0, c1 = 0.0;
    bool ok = false;
};

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

// ---------------------------------------------------------------------------------------------
// Exponential family a·b^(-x) + c, b > 1, c >= 0. With r = ln b the model is a·e^(-r·x) + c, linear
// in (a, c) for fixed r: variable projection (Golub & Pereyra 1973) leaves a one-dimensional
// problem in ρ = ln r (so that r > 0, i.e. b > 1), solved with Eigen's Levenberg–Marquardt.
struct ExpCoef {
    double a = 0.0, r = 0.0, c = 0.0;
    double rss = k_inf;
    bool ok = false;
};

// Best (a, c >= 0) for a fixed rate r; writes the residuals y - model to `res` when given.
ExpCoef exp_project(double r, const double* x, const double* y, const int* idx, int m,
                    double* res = nullptr) {
    ExpCoef e;
    e.r = r;
    constexpr int k_stack = 64;
    std::array<double, k_stack> stack{};
    std::vector<double> heap;
    double* ev = stack.data();
    if (m > k_stack) {
        heap.resize(static_cast<std::size_t>(m));
        ev = heap.data();
    }
    double me = 0.0, my = 0.0;
    for (int k = 0; k < m; ++k) {
        ev[k] = std::exp(-r * x[idx[k]]);
        me += ev[k];
        my += y[idx[k]];
    }
    me /= m;
    my /= m;
    double see = 0.0, sey = 0.0;
    for (int k = 0; k < m; ++k) {
        const double de = ev[k] - me;
        see += de * de;
        sey += de * (y[idx[k]] - my);
    }
    if (!(see > 1e-300)) {
        if (res)
            std::fill(res, res + m, 1e100);
        return e;
    }
    e.a = sey / see;
    e.c = my - e.a * me;
    if (e.c < 0.0) { // active constraint c = 0
        double s_ey = 0.0, s_ee = 0.0;
        for (int k = 0; k < m; ++k) {
            s_ey += ev[k] * y[idx[k]];
            s_ee += ev[k] * ev[k];
        }
        e.c = 0.0;
        e.a = s_ee > 0.0 ? s_ey / s_ee : 0.0;
    }
    e.rss = 0.0;
    for (int k = 0; k < m; ++k) {
        const double d = y[idx[k]] - (e.a * ev[k] + e.c);
        if (res)
            res[k] = d;
        e.rss += d * d;
    }
    e.ok = std::isfinite(e.rss) && std::isfinite(e.a);
    return e;
}

double rate_of(double rho) {
    return std::exp(std::clamp(rho, -60.0, 30.0));
}

// Levenberg–Marquardt on the one-dimensional projected problem min_ρ ||res(ρ)||² (Marquardt,
// SIAM J. Appl. Math. 11(2), 1963): step δ = -Jᵀr / (JᵀJ·(1 + λ)), λ shrunk after an accepted step
// and grown after a rejected one; the Jacobian is a central difference. Written for one unknown so
// that the hot loop allocates nothing (residuals live on the stack for up to 64 points).
ExpCoef minimize_rate(double rho, const double* x, const double* y, const int* idx, int m) {
    constexpr int k_stack = 64;
    std::array<double, k_stack> r0{}, rp{}, rm{};
    std::vector<double> heap;
    double *f = r0.data(), *fp = rp.data(), *fm = rm.data();
    if (m > k_stack) {
        heap.resize(3 * static_cast<std::size_t>(m));
        f = heap.data();
        fp = f + m;
        fm = fp + m;
    }
    ExpCoef cur = exp_project(rate_of(rho), x, y, idx, m, f);
    double lambda = 1e-3;
    for (int iter = 0; iter < 100 && cur.ok; ++iter) {
        const double h = 1e-6 * std::max(1.0, std::abs(rho));
        exp_project(rate_of(rho + h), x, y, idx, m, fp);
        exp_project(rate_of(rho - h), x, y, idx, m, fm);
        double g = 0.0, hess = 0.0;
        for (int k = 0; k < m; ++k) {
            const double j = (fp[k] - fm[k]) / (2.0 * h);
            g += j * f[k];
            hess += j * j;
        }
        if (!(hess > 0.0) || !std::isfinite(g))
            break;
        bool accepted = false;
        for (int tries = 0; tries < 20; ++tries) {
            const double step = -g / (hess * (1.0 + lambda));
            const double next = std::clamp(rho + step, -60.0, 30.0);
            const ExpCoef trial = exp_project(rate_of(next), x, y, idx, m, fp);
            if (trial.ok && trial.rss < cur.rss) {
                const double gain = cur.rss - trial.rss;
                rho = next;
                cur = trial;
                std::copy(fp, fp + m, f);
                lambda = std::max(lambda / 10.0, 1e-12);
                accepted = true;
                if (std::abs(step) < 1e-10 * (1.0 + std::abs(rho)) || gain <= 1e-14 * trial.rss)
                    return cur;
                break;
            }
            lambda *= 10.0;
        }
        if (!accepted)
            break;
    }
    return cur;
}

ExpCoef fit_exponential(const double* x, const double* y, const int* idx, int m, double rho_start) {
    ExpCoef best;
    if (m < 3)
        return best;
    double lo = k_inf, hi = -k_inf;
    for (int k = 0; k < m; ++k) {
        lo = std::min(lo, x[idx[k]]);
        hi = std::max(hi, x[idx[k]]);
    }
    if (!(hi > lo))
        return best;
    // Starts: the given one (from a fit on all points) or decays over 1/10, 1 and 10 spans.
    std::array<double, 3> starts{};
    int nstarts = 0;
    if (std::isfinite(rho_start)) {
        starts[nstarts++] = rho_start;
    } else {
        for (double f : {0.1, 1.0, 10.0})
            starts[nstarts++] = std::log(f / (hi - lo));
    }
    for (int s = 0; s < nstarts; ++s) {
        const ExpCoef e = minimize_rate(starts[static_cast<std::size_t>(s)], x, y, idx, m);
        // A rate whose decay over the measured span is below 1 % is the linear limit of the family
        // (a → ±∞, b → 1), which the linear candidate already covers without the cancellation.
        if (e.ok && e.r * (hi - lo) >= 1e-2 && e.rss < best.rss)
            best = e;
    }
    return best;
}

// ---------------------------------------------------------------------------------------------

double relative_error(double predicted, double measured, double scale) {
    const double denom = std::abs(measured) > 1e-12 * scale ? std::abs(measured) : scale;
    return std::abs(predicted - measured) / denom;
}

// Validation folds: (training size/indices, held-out index). Points are in "scale" order, so the
// forecast folds hold out the largest points and train on everything smaller.
struct Folds {
    std::vector<std::vector<int>> train;
    std::vector<int> test;
};

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

} // namespace

// ---------------------------------------------------------------------------------------------

class Basis {
public:
    explicit Basis(std::vector<double> xs) : m_x(std::move(xs)) {
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
    struct Cand {
        Term term;
        Family family;
        std::size_t offset;
    };
    const std::vector<double>& x() const { return m_x; }
    const std::vector<Cand>& candidates() const { return m_cands; }
    const double* column(const Cand& c) const { return m_cols.data() + c.offset; }
    std::size_t skipped() const { return m_skipped; }

private:
    std::vector<double> m_x;
    std::vector<Cand> m_cands;
    std::vector<double> m_cols;
    std::size_t m_skipped = 0;
};

namespace {

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

// Best PMNF term (or constant) by residual sum of squares on a subset: the segment model of the
// piecewise family (all candidates have two coefficients, so RSS ranks them fairly).
Model best_segment(const Basis& basis, const double* y, const int* idx, int m, double* rss_out) {
    Model best = constant_model(mean_of(y, idx, m));
    double best_rss = 0.0;
    for (int k = 0; k < m; ++k)
        best_rss += (y[idx[k]] - best.coef[0]) * (y[idx[k]] - best.coef[0]);
    for (const auto& c : basis.candidates()) {
        if (c.family != Family::pmnf)
            continue;
        const double* b = basis.column(c);
        const Line l = fit_line(b, y, idx, m, c.family);
        if (!l.ok)
            continue;
        double rss = 0.0;
        for (int k = 0; k < m; ++k) {
            const double d = y[idx[k]] - (l.c0 + l.c1 * b[idx[k]]);
            rss += d * d;
        }
        if (rss < best_rss * (1.0 - 1e-9) - 1e-300) {
            best_rss = rss;
            best = line_model(c, l);
        }
    }
    *rss_out = best_rss;
    return best;
}

// Piecewise model on a subset: every admissible split into `segments` runs of >= 3 points, each
// segment its best PMNF term; the split with the lowest total RSS wins.
std::optional<Model> fit_piecewise(const Basis& basis, const double* y, const int* idx, int m) {
    constexpr int k_min_seg = 3;
    const int max_segments = m >= 9 ? 3 : (m >= 6 ? 2 : 1);
    if (max_segments < 2)
        return std::nullopt;
    const auto& x = basis.x();
    std::optional<Model> best;
    double best_rss = k_inf;
    auto consider = [&](const std::vector<int>& cuts) {
        Model pw;
        pw.family = Family::piecewise;
        double total = 0.0;
        int start = 0;
        for (std::size_t s = 0; s <= cuts.size(); ++s) {
            const int end = s < cuts.size() ? cuts[s] : m;
            double rss = 0.0;
            pw.segments.push_back(best_segment(basis, y, idx + start, end - start, &rss));
            total += rss;
            if (s < cuts.size()) {
                const double a = x[static_cast<std::size_t>(idx[end - 1])];
                const double b = x[static_cast<std::size_t>(idx[end])];
                pw.breaks.push_back(a > 0.0 ? std::sqrt(a * b) : 0.5 * (a + b));
            }
            start = end;
        }
        if (total < best_rss) {
            best_rss = total;
            best = std::move(pw);
        }
    };
    for (int c1 = k_min_seg; c1 <= m - k_min_seg; ++c1) {
        consider({c1});
        if (max_segments >= 3)
            for (int c2 = c1 + k_min_seg; c2 <= m - k_min_seg; ++c2)
                consider({c1, c2});
    }
    return best;
}

// ---------------------------------------------------------------------------------------------
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
    if (!a.allFinite())
        return std::nullopt;
    // Scale columns so that x^3·log2(x)^2 and 1 share one numerical range before QR.
    Eigen::VectorXd scale = a.colwise().norm().transpose();
    for (int t = 0; t < p; ++t)
        if (scale(t) > 0.0)
            a.col(t) /= scale(t);
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
    if (qr.rank() < p)
        return std::nullopt;
    const Eigen::VectorXd sol = qr.solve(rhs);
    std::vector<double> c(static_cast<std::size_t>(p));
    for (int t = 0; t < p; ++t)
        c[static_cast<std::size_t>(t)] = sol(t) / scale(t);
    return c;
}

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

bool better(double score, double best) {
    return score < best * (1.0 - 1e-9) - 1e-12;
}

// How many measured (log-)ranges x lies beyond the points xs, the largest over the parameters.
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
            if (!(hi > lo))
                d = k_inf;
            else if (lo > 0.0 && x[k] > 0.0)
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

struct Prepared {
    std::vector<Coord> xs;
    std::vector<double> ys;
    double scale = 0.0;
};

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

void fit_one_parameter(Fit& f, const Prepared& p, const Basis& basis, Selection sel) {
    const int n = static_cast<int>(p.ys.size());
    const double* y = p.ys.data();
    const auto& bx = basis.x();
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
    const Folds folds = make_folds(n, sel);
    std::vector<int> all(static_cast<std::size_t>(n)); // every point, for full fits
    std::iota(all.begin(), all.end(), 0);
    double best = k_inf;
    std::size_t count = 0;
    // Scores of every candidate, kept to find the near-best ones whose predictions widen the interval
    // (model-selection uncertainty). Index: PMNF/family columns, then constant, exponential, piecewise.
    const std::size_t ncols = basis.candidates().size();
    std::vector<double> scores(ncols + 3, k_inf);
    std::size_t chosen = ncols;
    std::optional<Model> exp_model, pw_model;
    // Constant first: it wins ties.
    {
        const auto fit_on = [&](const int* idx, int m) {
            return std::optional<Model>(constant_model(mean_of(y, idx, m)));
        };
        best = score_candidate(fit_on, folds, sel, p.xs, p.ys, p.scale, 1);
        scores[ncols] = best;
        f.model = constant_model(std::accumulate(p.ys.begin(), p.ys.end(), 0.0) / n);
        ++count;
    }
    for (std::size_t ci = 0; ci < ncols; ++ci) {
        const auto& c = basis.candidates()[ci];
        const double* b = basis.column(c);
        // Fast path: scores straight from the precomputed column, no Model built per fold.
        double s = 0.0;
        bool ok = true;
        if (sel == Selection::mape || folds.test.empty()) {
            const Line l = fit_line(b, y, all.data(), n, c.family);
            ok = l.ok;
            for (int i = 0; ok && i < n; ++i)
                s += relative_error(l.c0 + l.c1 * b[i], y[i], p.scale);
            s /= n;
        } else {
            for (std::size_t k = 0; ok && k < folds.test.size(); ++k) {
                const auto& tr = folds.train[k];
                const Line l = fit_line(b, y, tr.data(), static_cast<int>(tr.size()), c.family);
                ok = l.ok;
                const int t = folds.test[k];
                s += relative_error(l.c0 + l.c1 * b[t], y[t], p.scale);
            }
            s /= static_cast<double>(folds.test.size());
        }
        ++count;
        if (ok && std::isfinite(s))
            scores[ci] = s;
        if (!ok || !std::isfinite(s) || !better(s, best))
            continue;
        const Line full = fit_line(b, y, all.data(), n, c.family);
        if (!full.ok)
            continue;
        best = s;
        chosen = ci;
        f.model = line_model(c, full);
    }
    // Exponential family (three coefficients).
    if (n >= 3) {
        const ExpCoef full = fit_exponential(bx.data(), y, all.data(), n, std::nan(""));
        if (full.ok) {
            const double rho = std::log(full.r);
            const auto to_model = [](const ExpCoef& e) {
                Model m;
                m.family = Family::exponential;
                m.coef = {e.a, std::exp(e.r), e.c};
                return m;
            };
            const auto fit_on = [&](const int* idx, int m) -> std::optional<Model> {
                if (m == n)
                    return to_model(full);
                const ExpCoef e = fit_exponential(bx.data(), y, idx, m, rho);
                if (!e.ok)
                    return std::nullopt;
                return to_model(e);
            };
            const double s = score_candidate(fit_on, folds, sel, p.xs, p.ys, p.scale, 3);
            ++count;
            scores[ncols + 1] = s;
            exp_model = to_model(full);
            if (better(s, best)) {
                best = s;
                chosen = ncols + 1;
                f.model = *exp_model;
            }
        }
    }
    // Piecewise: only with enough points for two segments of three.
    if (n >= 6) {
        const auto fit_on = [&](const int* idx, int m) { return fit_piecewise(basis, y, idx, m); };
        const double s = score_candidate(fit_on, folds, sel, p.xs, p.ys, p.scale, 6);
        ++count;
        pw_model = fit_piecewise(basis, y, all.data(), n);
        if (pw_model)
            scores[ncols + 2] = s;
        if (pw_model && better(s, best)) {
            best = s;
            chosen = ncols + 2;
            f.model = *pw_model;
        }
    }
    f.candidates = count;
    // Near-best contenders: score within twice the best (plus rounding), up to k_max_alternatives.
    constexpr std::size_t k_max_alternatives = 4;
    if (std::isfinite(best)) {
        std::vector<std::size_t> near;
        for (std::size_t k = 0; k < scores.size(); ++k)
            if (k != chosen && scores[k] <= 2.0 * best + 1e-12)
                near.push_back(k);
        std::sort(near.begin(), near.end(),
                  [&](std::size_t u, std::size_t v) { return scores[u] < scores[v]; });
        for (std::size_t k : near) {
            if (f.alternatives.size() == k_max_alternatives)
                break;
            if (k < ncols) {
                const auto& c = basis.candidates()[k];
                const Line l = fit_line(basis.column(c), y, all.data(), n, c.family);
                if (l.ok)
                    f.alternatives.push_back(line_model(c, l));
            } else if (k == ncols) {
                f.alternatives.push_back(constant_model(mean_of(y, all.data(), n)));
            } else if (k == ncols + 1 && exp_model) {
                f.alternatives.push_back(*exp_model);
            } else if (k == ncols + 2 && pw_model) {
                f.alternatives.push_back(*pw_model);
            }
        }
    }
    if (sel != Selection::mape && !folds.test.empty() && std::isfinite(best)) {
        f.validation_error = best;
        f.validation_distance = fold_distance(p.xs, folds, sel, 1);
    }
    if (sel != Selection::mape && folds.test.empty())
        f.notes.push_back("too few points to validate: selected by MAPE");
}

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
    for (const auto& h : hyps) {
        const auto fit_on = [&](const int* idx, int m) -> std::optional<Model> {
            const auto c = fit_compounds(h, p.xs, y, idx, m);
            if (!c)
                return std::nullopt;
            Model mdl;
            mdl.family = Family::pmnf;
            mdl.terms = h;
            mdl.coef = *c;
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

Fit fit_prepared(const Series& s, std::size_t parameters, Selection sel, const Basis* basis) {
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
                fit_one_parameter(f, p, *basis, sel);
            } else {
                std::vector<double> x;
                for (const auto& c : p.xs)
                    x.push_back(c[0]);
                fit_one_parameter(f, p, Basis(x), sel);
            }
        } else {
            fit_two_parameters(f, p, sel);
        }
    }
    finish(f);
    return f;
}

} // namespace

Selection parse_selection(const std::string& text) {
    if (text == "forecast")
        return Selection::forecast;
    if (text == "loo")
        return Selection::loo;
    if (text == "mape")
        return Selection::mape;
    throw core::InputError("", "--select", fmt::format("expected forecast, loo or mape, got '{}'", text));
}

const char* to_string(Selection s) {
    switch (s) {
    case Selection::forecast:
        return "forecast";
    case Selection::loo:
        return "loo";
    case Selection::mape:
        return "mape";
    }
    return "?";
}

const char* to_string(Family f) {
    switch (f) {
    case Family::constant:
        return "constant";
    case Family::pmnf:
        return "pmnf";
    case Family::linear:
        return "linear";
    case Family::inverse:
        return "inverse";
    case Family::logarithmic:
        return "logarithmic";
    case Family::exponential:
        return "exponential";
    case Family::piecewise:
        return "piecewise";
    }
    return "?";
}

std::size_t Model::parameter_count() const {
    if (family == Family::piecewise) {
        std::size_t n = breaks.size();
        for (const auto& s : segments)
            n += s.parameter_count();
        return n;
    }
    return coef.size();
}

double Model::evaluate(const Coord& x) const {
    switch (family) {
    case Family::exponential:
        return coef[0] * std::pow(coef[1], -x[0]) + coef[2];
    case Family::piecewise: {
        std::size_t k = 0;
        while (k < breaks.size() && x[0] >= breaks[k])
            ++k;
        return segments[k].evaluate(x);
    }
    default: {
        double v = coef.empty() ? 0.0 : coef[0];
        for (std::size_t k = 0; k < terms.size(); ++k)
            v += coef[k + 1] * compound_value(terms[k], x);
        return v;
    }
    }
}

std::string Model::formula(const std::vector<std::string>& names) const {
    const std::string& x = names.empty() ? std::string("x") : names[0];
    switch (family) {
    case Family::constant:
        return num(coef[0]);
    case Family::linear:
        return fmt::format("{}·{} {} {}", num(coef[1]), x, coef[0] < 0 ? "-" : "+", num(std::abs(coef[0])));
    case Family::inverse:
        return fmt::format("{} {} {}/{}", num(coef[0]), coef[1] < 0 ? "-" : "+", num(std::abs(coef[1])), x);
    case Family::logarithmic:
        // log(x)/log(a) = log2(x)/log2(a), so c1 = 1/log2(a) and a = 2^(1/c1).
        return fmt::format("log({})/log({}) {} {}", x, num(std::exp2(1.0 / coef[1])), coef[0] < 0 ? "-" : "+",
                           num(std::abs(coef[0])));
    case Family::exponential:
        return fmt::format("{}·{}^(-{}) + {}", num(coef[0]), num(coef[1]), x, num(coef[2]));
    case Family::piecewise: {
        std::string out;
        for (std::size_t k = 0; k < segments.size(); ++k) {
            if (k > 0)
                out += "; ";
            if (k < breaks.size())
                out += fmt::format("{} < {}: ", x, num(breaks[k]));
            else
                out += fmt::format("{} >= {}: ", x, num(breaks[k - 1]));
            out += segments[k].formula(names);
        }
        return out;
    }
    case Family::pmnf: {
        std::string out = num(coef[0]);
        for (std::size_t k = 0; k < terms.size(); ++k)
            out += signed_term(coef[k + 1], compound_text(terms[k], names));
        return out;
    }
    }
    return "?";
}

Fit fit_series(const Series& s, std::size_t parameters, Selection sel) {
    return fit_prepared(s, parameters, sel, nullptr);
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

std::vector<Fit> fit_all(const Dataset& d, Selection sel) {
    const std::size_t nparams = d.parameters.size();
    std::vector<const Basis*> basis_of(d.series.size(), nullptr);
    std::map<std::vector<double>, std::unique_ptr<Basis>> bases;
    if (nparams == 1) {
        for (std::size_t i = 0; i < d.series.size(); ++i) {
            std::vector<double> key;
            key.reserve(d.series[i].points.size());
            for (const auto& p : d.series[i].points)
                key.push_back(p.x[0]);
            auto& slot = bases[key];
            if (!slot)
                slot = std::make_unique<Basis>(key);
            basis_of[i] = slot.get();
        }
    }
    std::vector<Fit> out(d.series.size());
    const auto n = static_cast<std::ptrdiff_t>(d.series.size());
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        out[k] = fit_prepared(d.series[k], nparams, sel, basis_of[k]);
    }
    return out;
}

double t_quantile_975(std::size_t dof) {
    // Table for small dof; Cornish–Fisher expansion beyond (Abramowitz & Stegun, Eq. 26.7.5).
    static const std::array<double, 30> table = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (dof == 0)
        return k_inf;
    if (dof <= table.size())
        return table[dof - 1];
    const double z = 1.959964;
    const double v = static_cast<double>(dof);
    return z + (z * z * z + z) / (4.0 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96.0 * v * v);
}

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
    std::vector<Coord> xs = f.xs;
    std::vector<double> ys = f.ys;
    if (m->family == Family::piecewise) {
        std::size_t k = 0;
        while (k < m->breaks.size() && x[0] >= m->breaks[k])
            ++k;
        const double lo = k == 0 ? -k_inf : m->breaks[k - 1];
        const double hi = k < m->breaks.size() ? m->breaks[k] : k_inf;
        xs.clear();
        ys.clear();
        for (std::size_t i = 0; i < f.xs.size(); ++i)
            if (f.xs[i][0] >= lo && f.xs[i][0] < hi) {
                xs.push_back(f.xs[i]);
                ys.push_back(f.ys[i]);
            }
        m = &f.model.segments[k];
    }
    std::optional<double> half;
    const std::size_t p = m->coef.size();
    if (xs.size() > p) {
        double rss = 0.0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double d = ys[i] - m->evaluate(xs[i]);
            rss += d * d;
        }
        const double s2 = rss / static_cast<double>(xs.size() - p);
        // Jacobian of the model in its coefficients by central differences (exact for the models
        // that are linear in their coefficients, first-order for the exponential family).
        Model probe = *m;
        auto gradient = [&](const Coord& at) {
            Eigen::VectorXd g(static_cast<Eigen::Index>(p));
            for (std::size_t c = 0; c < p; ++c) {
                const double h = 1e-6 * std::max(std::abs(m->coef[c]), 1e-6);
                probe.coef[c] = m->coef[c] + h;
                const double up = probe.evaluate(at);
                probe.coef[c] = m->coef[c] - h;
                const double down = probe.evaluate(at);
                probe.coef[c] = m->coef[c];
                g(static_cast<Eigen::Index>(c)) = (up - down) / (2.0 * h);
            }
            return g;
        };
        Eigen::MatrixXd j(static_cast<Eigen::Index>(xs.size()), static_cast<Eigen::Index>(p));
        for (std::size_t i = 0; i < xs.size(); ++i)
            j.row(static_cast<Eigen::Index>(i)) = gradient(xs[i]).transpose();
        const Eigen::VectorXd g = gradient(x);
        if (j.allFinite() && g.allFinite()) {
            const Eigen::MatrixXd jtj = j.transpose() * j;
            const Eigen::VectorXd sol = jtj.completeOrthogonalDecomposition().solve(g);
            const double var = s2 * (1.0 + g.dot(sol)) + f.repetition_rel_variance * pr.value * pr.value;
            if (std::isfinite(var) && var >= 0.0)
                half = t_quantile_975(xs.size() - p) * std::sqrt(var);
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
