// Golden test of the bench table: a hand-built report (a validation kernel, a calibration loop, an untuned
// kernel below its bound with its diagnosis, a calibration, an accuracy summary, a family switch) must
// print exactly the expected text.
#include "report/bench_table.hpp"

#include <gtest/gtest.h>

using namespace roofcast;

namespace {

core::Prediction pred(const std::string& model, double gflops, double err, bool valid, const std::string& b) {
    core::Prediction p;
    p.model = model;
    p.gflops = gflops;
    p.error_pct = err;
    p.valid = valid;
    p.bottleneck = b;
    return p;
}

} // namespace

TEST(BenchTable, Golden) {
    model::BenchReport r;
    core::KernelResult k;
    k.name = "stream-triad";
    k.suite = "stream";
    k.measured_gflops = core::summarize({1.0, 1.1, 0.9});  // median 1.00, spread 0.2
    k.measured_gbs = core::summarize({16.0, 16.0, 16.0});  // median 16.00
    k.measured_seconds = core::summarize({2.0, 2.2, 1.8}); // spread 0.2 > 5 % -> NOISY
    k.predictions = {pred("roofline", 1.25, 25, true, "MEM"), pred("hierarchical", 1.25, 25, true, "MEM"),
                     pred("cache-aware", 2.0, 100, true, "L1"), pred("mixed", 1.25, 25, false, "MEM")};
    r.results.kernels.push_back(k);
    core::KernelResult c;
    c.name = "calib-L2-48F";
    c.suite = "calibrate";
    c.measured_gflops = core::summarize({40.0});
    c.measured_seconds = core::summarize({1.0});
    r.results.kernels.push_back(c);
    core::KernelResult u;
    u.name = "himeno";
    u.suite = "apps";
    u.role = "untuned";
    u.measured_gflops = core::summarize({2.0});
    u.measured_seconds = core::summarize({1.0});
    u.predictions = {pred("mixed", 10.0, 400, true, "MEM")};
    u.predictions[0].seconds_per_iteration = 1e-9;
    u.bound_fraction = 0.2;
    u.diagnosis = {{"cache-conflict", "16 streams in one L1 set of 8 ways", 16.0, 8.0}};
    u.ceilings = {{"AVX2 FMA", "compute", 64.0, true},
                  {"L1 bandwidth", "bandwidth", 30.0, true},
                  {"MEM bandwidth", "bandwidth", 1.5, false}};
    r.results.kernels.push_back(u);
    model::Calibration cal;
    cal.effective_gflops = 40.0;
    cal.effective_gflops_kernel = "calib-L2-48F";
    cal.levels = {{"MEM", 20.06, {"a", "b"}, {"c"}}, {"L2", std::nullopt, {}, {"d"}}};
    r.calibration = cal;
    r.results.accuracy = {{"roofline", 1, 25.0, 25.0}, {"mixed", 0, std::nullopt, std::nullopt}};
    model::FamilySwitch s;
    s.cache = "L3";
    s.members = {"3M-2L3-2F", "3M-3L3-3F", "3M-4L3-4F"};
    s.neighbours = {2, 3, 4};
    s.predicted = 1;
    s.measured = 2;
    r.mixed_switch = s;

    const std::string expected =
        "kernel             measured GFLOP/s (min..max) n          GB/s               roofline     "
        "hierarchical      cache-aware            mixed  bottleneck\n"
        "stream-triad       1.00 (0.90..1.10) n=3                 16.00 NOISY        1.25 +25%        1.25 "
        "+25%       2.00 +100%       1.25 +25%*  MEM\n"
        "calib-L2-48F       40.00 (40.00..40.00) n=1                  -                      -               "
        " -                -                -  -\n"
        "himeno             2.00 (2.00..2.00) n=1                     -                      -               "
        " -                -      10.00 +400%  MEM\n"
        "(predictions in GFLOP/s; error = (predicted - measured) / measured; * outside the model's "
        "validity)\n"
        "\n"
        "calibration (effective figures for the mixed model)\n"
        "  MEM  20.06 GB/s (from 2 loops: no interval); 1 compute-bound or off-plateau point(s) excluded\n"
        "  L2   none; 1 compute-bound or off-plateau point(s) excluded\n"
        "  P_eff 40.00 GFLOP/s (calib-L2-48F, double)\n"
        "\n"
        "model accuracy over the 1 validation kernel; not scored: 1 untuned kernel (listed below their "
        "bound) and 1 calibration loop (predictions inside each model's validity)\n"
        "  model            n   median |err|    max |err|\n"
        "  roofline         1         25.0 %       25.0 %\n"
        "  mixed            0              -            -\n"
        "\n"
        "kernels below 85 % of their bound: 1\n"
        "  himeno                  20.0 % of its mixed prediction (untuned)\n"
        "    cache-conflict   16 streams in one L1 set of 8 ways\n"
        "    sits under       L1 bandwidth 30.0 GF/s, AVX2 FMA 64.0 GF/s\n"
        "\n"
        "mixed family (C = L3), memory-bound -> cache-bound switch along l = n:\n"
        "  predicted: 3M-3L3-3F (n = 3)\n"
        "  measured:  3M-4L3-4F (n = 4)\n"
        "  1 member(s) apart\n";
    EXPECT_EQ(report::format_bench_table(r), expected);
}

// With rounds, the accuracy table adds each model's per-round error beside the best epoch's, and says what it
// is.
TEST(BenchTable, PerRoundAccuracyColumns) {
    model::BenchReport r;
    r.results.accuracy = {{"roofline", 1, 25.0, 25.0}, {"mixed", 3, 4.0, 12.0, 2, 5.5, 9.0}};
    const std::string t = report::format_bench_table(r);
    EXPECT_NE(t.find("  model            n   median |err|    max |err|     n  per round med          max\n"
                     "  roofline         1         25.0 %       25.0 %     0              -            -\n"
                     "  mixed            3          4.0 %       12.0 %     2          5.5 %        9.0 %\n"
                     "  (per round:"),
              std::string::npos)
        << t;
}
