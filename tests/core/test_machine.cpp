#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/machine_noise.hpp"
#include "test_inputs.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

using namespace roofcast::core;

namespace {

using roofcast::test::machine_from;

// The message of the error that reading `text` as a machine file gives.
std::string error_of(const std::string& text) {
    return roofcast::test::input_error_of([&] { machine_from(text); });
}
} // namespace

TEST(MachineFile, MinimalHandWrittenForm) {
    const Machine m = machine_from(roofcast::test::k_published_machine);
    EXPECT_EQ(m.name, "some-published-system");
    EXPECT_DOUBLE_EQ(m.peak("double"), 128.0);
    EXPECT_DOUBLE_EQ(m.effective("double"), 112.6);
    ASSERT_EQ(m.levels.size(), 3u);
    EXPECT_DOUBLE_EQ(*m.level("L2")->bandwidth_gbs, 146.0);
    EXPECT_EQ(m.level("L2")->source, Provenance::entered);
    EXPECT_EQ(m.level("L3"), nullptr);
    EXPECT_THROW(m.peak("single"), InputError);
}

TEST(MachineFile, RoundTripKeepsEverything) {
    Machine m = machine_from(roofcast::test::k_published_machine);
    m.source = Provenance::measured;
    Topology t;
    t.cpu_model = "Test CPU";
    t.vendor = "AuthenticAMD";
    t.family = 25;
    t.model_number = 17;
    t.stepping = 1;
    t.isa = {"scalar", "avx2"};
    t.cores = 2;
    t.hw_threads = 2;
    t.caches.push_back({"L1", 49152, 64, 12, 1, 2, std::nullopt, ""});
    t.caches.push_back({"L3", 503316480, 64, std::nullopt, 2, 1, 100663296, "sweep"});
    m.topology = t;
    m.measurement_revision = 8;
    m.clock_ghz = *summarize({3.1, 3.0, 3.2});
    ComputeCeiling c{"double", "avx2", "fma", 1, *summarize({50, 51, 49}), 3.1, Provenance::measured};
    m.ceilings.push_back(c);
    BandwidthPoint p{"copy", 1, 32768, *summarize({100, 101}), 1.5};
    m.levels[0].measurements.push_back(p);
    m.levels[2].curve = BandwidthCurve{"volume", {{1e6, 30}, {1e8, 40}}, std::nullopt};
    m.sweep.push_back(p);
    m.thread_overhead.push_back({"omp_parallel", 2, *summarize({1e-6, 2e-6})});

    m.overlap_exponent = 2.75;
    m.overlap_exponent_low = 2.1;
    m.overlap_exponent_high = 3.5;
    m.compute_overlap_exponent = 1.4;
    m.compute_overlap_exponent_low = 1.25;
    m.levels[2].effective_bandwidth_gbs = 38.5;
    m.levels[2].effective_bandwidth_half_width_gbs = 1.25;
    MpiFigures mpi;
    mpi.source = Provenance::measured;
    mpi.points = {{8, *summarize({1.1e-6, 1.0e-6, 1.3e-6})}, {1u << 20, *summarize({1.2e-4, 1.1e-4})}};
    mpi.latency_s = mpi.points[0].seconds;
    mpi.bandwidth_gbs = *summarize({8.7, 9.5});
    mpi.alpha_s = 1.0e-6;
    mpi.beta_gbs = 9.6;
    mpi.library = "Open MPI v4.1.4";
    mpi.placement = "2 ranks on one node (vm)";
    m.mpi = mpi;
    // Reading a file sets the noise flags by the machine file's rule (core/machine_noise.hpp), as the run
    // that wrote it did.
    flag_machine_noise(m);

    const Machine r = machine_from(machine_to_yaml(m));
    EXPECT_EQ(machine_to_yaml(r), machine_to_yaml(m));
    EXPECT_DOUBLE_EQ(*r.overlap_exponent, 2.75);
    EXPECT_DOUBLE_EQ(*r.overlap_exponent_low, 2.1);
    EXPECT_DOUBLE_EQ(*r.overlap_exponent_high, 3.5);
    EXPECT_DOUBLE_EQ(*r.compute_overlap_exponent, 1.4);
    EXPECT_DOUBLE_EQ(*r.compute_overlap_exponent_low, 1.25);
    EXPECT_FALSE(r.compute_overlap_exponent_high); // unbounded above
    EXPECT_DOUBLE_EQ(*r.levels[2].effective_bandwidth_half_width_gbs, 1.25);
    EXPECT_EQ(r.topology->caches[1].usable_bytes(), 100663296u);
    EXPECT_EQ(r.topology->vendor, "AuthenticAMD");
    EXPECT_EQ(r.topology->family, 25);
    EXPECT_EQ(r.topology->model_number, 17);
    EXPECT_EQ(r.topology->stepping, 1);
    EXPECT_EQ(r.measurement_revision, 8);
    EXPECT_EQ(r.ceilings[0].gflops.samples.size(), 3u);
    EXPECT_DOUBLE_EQ(r.levels[0].measurements[0].moved_per_requested, 1.5);
    EXPECT_DOUBLE_EQ(r.levels[2].curve->eval(5.05e7), 35.0); // halfway between the two points
    ASSERT_TRUE(r.mpi);
    EXPECT_EQ(r.mpi->source, Provenance::measured);
    ASSERT_EQ(r.mpi->points.size(), 2u);
    EXPECT_EQ(r.mpi->points[1].bytes, 1u << 20);
    EXPECT_EQ(r.mpi->points[0].seconds.samples.size(), 3u);
    EXPECT_DOUBLE_EQ(*r.mpi->beta_gbs, 9.6);
    EXPECT_EQ(r.mpi->placement, "2 ranks on one node (vm)");
    const auto j = machine_to_json(r);
    EXPECT_EQ(j["levels"][1]["bandwidth_gbs"].get<double>(), 146.0);
    EXPECT_EQ(j["compute"]["ceilings"][0]["gflops"]["n"].get<double>(), 3.0);
    EXPECT_EQ(machine_to_yaml(machine_from_json(j, "results.json")), machine_to_yaml(r));
}

TEST(MachineFile, OverlapExponentAtLeastOne) {
    const std::string head =
        "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}, overlap_exponent: ";
    const std::string tail = "}\nlevels: [{name: MEM, bandwidth_gbs: 1}]";
    EXPECT_FALSE(machine_from(head + "1" + tail).overlap_exponent == std::nullopt);
    for (const std::string bad : {"0.5", "-2", ".nan", ".inf"}) {
        const std::string e = error_of(head + bad + tail);
        EXPECT_NE(e.find("m.yaml"), std::string::npos) << bad << ": " << e;
        EXPECT_NE(e.find("compute.overlap_exponent"), std::string::npos) << bad << ": " << e;
    }
    EXPECT_NE(error_of(head + "three" + tail).find("compute.overlap_exponent"), std::string::npos);
}

TEST(MachineFile, MpiSectionEnteredOrMeasuredAndChecked) {
    const std::string head = "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}}\n"
                             "levels: [{name: MEM, bandwidth_gbs: 1}]\nmpi: ";
    const Machine m = machine_from(head + "{latency_s: 1.5e-6, bandwidth_gbs: 12}");
    ASSERT_TRUE(m.mpi);
    EXPECT_EQ(m.mpi->source, Provenance::entered); // hand-written figures are marked entered
    EXPECT_DOUBLE_EQ(m.mpi->latency_s->median, 1.5e-6);
    EXPECT_EQ(m.mpi->ranks, 2);
    EXPECT_NE(error_of(head + "{ranks: 1, latency_s: 1e-6}").find("mpi.ranks"), std::string::npos);
    EXPECT_NE(error_of(head + "{latency_s: -1}").find("mpi.latency_s"), std::string::npos);
    EXPECT_NE(error_of(head + "{beta_gbs: 0}").find("mpi.beta_gbs"), std::string::npos);
    EXPECT_NE(error_of(head + "{points: [{bytes: 8, seconds: 1e-6}, {bytes: 8, seconds: 2e-6}]}")
                  .find("mpi.points[1].bytes"),
              std::string::npos);
    EXPECT_NE(error_of(head + "{points: [{bytes: eight, seconds: 1e-6}]}").find("mpi.points[0].bytes"),
              std::string::npos);
    EXPECT_NE(error_of(head + "{ranks: 2}").find("expected latency_s"), std::string::npos);
}

TEST(MachineFile, EachBadFieldHasItsOwnMessage) {
    const std::string compute = "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}}\n";
    // A machine file and a part of the error reading it gives.
    const std::pair<std::string, std::string> cases[] = {
        {"name: x\ncompute: {peak_gflops: {double: 1}}\nlevels: [{name: MEM, bandwidth_gbs: 1}]",
         "field 'format_version': missing"},
        {"format_version: 1\nname: x\nlevels: [{name: MEM, bandwidth_gbs: 1}]", "'compute'"},
        {"format_version: 1\nname: x\ncompute: {peak_gflops: {double: fast}}\nlevels: [{name: MEM, "
         "bandwidth_gbs: 1}]",
         "field 'compute.peak_gflops.double': expected a number, got 'fast'"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: .nan}]", "levels[0].bandwidth_gbs"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: -3}]", "expected a positive number"},
        {compute + "levels: [{name: L1, bandwidth_gbs: 3}]", "last level to be MEM"},
        {"format_version: 2\nname: x", "unsupported version 2"},
        {"format_version: 1\nname: [x", "malformed YAML at line"},
        {"format_version: 1\nname: x\ncompute: {peak_gflops: {quad: 1}}\nlevels: []",
         "unknown precision 'quad'"},
        // Ranges (docs/formats.md): a mistyped exponent or an overflowing count is an error.
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1e308}]",
         "field 'levels[0].bandwidth_gbs': expected a positive number at most 1e+06, got 1e308"},
        {"format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1e9}}\nlevels: []",
         "compute.peak_gflops.double': expected a positive number at most 1e+07"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology: {cores: 0}",
         "field 'topology.cores': expected a whole number from 1 to 1048576, got 0"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology: {cores: 99999999999}",
         "topology.cores': expected a whole number from 1 to 1048576"},
        // The CPU identity within cpuid's field widths (docs/machine-file.md).
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology: {cores: 1, family: 300}",
         "field 'topology.family': expected a whole number from 0 to 270, got 300"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology: {cores: 1, model: 256}",
         "field 'topology.model': expected a whole number from 0 to 255"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology: {cores: 1, stepping: 16}",
         "field 'topology.stepping': expected a whole number from 0 to 15"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology: {cores: 1, vendor: ''}",
         "field 'topology.vendor': expected the CPU vendor string of cpuid"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\nmeasurement_revision: 0",
         "field 'measurement_revision': expected a whole number from 1 to 1048576, got 0"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1}]\nmpi: {ranks: 2, alpha_s: 1e9, beta_gbs: 1}",
         "mpi.alpha_s': expected at most 10000 s"},
        // The calibration's intervals: ordered, and a half-width only beside the figure it belongs to.
        {"format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}, overlap_exponent_low: 2, "
         "overlap_exponent_high: 1.5}\nlevels: [{name: MEM, bandwidth_gbs: 1}]",
         "field 'compute.overlap_exponent_high': expected a finite number >= overlap_exponent_low"},
        {"format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}, overlap_exponent_high: 3}\n"
         "levels: [{name: MEM, bandwidth_gbs: 1}]",
         "field 'compute.overlap_exponent_high'"},
        {compute + "levels: [{name: MEM, bandwidth_gbs: 1, effective_bandwidth_half_width_gbs: 0.1}]",
         "field 'levels[0].effective_bandwidth_half_width_gbs': expected a half-width from 0 to 1e6 GB/s "
         "beside "
         "effective_bandwidth_gbs"},
    };
    for (const auto& [text, part] : cases)
        EXPECT_NE(error_of(text).find(part), std::string::npos) << text << "\n -> " << error_of(text);
}

TEST(MachineFile, EffectiveSizeRangeRoundTripsAndMustHoldTheSize) {
    const std::string head = "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}}\n"
                             "levels: [{name: MEM, bandwidth_gbs: 1}]\ntopology:\n  cores: 2\n  caches:\n";
    const Machine m = machine_from(head + "    - {name: L3, size_bytes: 32MiB, effective_size_bytes: 11MiB,"
                                          " effective_size_range_bytes: [9MiB, 13MiB]}\n");
    ASSERT_TRUE(m.topology->caches[0].effective_size_range_bytes);
    EXPECT_EQ(m.topology->caches[0].effective_size_range_bytes->first, 9u << 20);
    EXPECT_EQ(m.topology->caches[0].effective_size_range_bytes->second, 13u << 20);
    const Machine back = machine_from(machine_to_yaml(m));
    EXPECT_EQ(back.topology->caches[0].effective_size_range_bytes,
              m.topology->caches[0].effective_size_range_bytes);
    EXPECT_NE(error_of(head + "    - {name: L3, size_bytes: 32MiB, effective_size_bytes: 11MiB,"
                              " effective_size_range_bytes: [12MiB, 13MiB]}\n")
                  .find("effective_size_range_bytes"),
              std::string::npos);
    EXPECT_NE(
        error_of(head + "    - {name: L3, size_bytes: 32MiB, effective_size_range_bytes: [1MiB, 2MiB]}\n")
            .find("low <= effective_size_bytes <= high"),
        std::string::npos);
    EXPECT_NE(error_of(head + "    - {name: L3, size_bytes: 32MiB, effective_size_bytes: 11MiB,"
                              " effective_size_range_bytes: 9MiB}\n")
                  .find("expected [low, high]"),
              std::string::npos);
}

TEST(MachineFile, RoofVisitsRoundTripAndComeWithTheirEpochs) {
    // roof_choice.visits, window_seconds and visit_gbs (roofs over the run's window), in YAML and JSON.
    const std::string head = "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}}\nlevels:\n"
                             "  - name: MEM\n    bandwidth_gbs: 50\n    roof_choice: {method: best_k_median, "
                             "epochs: 7, best: 3, tolerance: 0.02, settled: true";
    const Machine m =
        machine_from(head + ", visits: 2, window_seconds: 6.5, visit_gbs: {samples: [40, 50, 45, "
                            "49]}}\n");
    const RoofChoice& rc = *m.levels[0].roof_choice;
    EXPECT_EQ(rc.visits, 2u);
    EXPECT_DOUBLE_EQ(rc.window_seconds, 6.5);
    ASSERT_TRUE(rc.visit_gbs);
    EXPECT_EQ(rc.visit_gbs->samples, (std::vector<double>{40, 50, 45, 49}));
    const Machine back = machine_from(machine_to_yaml(m));
    EXPECT_EQ(back.levels[0].roof_choice->visits, 2u);
    EXPECT_DOUBLE_EQ(back.levels[0].roof_choice->window_seconds, 6.5);
    EXPECT_EQ(back.levels[0].roof_choice->visit_gbs->samples, rc.visit_gbs->samples);
    const auto j = machine_to_json(m);
    EXPECT_EQ(j["levels"][0]["roof_choice"]["visits"], 2);
    EXPECT_EQ(j["levels"][0]["roof_choice"]["visit_gbs"]["samples"].size(), 4u);
    EXPECT_EQ(machine_from_json(j, "x.json").levels[0].roof_choice->visit_gbs->samples,
              rc.visit_gbs->samples);
    // Visits without their epochs, or epochs without visits: one line naming the field.
    EXPECT_NE(error_of(head + ", visits: 2}\n").find("roof_choice.visits"), std::string::npos);
    EXPECT_NE(error_of(head + ", visit_gbs: {samples: [40]}}\n").find("roof_choice.visits"),
              std::string::npos);
    EXPECT_NE(error_of(head + ", visits: -1, visit_gbs: {samples: [40]}}\n").find("roof_choice.visits"),
              std::string::npos);
}

TEST(MachineFile, RoofThreadScalingRoundTrips) {
    const std::string head =
        "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}}\nlevels:\n"
        "  - name: MEM\n    bandwidth_gbs: 470\n    roof_choice: {method: best_k_median, "
        "epochs: 7, best: 3, tolerance: 0.02, settled: true";
    const Machine m = machine_from(head + ", thread_scaling: 0.79}\n");
    ASSERT_TRUE(m.levels[0].roof_choice->thread_scaling);
    EXPECT_DOUBLE_EQ(*m.levels[0].roof_choice->thread_scaling, 0.79);
    EXPECT_DOUBLE_EQ(*machine_from(machine_to_yaml(m)).levels[0].roof_choice->thread_scaling, 0.79);
    EXPECT_DOUBLE_EQ(machine_to_json(m)["levels"][0]["roof_choice"]["thread_scaling"].get<double>(), 0.79);
    EXPECT_FALSE(machine_from(head + "}\n").levels[0].roof_choice->thread_scaling);
    EXPECT_NE(error_of(head + ", thread_scaling: -0.5}\n").find("roof_choice.thread_scaling"),
              std::string::npos);
}

TEST(MachineFile, KeysTheFormatDoesNotReadAreNamedWithTheirPath) {
    // A misspelt level key (bandwith_gbs) and an unknown top-level key; the derived statistics written beside
    // a summary's samples (median, spread, noisy) are part of the format.
    const std::string text = std::string(roofcast::test::k_published_machine) +
                             "colour: blue\n"
                             "clock_ghz: {median: 3.0, min: 2.9, max: 3.1, n: 3, spread: 0.06, noisy: true, "
                             "samples: [2.9, 3.0, 3.1]}\n";
    YamlField root = YamlField::load_text(text, "m.yaml");
    (void)machine_from_yaml(root);
    EXPECT_EQ(root.unread_keys(), std::vector<std::string>{"colour"});
    std::string misspelt = roofcast::test::k_published_machine;
    const std::string l2 = "{name: L2, bandwidth_gbs: 146}";
    const auto at = misspelt.find(l2);
    ASSERT_NE(at, std::string::npos);
    misspelt.replace(at, l2.size(), "{name: L2, bandwidth_gbs: 146, efective_bandwidth_gbs: 140}");
    YamlField bad = YamlField::load_text(misspelt, "m.yaml");
    const Machine m = machine_from_yaml(bad);
    EXPECT_FALSE(m.levels[1].effective_bandwidth_gbs); // dropped: hence the warning
    EXPECT_EQ(bad.unread_keys(), std::vector<std::string>{"levels[1].efective_bandwidth_gbs"});
}
