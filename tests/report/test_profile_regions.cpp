// The text of a profile's verdicts: a function with flops in GFLOP/s, one that only moves data in GB/s.
#include "report/profile_regions.hpp"

#include <gtest/gtest.h>

namespace roofcast::report {
namespace {

TEST(ProfileRegionsText, AFunctionWithoutFlopsIsReadInBandwidth) {
    model::ProfilePlacement p;
    model::RegionVerdict solve;
    solve.name = "solve";
    solve.kind = "function";
    solve.flops = 2e9;
    solve.bytes = 1e9;
    solve.intensity = 2;
    solve.measured_gflops = 4.5;
    solve.bound_gflops = 12.25;
    solve.fraction = 4.5 / 12.25;
    solve.bound = "memory";
    solve.bottleneck = "L2";
    solve.flops_origin = "counted";
    solve.bytes_origin = "simulated";
    solve.time_share = 0.25;
    solve.flops_share = 1.0;
    solve.guidance = {"L2 bandwidth limits it"};
    model::RegionVerdict copy = solve;
    copy.name = "__memcpy_avx_unaligned_erms";
    copy.kind = "library";
    copy.flops = 0;
    copy.intensity = 0;
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
        "solve                                    function  25.0 % 100.0 %          2"
        "          4.5        12.25     37 %  memory-bound at L2";
    const std::string copy_row =
        "__memcpy_avx_unaligned_erms              library   75.0 %   0.0 %          0"
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

} // namespace
} // namespace roofcast::report
