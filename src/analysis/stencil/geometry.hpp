// Geometry of the deep-halo stencil schedule, shared by the MPI runner (roofcast-stencil) and the model
// that predicts it, so that both count the same cells. Pure functions, no MPI, no timing.
//
// Contract. The global grid has n[d] points per dimension (d = 0: z, 1: y, 2: x; x contiguous); points with
// a global index 0 or n - 1 are fixed boundary values, the others are updated by every sweep. A Cartesian
// process grid p[d] splits each dimension into blocks (the first n % p blocks one point larger); a rank owns
// [lo, hi) per dimension. A block of kb sweeps after one exchange of halo width W = kb * r (Kawamura,
// Maruyama & Matsuoka, temporal blocking with deep halos): sweep s (0-based) computes its "extended" box,
// the owned box widened by (kb - 1 - s) * r towards every neighbour (the redundant ghost computation), of
// which the "inner" box, the owned box shrunk by (s + 1) * r on every side with a neighbour, needs no
// received data and runs while the messages travel; the rest (the boundary shell) runs after the wait.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace roofcast::model::stencil {

using Index3 = std::array<long, 3>; // z, y, x

struct Box {
    Index3 lo{0, 0, 0};
    Index3 hi{0, 0, 0}; // exclusive
    bool empty() const { return lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]; }
    long cells() const { return empty() ? 0 : (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
};

inline Box intersect(const Box& a, const Box& b) {
    Box c;
    for (int d = 0; d < 3; ++d) {
        c.lo[d] = std::max(a.lo[d], b.lo[d]);
        c.hi[d] = std::min(a.hi[d], b.hi[d]);
    }
    return c;
}

// outer \ inner as at most six disjoint boxes (z slabs, then y slabs, then x slabs); inner must lie
// inside outer or be empty.
inline std::vector<Box> shell(const Box& outer, const Box& inner) {
    std::vector<Box> out;
    if (outer.empty())
        return out;
    if (inner.empty()) {
        out.push_back(outer);
        return out;
    }
    Box rest = outer;
    for (int d = 0; d < 3; ++d) {
        Box below = rest, above = rest;
        below.hi[d] = inner.lo[d];
        above.lo[d] = inner.hi[d];
        if (!below.empty())
            out.push_back(below);
        if (!above.empty())
            out.push_back(above);
        rest.lo[d] = inner.lo[d];
        rest.hi[d] = inner.hi[d];
    }
    return out;
}

// The block of `part` among `parts` of n points: the first n % parts blocks are one point larger.
inline std::pair<long, long> partition(long n, int parts, int part) {
    const long base = n / parts, extra = n % parts;
    const long lo = part * base + std::min<long>(part, extra);
    return {lo, lo + base + (part < extra ? 1 : 0)};
}

// Process grid: decomp "z" puts every rank along z; "3d" splits the rank count into prime factors,
// largest first, each to the dimension with the largest current block (a deterministic stand-in for
// MPI_Dims_create that also weighs the grid's shape).
inline Index3 process_grid(const Index3& n, int ranks, const std::string& decomp) {
    if (decomp == "z")
        return {ranks, 1, 1};
    std::vector<int> factors;
    int rest = ranks;
    for (int f = 2; f * f <= rest; ++f)
        while (rest % f == 0) {
            factors.push_back(f);
            rest /= f;
        }
    if (rest > 1)
        factors.push_back(rest);
    std::sort(factors.rbegin(), factors.rend());
    Index3 p{1, 1, 1};
    for (int f : factors) {
        int best = 0;
        for (int d = 1; d < 3; ++d)
            if (n[d] * p[best] > n[best] * p[d]) // n[d] / p[d] > n[best] / p[best]
                best = d;
        p[best] *= f;
    }
    return p;
}

// The smallest block extent over the dimensions that are split (the limit of the halo width: a halo is
// filled from the immediate neighbour only); a very large number when no dimension is split.
inline long smallest_split_extent(const Index3& n, const Index3& p) {
    long m = 1L << 60;
    for (int d = 0; d < 3; ++d)
        if (p[d] > 1)
            m = std::min(m, n[d] / p[d]);
    return m;
}

// Memory the runner (roofcast-stencil) allocates for a run whose ghost layers are `halo` points deep: on
// every rank two fields of its block widened by the halo on every side (Runner::init in
// src/stencil/main.cpp), and with `check` on rank 0 the gathered grid and two serial reference fields of it
// (Runner::check). The sum over the ranks of a product of per-dimension extents is the product of the
// per-dimension sums, so no rank is visited; in doubles, since a grid refused for its size may overflow a
// long.
struct RunnerBytes {
    double total = 0;        // every rank together
    double largest_rank = 0; // the rank with the largest block (rank 0 with `check`)
};
inline RunnerBytes runner_bytes(const Index3& n, const Index3& p, long halo, double element_bytes,
                                bool check) {
    double sum = 1, largest = 1, whole = 1;
    for (int d = 0; d < 3; ++d) {
        const double parts = static_cast<double>(p[d]), points = static_cast<double>(n[d]);
        sum *= points + parts * 2.0 * static_cast<double>(halo);
        largest *= std::ceil(points / parts) + 2.0 * static_cast<double>(halo);
        whole *= points;
    }
    RunnerBytes b{2 * sum * element_bytes, 2 * largest * element_bytes};
    if (check) {
        b.total += 3 * whole * element_bytes;
        b.largest_rank += 3 * whole * element_bytes;
    }
    return b;
}

struct RankGeometry {
    Box owned;
    std::array<bool, 3> nb_lo{}; // a neighbour below in dimension d
    std::array<bool, 3> nb_hi{};
};

inline RankGeometry rank_geometry(const Index3& n, const Index3& p, const Index3& coord) {
    RankGeometry g;
    for (int d = 0; d < 3; ++d) {
        const auto [lo, hi] = partition(n[d], static_cast<int>(p[d]), static_cast<int>(coord[d]));
        g.owned.lo[d] = lo;
        g.owned.hi[d] = hi;
        g.nb_lo[d] = coord[d] > 0;
        g.nb_hi[d] = coord[d] < p[d] - 1;
    }
    return g;
}

// The updated points of the global grid.
inline Box interior(const Index3& n) {
    return Box{{1, 1, 1}, {n[0] - 1, n[1] - 1, n[2] - 1}};
}

// Sweep s of a block of kb sweeps, radius r: the box it computes (owned widened towards neighbours).
inline Box extended_box(const RankGeometry& g, const Index3& n, int kb, int s, int r) {
    const long w = static_cast<long>(kb - 1 - s) * r;
    Box b = g.owned;
    for (int d = 0; d < 3; ++d) {
        if (g.nb_lo[d])
            b.lo[d] -= w;
        if (g.nb_hi[d])
            b.hi[d] += w;
    }
    return intersect(b, interior(n));
}

// Sweep s: the part that reads no ghost data of this block (the owned box shrunk by (s + 1) r towards
// neighbours). Sweep s reads sweep s - 1's values within r, which the inner box of s - 1 holds.
inline Box inner_box(const RankGeometry& g, const Index3& n, int s, int r) {
    const long w = static_cast<long>(s + 1) * r;
    Box b = g.owned;
    for (int d = 0; d < 3; ++d) {
        if (g.nb_lo[d])
            b.lo[d] += w;
        if (g.nb_hi[d])
            b.hi[d] -= w;
    }
    return intersect(b, interior(n));
}

// The box cut into at most `pieces` slabs along z (the runner lets MPI progress between them).
inline std::vector<Box> z_pieces(const Box& b, int pieces) {
    std::vector<Box> out;
    if (b.empty())
        return out;
    const long nz = b.hi[0] - b.lo[0];
    const int parts = static_cast<int>(std::min<long>(pieces, nz));
    for (int i = 0; i < parts; ++i) {
        const auto [lo, hi] = partition(nz, parts, i);
        Box p = b;
        p.lo[0] = b.lo[0] + lo;
        p.hi[0] = b.lo[0] + hi;
        out.push_back(p);
    }
    return out;
}

// Inner sweeps are cut into this many z pieces (roofcast-stencil lets MPI progress between them); each
// piece is one sweep call, as is each box of the boundary shell (the model counts calls alike).
inline constexpr int k_progress_pieces = 4;

// Both kernels (7-point Jacobi, Himeno's 19 points) reach one point in each direction.
inline constexpr int k_radius = 1;

// One halo message of the exchange before a block: to/from the neighbour at offset `dir` (-1, 0, 1 per
// dimension), W = kb * r wide in the dimensions where dir != 0 and the owned extent elsewhere.
struct HaloMessage {
    Index3 dir{0, 0, 0};
    long cells = 0;
};

inline std::vector<HaloMessage> halo_messages(const RankGeometry& g, long width) {
    std::vector<HaloMessage> out;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const Index3 dir{dz, dy, dx};
                if (dz == 0 && dy == 0 && dx == 0)
                    continue;
                long cells = 1;
                bool exists = true;
                for (int d = 0; d < 3; ++d) {
                    if (dir[d] < 0)
                        exists = exists && g.nb_lo[d];
                    if (dir[d] > 0)
                        exists = exists && g.nb_hi[d];
                    cells *= dir[d] == 0 ? g.owned.hi[d] - g.owned.lo[d] : width;
                }
                if (exists)
                    out.push_back({dir, cells});
            }
    return out;
}

} // namespace roofcast::model::stencil
