// The process grid of a domain-decomposed MPI program, as `roofcast scale --grid` describes it: how many
// ranks lie along each of D dimensions at a rank count. A program that cuts its domain into a D-dimensional
// grid exchanges halos across the grid's internal cuts, and the grid's shape changes with the rank count
// (2x2 at 4 ranks, 4x2 at 8, 4x4 at 16), so its halo traffic is not a smooth function of the rank count:
// the quantities below are, and the scaling fits use them as terms (candidates: GridFamily).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace roofcast::model::scale {

struct Grid {
    int dims = 0;                           // 1, 2 or 3
    std::map<int, std::vector<int>> shapes; // rank count -> ranks per dimension, where the user gave them
    // The global domain's extent per dimension (--grid-domain), in the order the grid's extents are listed
    // (largest first); empty: a cubic domain.
    std::vector<double> domain;

    // The ranks per dimension at `ranks`: the given shape, else MPI_Dims_create's balanced factorisation
    // (prime factors, largest first, each onto the dimension with the fewest ranks so far; MPI 4.0
    // standard, Sec. 8.5.2: "as close to each other as possible"), largest first. Empty when ranks is not
    // a positive integer.
    std::vector<int> shape(double ranks) const;
    // Sum over dimensions of (k_i - 1): the internal cut planes. With a fixed global problem (strong
    // scaling) the halo volume exchanged per sweep is proportional to it (each cut plane is a whole
    // cross-section of the domain). With a domain N_1 x ... x N_D each plane counts its cross-section:
    // sum of (k_i - 1) / N_i, times (N_1 ... N_D)^(1/D) so that a cubic domain gives the plain count.
    double cuts(double ranks) const;
    // Sum over dimensions of (k_i - 1) * ranks / k_i: the faces between neighbouring ranks. The number of
    // messages per sweep, and with a fixed problem per rank (weak scaling) the halo volume, follow it.
    double faces(double ranks) const;
    std::string shape_text(double ranks) const; // "4x2", or "?" where there is none
};

// Parses --grid D (1..3), --grid-shape P=AxB[xC] (repeatable) and --grid-domain NXxNY[xNZ] (empty: none);
// InputError(field "--grid", "--grid-shape" or "--grid-domain") naming what was expected.
Grid parse_grid(const std::string& dims, const std::vector<std::string>& shapes,
                const std::string& domain = "");

enum class GridTerm { ranks, cuts, faces };
const char* to_string(GridTerm t);
double grid_value(const Grid& g, GridTerm t, double ranks);

} // namespace roofcast::model::scale
