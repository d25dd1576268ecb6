// fit_all shares each set of points' basis columns, and their part of every validation fit
// (analysis/scale/column_folds.cpp), among the series measured there; fit_series fits one series with
// fit_line whole. Both must choose the same model with the same coefficients, bit for bit, whatever the
// values: the shared path is only a reordering of the work, never of the arithmetic.
#include "analysis/scale/fit.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>

using namespace roofcast::model::scale;

namespace {

// Equal as stored bits (NaN equals NaN): "the same digits" in any printing.
bool same(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

bool same(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i]))
            return false;
    return true;
}

void expect_same_model(const Model& a, const Model& b, const std::string& what) {
    EXPECT_EQ(a.family, b.family) << what;
    EXPECT_TRUE(same(a.coef, b.coef)) << what << ": " << a.formula({"x"}) << " vs " << b.formula({"x"});
    EXPECT_TRUE(same(a.breaks, b.breaks)) << what;
    ASSERT_EQ(a.segments.size(), b.segments.size()) << what;
    for (std::size_t k = 0; k < a.segments.size(); ++k)
        expect_same_model(a.segments[k], b.segments[k], what + " segment");
}

// A small linear congruential generator (Park and Miller, CACM 31(10), 1988): the same values everywhere.
class Values {
public:
    double uniform() {
        m_seed = (m_seed * 16807) % 2147483647;
        return static_cast<double>(m_seed) / 2147483647.0;
    }

private:
    std::uint64_t m_seed = 12345;
};

// Shapes that reach every family: constants, powers, logarithms, strong scaling, decays, breaks,
// zeros, negative values and values spanning many orders of magnitude, each with noise.
double shape(int kind, double x, Values& v) {
    const double a = 1 + 50 * v.uniform(), b = 0.1 + 3 * v.uniform(), e = 1 + 0.05 * (v.uniform() - 0.5);
    switch (kind % 9) {
    case 0:
        return a * e;
    case 1:
        return (a + b * x) * e;
    case 2:
        return (a + b * x * std::log2(x)) * e;
    case 3:
        return (a + 1000 * b / x) * e;
    case 4:
        return (a * std::pow(1.05, -x) + b) * e;
    case 5:
        return x < 16 ? a * e : (a + b * (x - 16)) * e;
    case 6:
        return x <= 4 ? 0.0 : b * std::log(x) * e;
    case 7:
        return -(a + b * x) * e;
    default:
        return 1e-9 * std::pow(x, 3.0) * e + 1e6;
    }
}

} // namespace

TEST(ScaleSharedFolds, FitAllMatchesFitSeriesBitForBit) {
    const std::vector<std::vector<double>> point_sets = {{8, 16, 32, 64, 128},
                                                         {1, 2, 4, 8, 16, 32, 64, 128, 256},
                                                         {2, 4, 8},
                                                         {10, 20, 30, 40},
                                                         {0, 1, 2, 3, 4, 5}};
    Values v;
    for (Selection sel : {Selection::forecast, Selection::loo, Selection::mape}) {
        Dataset d;
        d.parameters = {"x"};
        for (const auto& xs : point_sets)
            for (int kind = 0; kind < 27; ++kind) {
                Series s{"f" + std::to_string(d.series.size()), "time", {}, {}};
                for (double x : xs)
                    s.points.push_back(Point{{x, 0.0}, {shape(kind, x, v)}});
                d.series.push_back(std::move(s));
            }
        const std::vector<Fit> all = fit_all(d, sel);
        ASSERT_EQ(all.size(), d.series.size());
        for (std::size_t i = 0; i < d.series.size(); ++i) {
            const Fit one = fit_series(d.series[i], 1, sel);
            const std::string what = std::string(to_string(sel)) + " series " + std::to_string(i);
            expect_same_model(all[i].model, one.model, what);
            EXPECT_TRUE(same(all[i].mape, one.mape)) << what;
            EXPECT_TRUE(same(all[i].validation_error.value_or(-1.0), one.validation_error.value_or(-1.0)))
                << what;
            EXPECT_EQ(all[i].candidates, one.candidates) << what;
            EXPECT_EQ(all[i].notes, one.notes) << what;
            ASSERT_EQ(all[i].alternatives.size(), one.alternatives.size()) << what;
            for (std::size_t k = 0; k < one.alternatives.size(); ++k)
                expect_same_model(all[i].alternatives[k], one.alternatives[k], what + " alternative");
        }
    }
}
