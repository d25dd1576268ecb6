#include "model/scale/fit_detail.hpp"

#include <algorithm>
#include <cmath>

namespace roofcast::model::scale::detail {

namespace {

// ---------------------------------------------------------------------------------------------
// Exponential family a·b^(-x) + c, b > 1, c >= 0. With r = ln b the model is a·e^(-r·x) + c, linear
// in (a, c) for fixed r: variable projection (Golub & Pereyra 1973) leaves a one-dimensional
// problem in ρ = ln r (so that r > 0, i.e. b > 1), solved with Eigen's Levenberg–Marquardt.

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

} // namespace

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

} // namespace roofcast::model::scale::detail
