// The text of a profile's verdicts: a function with flops in GFLOP/s, one that only moves data in GB/s.
#include "report/profile_regions.hpp"

#include <gtest/gtest.h>

namespace roofcast::report {
namespace {

// A region of 1e9 flops at `intensity` FLOP/B of L2, which limits it: `measured` of `bound` GFLOP/s.
model::RegionVerdict l2_bound(const std::string& name, const std::string& kind, double intensity,
                              double measured, double bound) {
    model::RegionVerdict v;
    v.name = name;
    v.kind = kind;
    v.flops = 1e9;
    v.intensity = intensity;
    v.bytes_level = "L2";
    v.measured_gflops = measured;
    v.bound_gflops = bound;
    v.fraction = measured / bound;
    v.bound = "memory";
    v.bottleneck = "L2";
    v.guidance = {"L2 bandwidth limits it"};
    return v;
}

TEST(ProfileRegionsText, AFunctionWithoutFlopsIsReadInBandwidth) {
    model::ProfilePlacement p;
    model::RegionVerdict solve = l2_bound("solve", "function", 2, 4.5, 12.25);
    solve.bytes = 1e9;
    solve.flops_origin = "counted";
    solve.bytes_origin = "simulated";
    solve.time_share = 0.25;
    solve.flops_share = 1.0;
    model::RegionVerdict copy = solve;
    copy.name = "__memcpy_avx_unaligned_erms";
    copy.kind = "library";
    copy.flops = 0;
    copy.intensity = 0;
    copy.bytes_level = "MEM";
    copy.measured_gflops.reset();
    copy.bound_gflops = 0;
    copy.measured_gbs = 29.36;
    copy.bound_gbs = 33.69;
    copy.fraction = 29.36 / 33.69;
    copy.bottleneck = "MEM";
    copy.time_share = 0.75;
    copy.flops_share = 0.0;
    copy.guidance = {"memory bandwidth limits it", "it only moves data"};
    p.verdicts = {solve, copy};
    const std::string text = region_verdicts(p);
    const std::string solve_row =
        "solve                                    function  25.0 % 100.0 %          2 L2"
        "          4.5        12.25     37 %  memory-bound at L2";
    const std::string copy_row =
        "__memcpy_avx_unaligned_erms              library   75.0 %   0.0 %         0 MEM"
        "   29.36 GB/s   33.69 GB/s     87 %  memory-bound at MEM";
    EXPECT_NE(text.find(solve_row), std::string::npos) << text;
    EXPECT_NE(text.find(copy_row), std::string::npos) << text;
    EXPECT_NE(text.find("solve can reach 12.25 GFLOP/s; it reaches 4.5 (37 %); L2 bandwidth limits it\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("__memcpy_avx_unaligned_erms can move 33.69 GB/s; it moves 29.36 (87 %); memory "
                        "bandwidth limits it; it only moves data\n"),
              std::string::npos)
        << text;
}

TEST(ProfileRegionsText, AFewSamplesTimeSaysItsIntervalAndTheVerdictItAllows) {
    model::RegionVerdict v = l2_bound("waxpby", "loop", 0.09, 17.3, 13.88);
    v.time_samples = 2;
    v.fraction_lo = 0.345;
    v.fraction_hi = 10.29;
    model::ProfilePlacement p;
    p.verdicts = {v};
    EXPECT_NE(region_verdicts(p).find("it reaches 17.3 (125 %, 34-1029 % over 2 samples: undetermined); L2 "),
              std::string::npos)
        << region_verdicts(p);
    // Enough samples: the interval is not worth a word.
    v.time_samples = 4000;
    v.fraction_lo = 0.97 * *v.fraction;
    v.fraction_hi = 1.03 * *v.fraction;
    p.verdicts = {v};
    EXPECT_NE(region_verdicts(p).find("it reaches 17.3 (125 %); L2 "), std::string::npos)
        << region_verdicts(p);
    // Few, but all of the interval below the threshold.
    v.time_samples = 5;
    v.measured_gflops = 2;
    v.fraction = 2 / 13.88;
    v.fraction_lo = 0.06;
    v.fraction_hi = 0.44;
    p.verdicts = {v};
    EXPECT_NE(region_verdicts(p).find("(14 %, 6-44 % over 5 samples: below its bound)"), std::string::npos)
        << region_verdicts(p);
}

TEST(ProfileRegionsText, CxxNamesLoseTheirParameterListsUnlessTwoWouldReadTheSame) {
    // valgrind and nm name C++ functions with their parameters; the table keeps its columns.
    const model::RegionVerdict v = l2_bound("", "function", 0.125, 5, 10);
    const auto row_of = [](const std::vector<model::RegionVerdict>& vs) {
        model::ProfilePlacement p;
        p.verdicts = vs;
        return region_verdicts(p);
    };
    const auto named = [&v](const std::string& name) {
        model::RegionVerdict w = v;
        w.name = name;
        return w;
    };
    const std::string text =
        row_of({named("ComputeSPMV_ref(SparseMatrix_STRUCT const&, Vector_STRUCT&, Vector_STRUCT&)"),
                named("cg::spmv(cg::Csr const&, double const*, double*) -> loop at cg.cpp:42"),
                named("std::vector<int, std::allocator<int> >::push_back(int const&) [clone .isra.0]"),
                named("Grid::at(int) const"), named("main"), named("operator()")});
    EXPECT_NE(text.find("\nComputeSPMV_ref(...)  "), std::string::npos) << text;
    EXPECT_NE(text.find("\ncg::spmv(...) -> loop at cg.cpp:42 "), std::string::npos) << text;
    EXPECT_NE(text.find("\nstd::vector<int, std::allocator<int> >::push_back(...) [clone .isra.0] "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\nGrid::at(...) const "), std::string::npos) << text;
    EXPECT_NE(text.find("\nmain  "), std::string::npos) << text;
    EXPECT_NE(text.find("\noperator()  "), std::string::npos) << text;
    // Two overloads keep their parameters.
    const std::string both = row_of({named("f(int)"), named("f(double)")});
    EXPECT_NE(both.find("\nf(int)  "), std::string::npos) << both;
    EXPECT_NE(both.find("\nf(double)  "), std::string::npos) << both;
}

} // namespace
} // namespace roofcast::report
