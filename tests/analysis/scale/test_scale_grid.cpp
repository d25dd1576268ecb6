#include "analysis/scale/fit.hpp"
#include "analysis/scale/forecast.hpp"
#include "core/error.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace roofcast::model::scale;

namespace {

// Neighbouring pairs of a kx x ky (x kz) grid counted cell by cell: the faces between ranks.
double grid_neighbour_pairs(const std::vector<int>& k) {
    const int kx = k[0], ky = k.size() > 1 ? k[1] : 1, kz = k.size() > 2 ? k[2] : 1;
    double pairs = 0.0;
    for (int x = 0; x < kx; ++x)
        for (int y = 0; y < ky; ++y)
            for (int z = 0; z < kz; ++z)
                pairs += (x + 1 < kx) + (y + 1 < ky) + (z + 1 < kz);
    return pairs;
}

// Halo cells exchanged per sweep by an N x N domain (strong scaling) cut into kx x ky blocks, counted
// rank by rank: each rank receives one row or column from each neighbour.
double grid_halo_cells_2d(int n, int kx, int ky) {
    double cells = 0.0;
    for (int x = 0; x < kx; ++x)
        for (int y = 0; y < ky; ++y)
            cells += (n / ky) * ((x > 0) + (x + 1 < kx)) + (n / kx) * ((y > 0) + (y + 1 < ky));
    return cells;
}

Series grid_series(const std::vector<double>& x, const std::vector<double>& y, std::string kind = "") {
    Series s{"f", "L1_DCM", {}, {}};
    s.kind = std::move(kind);
    for (std::size_t i = 0; i < x.size(); ++i)
        s.points.push_back(Point{{x[i], 0.0}, {y[i]}});
    return s;
}

} // namespace

// The MPI standard's examples of MPI_Dims_create (MPI 4.0, Sec. 8.5.2: (6,2) -> 3x2, (7,2) -> 7x1,
// (6,3) -> 3x2x1) and the powers of two a 2-D or 3-D code runs at.
TEST(ScaleGrid, ShapesFollowMpiDimsCreate) {
    const Grid g2 = parse_grid("2", {});
    const Grid g3 = parse_grid("3", {});
    EXPECT_EQ(g2.shape(6), (std::vector<int>{3, 2}));
    EXPECT_EQ(g2.shape(7), (std::vector<int>{7, 1}));
    EXPECT_EQ(g3.shape(6), (std::vector<int>{3, 2, 1}));
    EXPECT_EQ(g2.shape(1), (std::vector<int>{1, 1}));
    EXPECT_EQ(g2.shape(8), (std::vector<int>{4, 2}));
    EXPECT_EQ(g2.shape(16), (std::vector<int>{4, 4}));
    EXPECT_EQ(g2.shape(12), (std::vector<int>{4, 3}));
    EXPECT_EQ(g3.shape(16), (std::vector<int>{4, 2, 2}));
    EXPECT_EQ(g3.shape(64), (std::vector<int>{4, 4, 4}));
    EXPECT_TRUE(g2.shape(2.5).empty());
    EXPECT_TRUE(g2.shape(0).empty());
    EXPECT_EQ(g2.shape_text(8), "4x2");
}

// cuts = sum of (k_i - 1); faces = the neighbouring pairs, checked against a count over the cells of
// every grid up to 64 ranks in 1, 2 and 3 dimensions.
TEST(ScaleGrid, CutsAndFacesCountTheGrid) {
    for (const char* d : {"1", "2", "3"}) {
        const Grid g = parse_grid(d, {});
        for (int p = 1; p <= 64; ++p) {
            const auto k = g.shape(p);
            SCOPED_TRACE(::testing::Message() << d << "-D, " << p << " ranks: " << g.shape_text(p));
            double product = 1.0, cuts = 0.0;
            for (int v : k) {
                product *= v;
                cuts += v - 1;
            }
            EXPECT_EQ(product, p);
            EXPECT_EQ(g.cuts(p), cuts);
            EXPECT_EQ(g.faces(p), grid_neighbour_pairs(k));
        }
    }
}

TEST(ScaleGrid, GivenShapesOverrideTheRule) {
    const Grid g = parse_grid("3", {"16=2x2x4", "8=8x1x1"});
    EXPECT_EQ(g.shape(16), (std::vector<int>{4, 2, 2}));
    EXPECT_EQ(g.shape(8), (std::vector<int>{8, 1, 1}));
    EXPECT_EQ(g.cuts(8), 7.0);
    EXPECT_EQ(g.shape(4), (std::vector<int>{2, 2, 1}));
}

// A 64 x 32 x 32 domain: its cut planes across x have 32 x 32 points, those across y or z 64 x 32, so the
// halo of 2, 4, 8 and 16 ranks (2x1x1, 2x2x1, 2x2x2, 4x2x2) is 1, 3, 5 and 7 times 32 x 32.
TEST(ScaleGrid, DomainWeighsEachCutByItsCrossSection) {
    const Grid g = parse_grid("3", {}, "64x32x32");
    const double unit = g.cuts(2);
    EXPECT_GT(unit, 0.0);
    EXPECT_NEAR(g.cuts(4) / unit, 3.0, 1e-12);
    EXPECT_NEAR(g.cuts(8) / unit, 5.0, 1e-12);
    EXPECT_NEAR(g.cuts(16) / unit, 7.0, 1e-12);
    EXPECT_EQ(g.cuts(1), 0.0);
    const Grid cube = parse_grid("3", {}, "32x32x32");
    EXPECT_NEAR(cube.cuts(16), parse_grid("3", {}).cuts(16), 1e-12);
}

TEST(ScaleGrid, BadGridsAreNamed) {
    const auto field_of = [](const std::string& d, const std::vector<std::string>& s) {
        try {
            parse_grid(d, s);
        } catch (const roofcast::core::InputError& e) {
            return e.field();
        }
        return std::string("no error");
    };
    EXPECT_EQ(field_of("4", {}), "--grid");
    EXPECT_EQ(field_of("", {}), "--grid");
    EXPECT_EQ(field_of("2", {"16"}), "--grid-shape");
    EXPECT_EQ(field_of("2", {"16=4x3"}), "--grid-shape");
    EXPECT_EQ(field_of("2", {"16=4x4x1"}), "--grid-shape");
    EXPECT_EQ(field_of("2", {"16=4x4", "16=8x2"}), "--grid-shape");
    EXPECT_EQ(field_of("2", {"16=4xx4"}), "--grid-shape");
    EXPECT_EQ(field_of("2", {"99999999999=1x1"}), "--grid-shape");
    try {
        parse_grid("3", {}, "64x32");
        FAIL() << "two extents for a 3-D grid were taken";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "--grid-domain");
    }
}

// A strong-scaled 2-D code whose halo is counted rank by rank, plus a per-rank start-up cost: from 1, 2,
// 4 and 8 ranks the grid's halo term forecasts 16 and 32 ranks exactly, where the smooth terms of the rank
// count cannot (8 ranks are 4x2 and 16 are 4x4: the halo grows by half, not by double).
TEST(ScaleGrid, HaloOfAChangingGridIsForecast) {
    const int n = 960;
    const std::vector<std::vector<int>> shapes = {{1, 1}, {2, 1}, {2, 2}, {4, 2}, {4, 4}, {8, 4}};
    const std::vector<double> ranks = {1, 2, 4, 8, 16, 32};
    std::vector<double> y;
    for (std::size_t i = 0; i < ranks.size(); ++i)
        y.push_back(1e5 + 30.0 * grid_halo_cells_2d(n, shapes[i][0], shapes[i][1]) + 2e3 * ranks[i]);
    const std::vector<double> small(ranks.begin(), ranks.begin() + 4), ys(y.begin(), y.begin() + 4);
    const Grid grid = parse_grid("2", {});
    const Fit with =
        fit_series(grid_series(small, ys), 1, Selection::forecast, std::make_shared<const Grid>(grid));
    ASSERT_EQ(with.model.family, Family::grid) << with.model.formula({"ranks"});
    for (std::size_t i = 4; i < ranks.size(); ++i) {
        const Prediction p = predict(with, {ranks[i], 0.0}, 1);
        EXPECT_NEAR(p.value / y[i], 1.0, 1e-9) << ranks[i];
    }
    const Fit without = fit_series(grid_series(small, ys), 1, Selection::forecast);
    EXPECT_NE(without.model.family, Family::grid);
    EXPECT_GT(std::abs(predict(without, {32.0, 0.0}, 1).value / y[5] - 1.0), 0.02)
        << without.model.formula({"ranks"});
    EXPECT_NE(with.model.formula({"ranks"}).find("cuts2(ranks)"), std::string::npos);
}

TEST(ScaleGrid, NeedsOneParameter) {
    Dataset d;
    d.parameters = {"ranks", "size"};
    try {
        forecast(d, Selection::forecast, {}, parse_grid("2", {}));
        FAIL() << "a two-parameter data set was taken";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "--grid");
    }
}

// --evaluate keeps shared libraries' functions apart from the program's own.
TEST(ScaleGrid, EvaluationSplitsLibraryFunctions) {
    Dataset small, target;
    small.parameters = target.parameters = {"ranks"};
    small.series = {grid_series({1, 2, 4, 8}, {10, 20, 40, 80}),
                    grid_series({1, 2, 4, 8}, {5, 5, 5, 5}, "library")};
    small.series[1].function = "memcpy";
    target.series = {grid_series({16}, {200}), grid_series({16}, {10}, "library")};
    target.series[1].function = "memcpy";
    const ScaleResult r = forecast(small, Selection::forecast, {{16.0, 0.0}});
    const Evaluation e = evaluate(r, target, "t.json");
    ASSERT_EQ(e.rows.size(), 2u);
    EXPECT_EQ(e.library_rows, 1u);
    EXPECT_NEAR(e.mean_relative_error_own, 0.2, 1e-9);     // 160 against 200
    EXPECT_NEAR(e.mean_relative_error_library, 0.5, 1e-9); // 5 against 10
    EXPECT_NEAR(e.mean_relative_error, 0.35, 1e-9);
}
