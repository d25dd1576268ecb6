#include "report/machine_table.hpp"

#include "core/machine_noise.hpp"
#include "core/stats.hpp"
#include "report/noise_text.hpp"

#include <gtest/gtest.h>

using namespace roofcast;

namespace {

core::Summary summary(std::vector<double> samples) {
    return *core::summarize(std::move(samples));
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

core::Machine small_machine() {
    core::Machine m;
    m.name = "box";
    m.source = core::Provenance::measured;
    m.roofcast_version = "0.1.0";
    core::Topology t;
    t.cpu_model = "Test CPU";
    t.cores = 2;
    t.hw_threads = 2;
    t.isa = {"scalar", "sse", "avx2"};
    t.caches = {{"L1", 48 * 1024, 64, 12, 1, 2, std::nullopt, ""},
                {"L3", 260u * 1024 * 1024, 64, std::nullopt, 2, 1, 96u * 1024 * 1024, "measured edge"}};
    m.topology = t;
    m.clock_ghz = summary({3.0, 3.0, 3.0});
    m.peak_gflops["double"] = 100;
    core::ComputeCeiling c;
    c.precision = "double";
    c.isa = "avx2";
    c.op = "fma";
    c.threads = 1;
    c.gflops = summary({44, 45, 46}); // interquartile spread (45.5 - 44.5) / 45 = 2.2 %: not noisy
    c.ghz = 3.0;
    m.ceilings.push_back(c);
    core::Level l1;
    l1.name = "L1";
    // Interquartile spread (105 - 95) / 100 = 10 %: noisy (a kind with a few rows is held to 5 %).
    core::BandwidthPoint p{"copy", 2, 49152, summary({90, 100, 110}), 1.0};
    l1.measurements.push_back(p);
    l1.bandwidth_gbs = 100;
    l1.bandwidth_kernel = "copy";
    l1.source = core::Provenance::measured;
    m.levels.push_back(l1);
    m.thread_overhead.push_back({"omp_parallel", 2, summary({1e-6, 1e-6, 1e-6})});
    m.notes.push_back("a note");
    core::flag_machine_noise(m); // as the run and the reader do
    return m;
}

} // namespace

TEST(MachineTable, ShowsTopologyAndEffectiveSize) {
    const std::string out = report::format_machine_table(small_machine());
    EXPECT_TRUE(contains(out, "Topology: Test CPU"));
    EXPECT_TRUE(contains(out, "2 cores, 2 hardware threads"));
    EXPECT_TRUE(contains(out, "96.0 MiB")); // effective L3
    EXPECT_TRUE(contains(out, "L3: measured edge"));
    EXPECT_TRUE(contains(out, "Clock: 3.00 GHz median (3.00..3.00, n 3, spread 0.0%)"));
}

TEST(MachineTable, CeilingRatioToItsShareOfThePeak) {
    // One thread of two cores: its share of the 100 GFLOP/s peak is 50; 45 / 50 = 90.0 %.
    const std::string out = report::format_machine_table(small_machine());
    EXPECT_TRUE(contains(out, "90.0%"));
    EXPECT_TRUE(contains(out, "44.0..46.0"));
    EXPECT_FALSE(
        contains(out.substr(out.find("Compute"), out.find("Bandwidth") - out.find("Compute")), "NOISY"));
}

TEST(MachineTable, BandwidthRowsFlagNoiseAndShowTheRoof) {
    const std::string out = report::format_machine_table(small_machine());
    const std::string bw = out.substr(out.find("Bandwidth"));
    EXPECT_TRUE(contains(bw, "10.0%"));
    // The noise line: the ceiling and the L1 point are "core" rows (L1 is private), too few for a fence.
    EXPECT_TRUE(contains(out,
                         "noise: NOISY rows by kind: core 1 of 2 (floor 5.0 %, too few rows for a fence); "
                         "overhead 0 of 1 (floor 5.0 %, too few rows for a fence)."))
        << out;
    EXPECT_TRUE(contains(bw, "NOISY"));
    EXPECT_TRUE(contains(bw, "roof: 100.0 GB/s (copy, measured)"));
    EXPECT_TRUE(contains(out, "omp_parallel"));
    EXPECT_TRUE(contains(out, "1.00 us"));
    EXPECT_TRUE(contains(out, "  - a note"));
}

TEST(MachineTable, HugeSpreadsKeepTheColumns) {
    core::Machine m = small_machine();
    // Interquartile spread (2525 - 25.5) / 50 = 4999 %.
    m.levels[0].measurements[0].gbs = summary({1, 50, 5000});
    const std::string out = report::format_machine_table(m);
    EXPECT_TRUE(contains(out, ">999%"));
}

TEST(MachineTable, MpiSectionShowsEverySizeAndTheFit) {
    core::Machine m = small_machine();
    EXPECT_FALSE(contains(report::format_machine_table(m), "MPI point to point"));
    core::MpiFigures f;
    f.source = core::Provenance::measured;
    f.placement = "2 ranks on one node (box)";
    f.points = {{8, summary({1e-6, 1e-6, 1e-6})}, {1u << 20, summary({1e-4, 1.2e-4, 1e-4})}};
    f.latency_s = f.points[0].seconds;
    f.bandwidth_gbs = summary({10.0, 10.5, 9.5});
    f.alpha_s = 1e-6;
    f.beta_gbs = 10.6;
    m.mpi = f;
    core::flag_machine_noise(m);
    const std::string out = report::format_machine_table(m);
    const std::string mpi = out.substr(out.find("MPI point to point"));
    EXPECT_TRUE(contains(mpi, "(measured, 2 ranks on one node (box))"));
    EXPECT_TRUE(contains(mpi, "1.00 MiB")); // the 1 MiB row: 1 MiB in 100 us = 10.49 GB/s
    EXPECT_TRUE(contains(mpi, "10.49"));
    EXPECT_TRUE(contains(mpi, "NOISY")); // its 10 % interquartile spread
    EXPECT_TRUE(contains(mpi, "latency 1.00 us"));
    EXPECT_TRUE(contains(mpi, "bandwidth 10.00 GB/s"));
    EXPECT_TRUE(contains(mpi, "alpha 1.00 us, beta 10.60 GB/s"));
}

TEST(MachineTable, StreamCapacityAndTlbWhenMeasured) {
    core::Machine m = small_machine();
    EXPECT_FALSE(contains(report::format_machine_table(m), "Stream capacity"));
    EXPECT_FALSE(contains(report::format_machine_table(m), "data TLB"));
    m.topology->tlb = {{"L1d", 72, 4096, std::nullopt}, {"L2", 3072, 4096, 12}};
    m.topology->huge_pages = "madvise";
    core::StreamCapacity s;
    s.level = "MEM";
    s.access = "read";
    s.threads = 2;
    s.working_set_bytes = 64u << 20;
    s.points = {{1, summary({20, 20, 20})}, {2, summary({36, 40, 44})}, {4, summary({30, 30, 30})}};
    s.capacity = 2;
    m.stream_capacity.push_back(s);
    core::flag_machine_noise(m);
    const std::string out = report::format_machine_table(m);
    EXPECT_TRUE(contains(out, "data TLB: L1d 72 x 4.00 KiB (fully or unknown), L2 3072 x 4.00 KiB (12-way)"))
        << out;
    EXPECT_TRUE(contains(out, "TLB reach with 4 KiB pages: 12.0 MiB; transparent huge pages: madvise"))
        << out;
    EXPECT_TRUE(contains(out, "  MEM read, 2 threads, working set 64.0 MiB: capacity 2 streams\n")) << out;
    EXPECT_TRUE(contains(out, "    streams        1       2       4\n")) << out;
    EXPECT_TRUE(contains(out, "    median      20.0    40.0    30.0\n")) << out;
    // Interquartile spread (42 - 38) / 40 = 10 %: flagged.
    EXPECT_TRUE(contains(out, "    iqr         0.0%  10.0%*    0.0%\n")) << out;
}

TEST(MachineTable, UnsettledRoofsAreNamedWithTheirRange) {
    core::Machine m = small_machine();
    EXPECT_EQ(report::unsettled_roofs_text(m), ""); // no roof_choice recorded: nothing to name
    core::RoofChoice rc;
    rc.method = "best_k_median";
    rc.best = 3;
    rc.tolerance = 0.02;
    rc.settled = true;
    m.levels[0].roof_choice = rc;
    m.levels[0].bandwidth = summary({90, 100, 110});
    EXPECT_EQ(report::unsettled_roofs_text(m), "");
    m.levels[0].roof_choice->settled = false;
    EXPECT_EQ(report::unsettled_roofs_text(m), "L1 (90.0-110.0 GB/s over 3 epochs)");
    core::Level mem = m.levels[0];
    mem.name = "MEM";
    mem.bandwidth = summary({40.6, 50, 78.3});
    m.levels.push_back(mem);
    EXPECT_EQ(report::unsettled_roofs_text(m),
              "L1 (90.0-110.0 GB/s over 3 epochs), MEM (40.6-78.3 GB/s over 3 epochs)");
    // Visits over the run's window count with the level's own epochs.
    m.levels.back().roof_choice->visits = 2;
    m.levels.back().roof_choice->visit_gbs = summary({30.5, 81, 60, 70});
    EXPECT_EQ(report::unsettled_roofs_text(m),
              "L1 (90.0-110.0 GB/s over 3 epochs), MEM (30.5-81.0 GB/s over 7 epochs)");
}

TEST(MachineTable, PrivateRoofsShortOfTheirThreadScalingAreNamed) {
    core::Machine m = small_machine();
    EXPECT_EQ(report::short_scaling_text(m), "");
    core::RoofChoice rc;
    rc.method = "best_k_median";
    rc.settled = true;
    m.levels[0].roof_choice = rc;
    m.levels[0].measurements.push_back(core::BandwidthPoint{});
    m.levels[0].measurements.back().threads = 2;
    m.levels[0].roof_choice->thread_scaling = core::k_roof_thread_scaling_min; // at the limit: not named
    EXPECT_EQ(report::short_scaling_text(m), "");
    m.levels[0].roof_choice->thread_scaling = 0.79;
    EXPECT_EQ(report::short_scaling_text(m), "L1 (79 % of 2 x one thread)");
}

TEST(NoiseText, ARowAloneShowsItsInterquartileSpreadBesideItsRange) {
    // Samples 1..8: quartiles 2.75 and 6.25 (linear interpolation), median 4.5: iqr 3.5 / 4.5 = 77.8 %;
    // range 7 / 4.5 = 155.6 %.
    core::Summary s = *core::summarize({1, 2, 3, 4, 5, 6, 7, 8});
    core::flag_row_alone(s);
    EXPECT_EQ(report::row_alone_text(s), "median of 8, iqr 77.8 % (range 155.6 %), NOISY (iqr above 5 %)");
    core::Summary quiet = *core::summarize({100, 101, 100, 99, 100});
    core::flag_row_alone(quiet);
    EXPECT_EQ(report::row_alone_text(quiet), "median of 5, iqr 0.0 % (range 2.0 %)");
}
