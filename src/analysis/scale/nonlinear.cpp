#include "analysis/scale/fit_detail.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

namespace roofcast::model::scale::detail {

namespace {

// ---------------------------------------------------------------------------------------------
// Exponential family a·b^(-x) + c, b > 1, c >= 0. With r = ln b the model is a·e^(-r·x) + c, linear
// in (a, c) for fixed r: variable projection (Golub & Pereyra 1973) leaves a one-dimensional
// problem in ρ = ln r (so that r > 0, i.e. b > 1), solved with Eigen's Levenberg–Marquardt.

// The points of one fit gathered once (x, y and y's centred values, as exp_project used them through
// idx), so that the hundreds of projections of a fit read them contiguously. Every figure is computed as
// before, with the same operations in the same order.
class ExpPoints {
public:
    ExpPoints(const double* x, const double* y, const int* idx, int m) : m_m(m) {
        if (m > k_stack) {
            m_heap = std::make_unique_for_overwrite<double[]>(3 * static_cast<std::size_t>(m));
            m_x = m_heap.get();
        }
        m_y = m_x + (m > k_stack ? m : k_stack);
        m_dy = m_y + (m > k_stack ? m : k_stack);
        double my = 0.0;
        for (int k = 0; k < m; ++k) {
            m_x[k] = x[idx[k]];
            m_y[k] = y[idx[k]];
            my += m_y[k];
        }
        my /= m;
        m_my = my;
        for (int k = 0; k < m; ++k)
            m_dy[k] = m_y[k] - my;
    }
    ExpPoints(const ExpPoints&) = delete; // points into itself
    ExpPoints& operator=(const ExpPoints&) = delete;
    int m() const { return m_m; }
    const double* x() const { return m_x; }
    const double* y() const { return m_y; }
    const double* dy() const { return m_dy; } // y - mean(y)
    double my() const { return m_my; }

private:
    static constexpr int k_stack = 64;
    int m_m;
    double m_my = 0.0;
    double m_stack[3 * k_stack];
    std::unique_ptr<double[]> m_heap;
    double* m_x = m_stack;
    double* m_y = nullptr;
    double* m_dy = nullptr;
};

// Best (a, c >= 0) for N fixed rates r[j] at once (N = 2 for the two sides of a central difference): the
// N projections are independent and interleaved only so that the processor overlaps them. Writes the
// residuals y - model of rate j to res[j] when given.
template <int N> void exp_project_n(const double* r, const ExpPoints& pts, ExpCoef* out, double* const* res) {
    const int m = pts.m();
    const double* x = pts.x();
    const double* y = pts.y();
    const double* dy = pts.dy();
    constexpr int k_stack = 64;
    double stack[N * k_stack]; // written before read
    std::unique_ptr<double[]> heap;
    double* ev = stack;
    if (m > k_stack) {
        heap = std::make_unique_for_overwrite<double[]>(static_cast<std::size_t>(N) *
                                                        static_cast<std::size_t>(m));
        ev = heap.get();
    }
    const int stride = m > k_stack ? m : k_stack;
    double me[N], see[N], sey[N];
    for (int j = 0; j < N; ++j) {
        out[j] = ExpCoef{};
        out[j].r = r[j];
        me[j] = 0.0;
        see[j] = 0.0;
        sey[j] = 0.0;
    }
    for (int k = 0; k < m; ++k)
        for (int j = 0; j < N; ++j) {
            ev[j * stride + k] = std::exp(-r[j] * x[k]);
            me[j] += ev[j * stride + k];
        }
    for (int j = 0; j < N; ++j)
        me[j] /= m;
    for (int k = 0; k < m; ++k)
        for (int j = 0; j < N; ++j) {
            const double de = ev[j * stride + k] - me[j];
            see[j] += de * de;
            sey[j] += de * dy[k];
        }
    for (int j = 0; j < N; ++j) {
        ExpCoef& e = out[j];
        const double* evj = ev + j * stride;
        if (!(see[j] > 1e-300)) {
            if (res && res[j])
                std::fill(res[j], res[j] + m, 1e100);
            continue;
        }
        e.a = sey[j] / see[j];
        e.c = pts.my() - e.a * me[j];
        if (e.c < 0.0) { // active constraint c = 0
            double s_ey = 0.0, s_ee = 0.0;
            for (int k = 0; k < m; ++k) {
                s_ey += evj[k] * y[k];
                s_ee += evj[k] * evj[k];
            }
            e.c = 0.0;
            e.a = s_ee > 0.0 ? s_ey / s_ee : 0.0;
        }
        // Locals, not e's fields: a store through res[j] could alias e and would keep the sum in memory.
        const double a = e.a, c = e.c;
        double* const rj = res ? res[j] : nullptr;
        double rss = 0.0;
        for (int k = 0; k < m; ++k) {
            const double d = y[k] - (a * evj[k] + c);
            if (rj)
                rj[k] = d;
            rss += d * d;
        }
        e.rss = rss;
        e.ok = std::isfinite(rss) && std::isfinite(a);
    }
}

ExpCoef exp_project(double r, const ExpPoints& pts, double* res) {
    ExpCoef e;
    exp_project_n<1>(&r, pts, &e, &res);
    return e;
}

double rate_of(double rho) {
    return std::exp(std::clamp(rho, -60.0, 30.0));
}

// Levenberg–Marquardt on the one-dimensional projected problem min_ρ ||res(ρ)||² (Marquardt,
// SIAM J. Appl. Math. 11(2), 1963): step δ = -Jᵀr / (JᵀJ·(1 + λ)), λ shrunk after an accepted step
// and grown after a rejected one; the Jacobian is a central difference. Written for one unknown so
// that the hot loop allocates nothing (residuals live on the stack for up to 64 points).
ExpCoef minimize_rate(double rho, const ExpPoints& pts) {
    const int m = pts.m();
    constexpr int k_stack = 64;
    double r0[k_stack], rp[k_stack], rm[k_stack]; // written before read
    std::unique_ptr<double[]> heap;
    double *f = r0, *fp = rp, *fm = rm;
    if (m > k_stack) {
        heap = std::make_unique_for_overwrite<double[]>(3 * static_cast<std::size_t>(m));
        f = heap.get();
        fp = f + m;
        fm = fp + m;
    }
    ExpCoef cur = exp_project(rate_of(rho), pts, f);
    double lambda = 1e-3;
    for (int iter = 0; iter < 100 && cur.ok; ++iter) {
        const double h = 1e-6 * std::max(1.0, std::abs(rho));
        const double sides[2] = {rate_of(rho + h), rate_of(rho - h)};
        double* const side_res[2] = {fp, fm};
        ExpCoef side_fit[2];
        exp_project_n<2>(sides, pts, side_fit, side_res);
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
            const ExpCoef trial = exp_project(rate_of(next), pts, fp);
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
    const ExpPoints pts(x, y, idx, m);
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
        const ExpCoef e = minimize_rate(starts[static_cast<std::size_t>(s)], pts);
        // A rate whose decay over the measured span is below 1 % is the linear limit of the family
        // (a → ±∞, b → 1), which the linear candidate already covers without the cancellation.
        if (e.ok && e.r * (hi - lo) >= 1e-2 && e.rss < best.rss)
            best = e;
    }
    return best;
}

} // namespace roofcast::model::scale::detail
