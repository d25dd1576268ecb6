// The two stencils of roofcast-stencil on a local field with a deep halo, and the sweep over one box.
// Contract: a Field stores the points of [origin, origin + extent) of the global grid, x contiguous; a
// sweep reads `in` and writes `out` at every point of a box (global indices) and, for Himeno, adds the
// squared residual of each point to `gosa` when asked. The point updates are written out operation by
// operation and the runner is compiled with -ffp-contract=off, so that every rank, every blocking depth
// and the serial reference produce the same bits for the same inputs.
#pragma once

#include "analysis/stencil/geometry.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

namespace roofcast::stencil {

using model::stencil::Box;
using model::stencil::Index3;

template <typename T> struct Field {
    Index3 origin{0, 0, 0};
    Index3 extent{0, 0, 0};
    std::vector<T> data;

    void allocate(const Index3& o, const Index3& e) {
        origin = o;
        extent = e;
        data.assign(static_cast<std::size_t>(e[0] * e[1] * e[2]), T(0));
    }
    std::size_t at(long z, long y, long x) const {
        return static_cast<std::size_t>(((z - origin[0]) * extent[1] + (y - origin[1])) * extent[2] +
                                        (x - origin[2]));
    }
    long stride_y() const { return extent[2]; }
    long stride_z() const { return extent[1] * extent[2]; }
};

// A deterministic initial value of a global point (boundary points keep it for ever).
inline double initial_value(long z, long y, long x) {
    return static_cast<double>((z * 29 + y * 13 + x * 7) % 97) / 97.0;
}

// 3-D 7-point Jacobi, double: u' = c0 u + c1 (sum of the six face neighbours); 8 flops per point.
struct Jacobi7 {
    using Real = double;
    static constexpr int k_radius = 1;
    static constexpr double k_flops = 8;
    static constexpr double k_c0 = 0.4;
    static constexpr double k_c1 = 0.1;
    static Real update(const Real* p, long sy, long sz, double&) {
        const Real s = ((((p[-1] + p[1]) + p[-sy]) + p[sy]) + p[-sz]) + p[sz];
        return k_c0 * p[0] + k_c1 * s;
    }
};

// Himeno benchmark's Poisson kernel (Himeno, RIKEN; jacobi() of himenoBMTxp), single precision, 19 points,
// 34 flops per point. The original's coefficient arrays a, b, c, bnd, wrk1 hold constants (a0..a2 = 1,
// a3 = 1/6, b = 0, c = 1, bnd = 1, wrk1 = 0); here they are those scalars, read at run time so that no
// term folds away, and the field traffic is that of p and wrk2 alone (see docs/stencil.md).
struct Himeno {
    using Real = float;
    static constexpr int k_radius = 1;
    static constexpr double k_flops = 34;
    static inline volatile float a0 = 1, a1 = 1, a2 = 1, a3 = 1.0f / 6, b0 = 0, b1 = 0, b2 = 0, c0 = 1,
                                 c1 = 1, c2 = 1, wrk1 = 0, bnd = 1, omega = 0.8f;
    struct Coef {
        float a0, a1, a2, a3, b0, b1, b2, c0, c1, c2, wrk1, bnd, omega;
    };
    static Coef coef() { return {a0, a1, a2, a3, b0, b1, b2, c0, c1, c2, wrk1, bnd, omega}; }
    // p points at (z, y, x); i = z, j = y, k = x in Himeno's p[i][j][k].
    static Real update(const Real* p, long sy, long sz, double& gosa, const Coef& c) {
        const float s0 = c.a0 * p[sz] + c.a1 * p[sy] + c.a2 * p[1] +
                         c.b0 * (p[sz + sy] - p[sz - sy] - p[-sz + sy] + p[-sz - sy]) +
                         c.b1 * (p[sy + 1] - p[-sy + 1] - p[sy - 1] + p[-sy - 1]) +
                         c.b2 * (p[sz + 1] - p[-sz + 1] - p[sz - 1] + p[-sz - 1]) + c.c0 * p[-sz] +
                         c.c1 * p[-sy] + c.c2 * p[-1] + c.wrk1;
        const float ss = (s0 * c.a3 - p[0]) * c.bnd;
        gosa += static_cast<double>(ss) * ss;
        return p[0] + c.omega * ss;
    }
};

// Applies one sweep of kernel K to box b (global indices): out = K(in) there. `gosa` (may be null)
// receives the sum of squared residuals over the box. Parallel over (z, y) rows with OpenMP.
template <typename K>
void sweep(const Box& b, const Field<typename K::Real>& in, Field<typename K::Real>& out, double* gosa) {
    if (b.empty())
        return;
    using Real = typename K::Real;
    const long sy = in.stride_y(), sz = in.stride_z();
    const long nx = b.hi[2] - b.lo[2];
    double total = 0;
    [[maybe_unused]] const auto coef = [] {
        if constexpr (requires { K::coef(); })
            return K::coef();
        else
            return 0;
    }();
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : total)
    for (long z = b.lo[0]; z < b.hi[0]; ++z)
        for (long y = b.lo[1]; y < b.hi[1]; ++y) {
            const Real* src = in.data.data() + in.at(z, y, b.lo[2]);
            Real* dst = out.data.data() + out.at(z, y, b.lo[2]);
            double g = 0;
            for (long x = 0; x < nx; ++x) {
                if constexpr (requires { K::coef(); })
                    dst[x] = K::update(src + x, sy, sz, g, coef);
                else
                    dst[x] = K::update(src + x, sy, sz, g);
            }
            total += g;
        }
    if (gosa)
        *gosa += total;
}

} // namespace roofcast::stencil
