// roofcast-example-cg: conjugate gradients on the 7-point Laplacian of an n x n x n grid (Dirichlet
// boundary), rows distributed over the MPI ranks in z-slabs, instrumented with the roofcast marker API.
// Each kernel is a separate non-inlined function, so tools that attribute counts per function (valgrind's
// cachegrind, perf) see the same units as the marker regions. Prints the residual norms and a checksum.
// Usage: mpirun -np P roofcast-example-cg [--n SIZE] [--iters K]
#include "roofcast/marker.h"
#include "slab.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace cg {

using roofcast::examples::Slab;

struct Csr {
    std::vector<std::int64_t> row_ptr;
    std::vector<std::int32_t> col; // index into a field with halo planes (see slab.hpp)
    std::vector<double> val;
    std::size_t rows() const { return row_ptr.size() - 1; }
    std::size_t nnz() const { return val.size(); }
};

// Row (x, y, z) of the standard 7-point discretisation of -Laplace: 6 on the diagonal, -1 for each
// neighbour inside the grid (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., sec. 2.2).
ROOFCAST_EXAMPLE_KERNEL Csr build_laplacian(const Slab& s) {
    const std::int64_t n = s.n;
    const std::int64_t plane = n * n;
    Csr a;
    a.row_ptr.reserve(static_cast<std::size_t>(plane * s.nz + 1));
    a.row_ptr.push_back(0);
    for (std::int64_t lz = 0; lz < s.nz; ++lz) {
        const std::int64_t z = s.z0 + lz;
        for (std::int64_t y = 0; y < n; ++y) {
            for (std::int64_t x = 0; x < n; ++x) {
                const std::int64_t self = (lz + 1) * plane + y * n + x;
                auto add = [&](bool inside, std::int64_t column, double value) {
                    if (inside) {
                        a.col.push_back(static_cast<std::int32_t>(column));
                        a.val.push_back(value);
                    }
                };
                add(z > 0, self - plane, -1.0);
                add(y > 0, self - n, -1.0);
                add(x > 0, self - 1, -1.0);
                add(true, self, 6.0);
                add(x + 1 < n, self + 1, -1.0);
                add(y + 1 < n, self + n, -1.0);
                add(z + 1 < n, self + plane, -1.0);
                a.row_ptr.push_back(static_cast<std::int64_t>(a.val.size()));
            }
        }
    }
    return a;
}

ROOFCAST_EXAMPLE_KERNEL void spmv(const Csr& a, const double* x_with_halo, double* y) {
    const std::size_t rows = a.rows();
    for (std::size_t i = 0; i < rows; ++i) {
        double sum = 0.0;
        for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            sum += a.val[static_cast<std::size_t>(k)] * x_with_halo[a.col[static_cast<std::size_t>(k)]];
        }
        y[i] = sum;
    }
}

ROOFCAST_EXAMPLE_KERNEL double dot(const double* a, const double* b, std::size_t n, MPI_Comm comm) {
    double local = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        local += a[i] * b[i];
    }
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    return global;
}

// y += alpha * x
ROOFCAST_EXAMPLE_KERNEL void axpy(double alpha, const double* x, double* y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        y[i] += alpha * x[i];
    }
}

// y = x + beta * y
ROOFCAST_EXAMPLE_KERNEL void xpay(const double* x, double beta, double* y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        y[i] = x[i] + beta * y[i];
    }
}

struct Result {
    double initial_residual;
    double final_residual;
    double checksum;
};

// Unpreconditioned CG for A x = b with b = 1 and x0 = 0 (Saad, Algorithm 6.18). Declared work per call is
// the compulsory traffic of each kernel: every array read or written once, write-allocate not counted.
ROOFCAST_EXAMPLE_KERNEL Result cg_solve(const Csr& a, const Slab& s, int iters, MPI_Comm comm) {
    const std::size_t rows = a.rows();
    const std::size_t plane = static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.n);
    const double rows_d = static_cast<double>(rows);
    std::vector<double> x(rows, 0.0), r(rows, 1.0), q(rows, 0.0);
    std::vector<double> p_with_halo(rows + 2 * plane, 0.0);
    double* p = p_with_halo.data() + plane;
    std::copy(r.begin(), r.end(), p);

    roofcast_region_begin("cg");
    roofcast_region_begin("dot");
    double rr = dot(r.data(), r.data(), rows, comm);
    roofcast_region_work(2.0 * rows_d, 8.0 * rows_d);
    roofcast_region_end("dot");
    const double initial = std::sqrt(rr);
    const double spmv_bytes = 12.0 * static_cast<double>(a.nnz()) + 8.0 * static_cast<double>(rows + 1) +
                              8.0 * rows_d + 8.0 * static_cast<double>(rows + 2 * plane);
    for (int it = 0; it < iters; ++it) {
        roofcast_region_begin("halo"); // communication: no declared work
        roofcast::examples::exchange_halo(p_with_halo.data(), plane, s, comm);
        roofcast_region_end("halo");

        roofcast_region_begin("spmv");
        spmv(a, p_with_halo.data(), q.data());
        roofcast_region_work(2.0 * static_cast<double>(a.nnz()), spmv_bytes);
        roofcast_region_end("spmv");

        roofcast_region_begin("dot");
        const double pq = dot(p, q.data(), rows, comm);
        roofcast_region_work(2.0 * rows_d, 16.0 * rows_d);
        roofcast_region_end("dot");
        const double alpha = rr / pq;

        roofcast_region_begin("axpy");
        axpy(alpha, p, x.data(), rows);
        roofcast_region_work(2.0 * rows_d, 24.0 * rows_d);
        roofcast_region_end("axpy");
        roofcast_region_begin("axpy");
        axpy(-alpha, q.data(), r.data(), rows);
        roofcast_region_work(2.0 * rows_d, 24.0 * rows_d);
        roofcast_region_end("axpy");

        roofcast_region_begin("dot");
        const double rr_new = dot(r.data(), r.data(), rows, comm);
        roofcast_region_work(2.0 * rows_d, 8.0 * rows_d);
        roofcast_region_end("dot");

        roofcast_region_begin("axpy");
        xpay(r.data(), rr_new / rr, p, rows);
        roofcast_region_work(2.0 * rows_d, 24.0 * rows_d);
        roofcast_region_end("axpy");
        rr = rr_new;
    }
    roofcast_region_end("cg");

    double local_sum = 0.0;
    for (double v : x) {
        local_sum += v;
    }
    double checksum = 0.0;
    MPI_Allreduce(&local_sum, &checksum, 1, MPI_DOUBLE, MPI_SUM, comm);
    return {initial, std::sqrt(rr), checksum};
}

} // namespace cg

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto options = roofcast::examples::parse_options(argc, argv, {32, 50});
    if (!options || options->n < size) {
        if (options && rank == 0) {
            std::fprintf(stderr, "%s: error: --n: expected at least one plane per rank (%d ranks)\n", argv[0],
                         size);
        }
        MPI_Finalize();
        return 2;
    }
    const roofcast::examples::Slab slab = roofcast::examples::make_slab(options->n, rank, size);

    roofcast_region_begin("setup");
    const cg::Csr a = cg::build_laplacian(slab);
    roofcast_region_end("setup");

    const cg::Result result = cg::cg_solve(a, slab, options->iters, MPI_COMM_WORLD);
    if (rank == 0) {
        std::printf("cg: n %d, ranks %d, iterations %d\n", options->n, size, options->iters);
        std::printf("residual: initial %.6e final %.6e\n", result.initial_residual, result.final_residual);
        std::printf("checksum: %.17g\n", result.checksum);
    }
    MPI_Finalize();
    return 0;
}
