// run_overlap: the suite's overlap loops (K reuse rows, no extra multiply-adds) and the three-way mixes of
// bench/overlap-compute.sh (a mixed-family member's n and Q); anything else is refused.
#include "measure/suite/runners.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace sw = roofcast::measure::suite;

namespace {

sw::SuiteOptions quick() {
    sw::SuiteOptions o;
    o.threads = 1;
    o.harness.epochs = 1;
    o.harness.min_epoch_seconds = 1e-6;
    o.harness.fixed_repetitions = 1;
    return o;
}

constexpr std::size_t k_row = 64, k_len = 4 * k_row;

// a(i) = 0.5 b(i) + sum_r w(r, i mod W), then Q multiply-adds: the runner's checksum is a(n/2), where
// i = 128 sits at the start of a block: b = 1 + (128 mod 5) / 4 = 1.75, w(r, 0) = (r W mod 9) / 8.
double expected(int k, double (*fma)(double)) {
    double x = 0.5 * 1.75;
    for (int r = 0; r < k; ++r)
        x += 0.125 * static_cast<double>((static_cast<std::size_t>(r) * k_row) % 9);
    return fma(x);
}

} // namespace

TEST(OverlapRunner, SuiteLoopsWithoutExtraWork) {
    sw::Workspace ws;
    const auto m1 = sw::run_overlap(1, k_len, k_row, quick(), ws);
    EXPECT_DOUBLE_EQ(m1.checksum, expected(1, [](double x) { return x; }));
    const auto m2 = sw::run_overlap(2, k_len, k_row, quick(), ws);
    EXPECT_DOUBLE_EQ(m2.checksum, expected(2, [](double x) { return x; }));
    EXPECT_GT(m2.seconds_per_call.min, 0.0);
}

TEST(OverlapRunner, FamilyMembersTakeTheirMultiplyAdds) {
    sw::Workspace ws;
    // (1, 2) and (8, 36) are family members (n, Q); (5, 0) is one whose n is no suite overlap loop.
    EXPECT_DOUBLE_EQ(sw::run_overlap(1, k_len, k_row, quick(), ws, 2).checksum,
                     expected(1, [](double x) { return sw::extra_fma<2>(x); }));
    EXPECT_DOUBLE_EQ(sw::run_overlap(8, k_len, k_row, quick(), ws, 36).checksum,
                     expected(8, [](double x) { return sw::extra_fma<36>(x); }));
    EXPECT_DOUBLE_EQ(sw::run_overlap(5, k_len, k_row, quick(), ws, 0).checksum,
                     expected(5, [](double x) { return x; }));
    EXPECT_NE(sw::extra_fma<36>(1.0), 1.0); // the multiply-adds change the value the checks compare
}

TEST(OverlapRunner, RefusesWhatIsNeitherALoopNorAMember) {
    sw::Workspace ws;
    EXPECT_THROW(sw::run_overlap(7, k_len, k_row, quick(), ws), std::invalid_argument);
    EXPECT_THROW(sw::run_overlap(8, k_len, k_row, quick(), ws, 13), std::invalid_argument);
    EXPECT_THROW(sw::run_overlap(1, k_len + 1, k_row, quick(), ws), std::invalid_argument);
}
