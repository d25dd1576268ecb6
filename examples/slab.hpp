// Shared pieces of the example MPI applications: command-line options, the z-slab decomposition of an
// n x n x n grid over the ranks, and the exchange of one halo plane with each neighbouring rank.
// Contract: rank r owns planes [z0, z0 + nz) (the first n % size ranks take one plane more); a local field
// stores nz + 2 planes, plane 0 and plane nz + 1 being the halos (zero at the global boundary).
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpi.h>
#include <optional>
#include <string>

// The examples' work functions are real, separately named functions with external linkage: tools that
// attribute counts per function (valgrind's cachegrind, perf) then see the same units as the marker
// regions, without inlining or GCC's specialised clones (`.constprop`, `.isra`) renaming them.
#define ROOFCAST_EXAMPLE_KERNEL __attribute__((noinline, noclone))

namespace roofcast::examples {

struct Options {
    int n = 32;
    int iters = 50;
};

// Parses --n SIZE --iters K; prints one error line and returns nothing on bad input.
inline std::optional<Options> parse_options(int argc, char** argv, Options options) {
    const char* program = argc > 0 ? argv[0] : "example";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        int* target = arg == "--n" ? &options.n : arg == "--iters" ? &options.iters : nullptr;
        if (arg == "--help" || arg == "-h") {
            std::printf("usage: %s [--n SIZE] [--iters K]\n", program);
            std::exit(0);
        }
        if (target == nullptr) {
            std::fprintf(stderr, "%s: error: %s: unknown option (expected --n SIZE or --iters K)\n", program,
                         arg.c_str());
            return std::nullopt;
        }
        char* end = nullptr;
        const long value = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : 0;
        if (i + 1 >= argc || *end != '\0' || value < 1 || value > 100000) {
            std::fprintf(stderr, "%s: error: %s: expected an integer from 1 to 100000\n", program,
                         arg.c_str());
            return std::nullopt;
        }
        *target = static_cast<int>(value);
        ++i;
    }
    return options;
}

struct Slab {
    int n = 0;  // global grid points per dimension
    int z0 = 0; // first owned plane
    int nz = 0; // owned planes
    int rank = 0;
    int size = 1;
};

inline Slab make_slab(int n, int rank, int size) {
    const int base = n / size;
    const int extra = n % size;
    Slab s;
    s.n = n;
    s.rank = rank;
    s.size = size;
    s.nz = base + (rank < extra ? 1 : 0);
    s.z0 = rank * base + (rank < extra ? rank : extra);
    return s;
}

// Sends the first and last owned planes to the ranks below and above and receives their boundary planes
// into this rank's halo planes. `plane` is the number of values per plane.
ROOFCAST_EXAMPLE_KERNEL inline void exchange_halo(double* field, std::size_t plane, const Slab& s,
                                                  MPI_Comm comm) {
    const int below = s.rank > 0 ? s.rank - 1 : MPI_PROC_NULL;
    const int above = s.rank + 1 < s.size ? s.rank + 1 : MPI_PROC_NULL;
    const int count = static_cast<int>(plane);
    double* lower_halo = field;
    double* first_owned = field + plane;
    double* last_owned = field + plane * static_cast<std::size_t>(s.nz);
    double* upper_halo = field + plane * static_cast<std::size_t>(s.nz + 1);
    MPI_Sendrecv(last_owned, count, MPI_DOUBLE, above, 0, lower_halo, count, MPI_DOUBLE, below, 0, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(first_owned, count, MPI_DOUBLE, below, 1, upper_halo, count, MPI_DOUBLE, above, 1, comm,
                 MPI_STATUS_IGNORE);
}

} // namespace roofcast::examples
