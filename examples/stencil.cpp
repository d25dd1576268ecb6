// roofcast-example-stencil: Jacobi iterations of the 3-D 7-point stencil for -Laplace(u) = 1 on the unit
// cube with u = 0 on the boundary, an n x n x n interior split over the MPI ranks in z-slabs with one halo
// plane per neighbour, instrumented with the roofcast marker API. The checksum is summed plane by plane
// in z order on rank 0, so it is bit-identical for every number of ranks.
// Usage: mpirun -np P roofcast-example-stencil [--n SIZE] [--iters K]
#include "roofcast/marker.h"
#include "slab.hpp"

#include <vector>

namespace stencil {

using roofcast::examples::Slab;

// A field of (n + 2)^2 points per plane (a zero border in x and y) and nz + 2 planes (halos in z).
struct Field {
    std::size_t row = 0;   // n + 2
    std::size_t plane = 0; // (n + 2)^2
    std::vector<double> values;
};

Field make_field(const Slab& s) {
    Field f;
    f.row = static_cast<std::size_t>(s.n) + 2;
    f.plane = f.row * f.row;
    f.values.assign(f.plane * static_cast<std::size_t>(s.nz + 2), 0.0);
    return f;
}

// One Jacobi sweep: u_new = (sum of the six neighbours + h^2 f) / 6 (the 7-point finite-difference
// Laplacian, e.g. LeVeque, Finite Difference Methods, sec. 3.1 / 4.2), 7 flops per point.
ROOFCAST_EXAMPLE_KERNEL void jacobi_sweep(const double* u, double* u_new, std::size_t row, std::size_t plane,
                                          int n, int nz, double h2) {
    const double sixth = 1.0 / 6.0;
    for (int z = 1; z <= nz; ++z) {
        for (int y = 1; y <= n; ++y) {
            const std::size_t base = static_cast<std::size_t>(z) * plane + static_cast<std::size_t>(y) * row;
            for (std::size_t i = base + 1; i <= base + static_cast<std::size_t>(n); ++i) {
                u_new[i] =
                    (u[i - 1] + u[i + 1] + u[i - row] + u[i + row] + u[i - plane] + u[i + plane] + h2) *
                    sixth;
            }
        }
    }
}

// Sums each owned plane, gathers the sums on rank 0 and adds them in global z order.
ROOFCAST_EXAMPLE_KERNEL double checksum(const Field& f, const Slab& s, MPI_Comm comm) {
    std::vector<double> sums(static_cast<std::size_t>(s.nz), 0.0);
    for (int z = 1; z <= s.nz; ++z) {
        double sum = 0.0;
        for (std::size_t i = 0; i < f.plane; ++i) {
            sum += f.values[static_cast<std::size_t>(z) * f.plane + i];
        }
        sums[static_cast<std::size_t>(z - 1)] = sum;
    }
    std::vector<int> counts(static_cast<std::size_t>(s.size)), displs(static_cast<std::size_t>(s.size));
    for (int r = 0; r < s.size; ++r) {
        const Slab other = roofcast::examples::make_slab(s.n, r, s.size);
        counts[static_cast<std::size_t>(r)] = other.nz;
        displs[static_cast<std::size_t>(r)] = other.z0;
    }
    std::vector<double> all(static_cast<std::size_t>(s.n), 0.0);
    MPI_Gatherv(sums.data(), s.nz, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, comm);
    double total = 0.0;
    for (double v : all) {
        total += v;
    }
    return total;
}

} // namespace stencil

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto options = roofcast::examples::parse_options(argc, argv, {64, 100});
    if (!options || options->n < size) {
        if (options && rank == 0) {
            std::fprintf(stderr, "%s: error: --n: expected at least one plane per rank (%d ranks)\n", argv[0],
                         size);
        }
        MPI_Finalize();
        return 2;
    }
    const roofcast::examples::Slab slab = roofcast::examples::make_slab(options->n, rank, size);
    stencil::Field u = stencil::make_field(slab);
    stencil::Field u_new = stencil::make_field(slab);
    const double h = 1.0 / (options->n + 1);
    const double points = static_cast<double>(options->n) * options->n * slab.nz;

    roofcast_region_begin("jacobi");
    for (int it = 0; it < options->iters; ++it) {
        roofcast_region_begin("halo"); // communication: no declared work
        roofcast::examples::exchange_halo(u.values.data(), u.plane, slab, MPI_COMM_WORLD);
        roofcast_region_end("halo");

        roofcast_region_begin("sweep");
        stencil::jacobi_sweep(u.values.data(), u_new.values.data(), u.row, u.plane, options->n, slab.nz,
                              h * h);
        // Compulsory traffic: u read once and u_new written once per point (write-allocate not counted).
        roofcast_region_work(7.0 * points, 16.0 * points);
        roofcast_region_end("sweep");
        std::swap(u.values, u_new.values);
    }
    roofcast_region_end("jacobi");

    roofcast_region_begin("checksum");
    const double sum = stencil::checksum(u, slab, MPI_COMM_WORLD);
    roofcast_region_end("checksum");
    if (rank == 0) {
        std::printf("stencil: n %d, ranks %d, iterations %d\n", options->n, size, options->iters);
        std::printf("checksum: %.17g\n", sum);
    }
    MPI_Finalize();
    return 0;
}
