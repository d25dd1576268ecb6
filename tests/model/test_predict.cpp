// The four models on hand-computed cases, the memory/cache threshold, the validity limits, the
// bandwidth and compute choices per thread count, and the derived-rate helper.
#include "core/error.hpp"
#include "model/derived.hpp"
#include "model/predict.hpp"
#include "model_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace roofcast;
using test::kernel_from;
using test::machine_from;

namespace {

std::string counts(const std::string& arrays, double flops = 43) {
    return "format_version: 1\nname: counts\nflops_per_iteration: " + std::to_string(flops) +
           "\nelement_bytes: 8\narrays: " + arrays + "\n";
}

const model::ModelDetail& model_of(const model::Analysis& a, const std::string& name) {
    for (const auto& d : a.models)
        if (d.prediction.model == name)
            return d;
    throw std::runtime_error("model missing: " + name);
}

constexpr double k_tol = 1e-9;

} // namespace

// Array counts {MEM: 5, L2: 21, L1_short: 12, L1_long: 6}, 8-byte elements, 43 flops:
//   D_MEM = 8*5 = 40 B; D_L2 = 8*(5+21) = 208 B; D_L1 = 8*(5+21+12+6) = 352 B.
TEST(Traffic, ArrayCountsAccumulateFromBelow) {
    const auto t = model::derive_traffic(kernel_from(counts("{MEM: 5, L2: 21, L1_short: 12, L1_long: 6}")),
                                         machine_from(test::k_published_machine), 1);
    EXPECT_DOUBLE_EQ(t.bytes.at("MEM"), 40);
    EXPECT_DOUBLE_EQ(t.bytes.at("L2"), 208);
    EXPECT_DOUBLE_EQ(t.bytes.at("L1"), 352);
    EXPECT_DOUBLE_EQ(t.accesses.at("L1_long"), 6);
}

TEST(Traffic, ExplicitMissingLevelInheritsFromBelow) {
    // L2 not given: the 32 B from MEM pass through it.
    const auto t = model::derive_traffic(
        kernel_from(
            "format_version: 1\nname: t\nflops_per_iteration: 2\nbytes_per_iteration: {L1: 24, MEM: 32}\n"),
        machine_from(test::k_published_machine), 1);
    EXPECT_DOUBLE_EQ(t.bytes.at("L2"), 32);
    ASSERT_EQ(t.notes.size(), 1u);
    EXPECT_NE(t.notes[0].find("L2: not given"), std::string::npos);
}

TEST(Models, AllFourOnTheIssueExample) {
    const auto a = model::analyse(kernel_from(counts("{MEM: 5, L2: 21, L1_short: 12, L1_long: 6}")),
                                  machine_from(test::k_published_machine), {});
    ASSERT_EQ(a.models.size(), 4u);

    // Roofline: I_MEM = 43/40 = 1.075 flop/B; 46 GB/s * 1.075 = 49.45 GFLOP/s < 128;
    // fraction 49.45/128 = 0.386328125; ridge 128/46 = 2.7826... flop/B.
    const auto& r = model_of(a, "roofline");
    EXPECT_NEAR(r.prediction.gflops, 49.45, k_tol);
    EXPECT_NEAR(r.prediction.peak_fraction, 0.386328125, k_tol);
    EXPECT_EQ(r.prediction.bottleneck, "MEM");
    EXPECT_NEAR(*r.ridge_intensity, 128.0 / 46.0, k_tol);

    // Hierarchical: L1 512*43/352 = 62.545; L2 146*43/208 = 30.18269; MEM 49.45 -> L2 bound.
    const auto& h = model_of(a, "hierarchical");
    EXPECT_NEAR(h.prediction.gflops, 146.0 * 43.0 / 208.0, k_tol);
    EXPECT_EQ(h.prediction.bottleneck, "L2");
    ASSERT_EQ(h.prediction.terms.size(), 3u);
    EXPECT_NEAR(*h.prediction.terms[0].intensity, 43.0 / 352.0, k_tol);

    // Cache-aware: I_core = 43/352 = 0.122159 flop/B; data resident in MEM (farthest level with traffic):
    // 46 * 0.122159 = 5.6193 GFLOP/s; L2 residency 146 * 0.122159 = 17.835; L1 62.545.
    const auto& c = model_of(a, "cache-aware");
    EXPECT_NEAR(*c.core_intensity, 43.0 / 352.0, k_tol);
    EXPECT_NEAR(c.prediction.gflops, 46.0 * 43.0 / 352.0, k_tol);
    EXPECT_EQ(c.prediction.bottleneck, "MEM");
    ASSERT_EQ(c.residency.size(), 3u);
    EXPECT_NEAR(c.residency[1].second, 146.0 * 43.0 / 352.0, k_tol);

    // Mixed: t_MEM = 40 B / 46 GB/s = 0.869565 ns; t_L2 = 208 / 146 = 1.424658 ns;
    // t_C = 43 / 112.6 = 0.381883 ns; t = 1.424658 ns; P = 43 / t = 30.18269 GFLOP/s;
    // C_p = 30.18269 / 128 = 0.2358023 -> "23.6 % of peak, L2-bandwidth bound".
    const auto& m = model_of(a, "mixed");
    EXPECT_NEAR(m.prediction.seconds_per_iteration, 208.0 / 146e9, 1e-18);
    EXPECT_NEAR(m.prediction.gflops, 43.0 / (208.0 / 146.0), k_tol);
    EXPECT_NEAR(m.prediction.peak_fraction, 43.0 / (208.0 / 146.0) / 128.0, k_tol);
    EXPECT_EQ(m.prediction.bottleneck, "L2");
    EXPECT_NEAR(m.compute.seconds_per_iteration, 43.0 / 112.6e9, 1e-18);
    EXPECT_FALSE(m.prediction.terms[0].seconds_per_iteration.has_value()); // L1 not timed
    // Threshold: n_cache = (146/46 - 1) * 5 = 10.8696 < 21 -> cache-bound.
    ASSERT_EQ(m.thresholds.size(), 1u);
    EXPECT_NEAR(*m.thresholds[0].n_threshold, (146.0 / 46.0 - 1) * 5, k_tol);
    EXPECT_DOUBLE_EQ(*m.thresholds[0].n_actual, 21);
    EXPECT_TRUE(m.thresholds[0].cache_bound);
    // Cache-bound validity: L1_long 6 < 1 * (5 + 21) = 26.
    ASSERT_EQ(m.validity.size(), 1u);
    EXPECT_DOUBLE_EQ(m.validity[0].limit, 26);
    EXPECT_TRUE(m.prediction.valid);
}

TEST(Models, ComputeBound) {
    // 1000 flops, 8 B from memory: mixed t_C = 1000/112.6 ns = 8.881 ns >> t_MEM = 8/46 ns, so
    // P = P_eff = 112.6 GFLOP/s = 0.8796875 of peak; roofline min(128, 46 * 125) = 128 -> 1.0.
    const auto a = model::analyse(
        kernel_from("format_version: 1\nname: c\nflops_per_iteration: 1000\nbytes_per_iteration: {MEM: 8}\n"),
        machine_from(test::k_published_machine), {});
    EXPECT_NEAR(model_of(a, "mixed").prediction.gflops, 112.6, k_tol);
    EXPECT_NEAR(model_of(a, "mixed").prediction.peak_fraction, 0.8796875, k_tol);
    EXPECT_EQ(model_of(a, "mixed").prediction.bottleneck, "compute");
    EXPECT_NEAR(model_of(a, "roofline").prediction.peak_fraction, 1.0, k_tol);
}

namespace {

// B_L2 / B_MEM = 92 / 46 = 2; `compute_extra` is appended inside the compute map.
std::string ratio_two_machine(const std::string& compute_extra) {
    return "format_version: 1\nname: ratio-two\ncompute: {peak_gflops: {double: 100}" + compute_extra +
           "}\nlevels:\n  - {name: L1, bandwidth_gbs: 500}\n  - {name: L2, bandwidth_gbs: 92}\n"
           "  - {name: MEM, bandwidth_gbs: 46}\n";
}

} // namespace

TEST(Mixed, ThresholdSwitchesMemoryToCacheBound) {
    // B_L2 / B_MEM = 92/46 = 2, so n_cache threshold = (2 - 1) * n_MEM = 4 for n_MEM = 4:
    // n_L2 = 4: t_MEM = 32/46 ns, t_L2 = 64/92 ns = 32/46 ns (equal) -> still memory-bound;
    // n_L2 = 5: t_L2 = 72/92 ns > 32/46 ns -> L2-bound.
    const std::string machine = ratio_two_machine("");
    model::PredictOptions o;
    o.models = {"mixed"};
    const auto at = model::analyse(kernel_from(counts("{MEM: 4, L2: 4}", 1)), machine_from(machine), o);
    EXPECT_DOUBLE_EQ(*at.models[0].thresholds[0].n_threshold, 4);
    EXPECT_EQ(at.models[0].prediction.bottleneck, "MEM");
    EXPECT_FALSE(at.models[0].thresholds[0].cache_bound);
    const auto above = model::analyse(kernel_from(counts("{MEM: 4, L2: 5}", 1)), machine_from(machine), o);
    EXPECT_EQ(above.models[0].prediction.bottleneck, "L2");
    EXPECT_TRUE(above.models[0].thresholds[0].cache_bound);
}

TEST(Mixed, OverlapExponentCombinesTheTerms) {
    // Same machine and kernel as at the threshold above (t_MEM = t_L2 = 32/46 ns, t_C = 1/100 ns), with
    // compute.overlap_exponent p = 2: t = (t_MEM^2 + t_L2^2 + t_C^2)^(1/2); the bottleneck stays MEM.
    const std::string machine = ratio_two_machine(", overlap_exponent: 2");
    model::PredictOptions o;
    o.models = {"mixed"};
    const auto at = model::analyse(kernel_from(counts("{MEM: 4, L2: 4}", 1)), machine_from(machine), o);
    const auto& p = at.models[0].prediction;
    const double t_mem = 32.0 / 46e9, t_c = 1.0 / 100e9;
    EXPECT_NEAR(p.seconds_per_iteration, std::sqrt(2 * t_mem * t_mem + t_c * t_c), 1e-9 * t_mem);
    EXPECT_NEAR(p.gflops, 1.0 / p.seconds_per_iteration / 1e9, 1e-9);
    EXPECT_EQ(p.bottleneck, "MEM");
    EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                            [](const std::string& n) { return n.find("p = 2") != std::string::npos; }));
    // The other models ignore it.
    o.models = {"hierarchical"};
    const auto h = model::analyse(kernel_from(counts("{MEM: 4, L2: 4}", 1)), machine_from(machine), o);
    EXPECT_NEAR(h.models[0].prediction.seconds_per_iteration, t_mem, 1e-9 * t_mem);
}

TEST(Mixed, CacheExponentCombinesTheCachesBeforeMemory) {
    // L2, L3 and MEM timed (L1 is not): with p = 4 and pc = 1.5 the caches' terms form one 1.5-norm, which
    // meets memory's term and t_C in the 4-norm; without pc every term is in the 4-norm.
    const std::string machine =
        "format_version: 1\nname: three-caches\ncompute: {peak_gflops: {double: 100}, "
        "overlap_exponent: 4, cache_overlap_exponent: 1.5}\nlevels:\n"
        "  - {name: L1, bandwidth_gbs: 500}\n  - {name: L2, bandwidth_gbs: 92}\n"
        "  - {name: L3, bandwidth_gbs: 69}\n  - {name: MEM, bandwidth_gbs: 46}\n";
    model::PredictOptions o;
    o.models = {"mixed"};
    const auto at =
        model::analyse(kernel_from(counts("{MEM: 4, L3: 4, L2: 4}", 1)), machine_from(machine), o);
    const auto& p = at.models[0].prediction;
    std::map<std::string, double> t;
    for (const auto& term : p.terms)
        if (term.seconds_per_iteration)
            t[term.level] = *term.seconds_per_iteration;
    ASSERT_EQ(t.size(), 3u);
    const double t_c = 1.0 / 100e9;
    const double caches = std::pow(std::pow(t["L2"], 1.5) + std::pow(t["L3"], 1.5), 1 / 1.5);
    const double expected = std::pow(std::pow(caches, 4) + std::pow(t["MEM"], 4) + std::pow(t_c, 4), 0.25);
    EXPECT_NEAR(p.seconds_per_iteration, expected, 1e-9 * expected);
    EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                            [](const std::string& n) { return n.find("pc = 1.5") != std::string::npos; }));
    ASSERT_TRUE(at.models[0].cache_overlap_exponent);
    // Without pc: one 4-norm over every term, which overlaps the caches more (a shorter time).
    std::string one = machine;
    one.replace(one.find(", cache_overlap_exponent: 1.5"),
                std::string(", cache_overlap_exponent: 1.5").size(), "");
    const auto a1 = model::analyse(kernel_from(counts("{MEM: 4, L3: 4, L2: 4}", 1)), machine_from(one), o);
    const double all4 = std::pow(
        std::pow(t["L2"], 4) + std::pow(t["L3"], 4) + std::pow(t["MEM"], 4) + std::pow(t_c, 4), 0.25);
    EXPECT_NEAR(a1.models[0].prediction.seconds_per_iteration, all4, 1e-9 * all4);
    EXPECT_LT(all4, expected);
    EXPECT_FALSE(a1.models[0].cache_overlap_exponent);
    EXPECT_THROW(machine_from(ratio_two_machine(", cache_overlap_exponent: 0.9")), core::InputError);
}

TEST(Mixed, ComputeExponentCombinesTheArithmeticWithTheDataTerms) {
    // The same terms with q = 1 beside p = 2: t = ((t_MEM^2 + t_L2^2)^(1/2) + t_C); q below 1 is refused.
    model::PredictOptions o;
    o.models = {"mixed"};
    const auto a = model::analyse(
        kernel_from(counts("{MEM: 4, L2: 4}", 1)),
        machine_from(ratio_two_machine(", overlap_exponent: 2, compute_overlap_exponent: 1")), o);
    const auto& p = a.models[0].prediction;
    const double t_mem = 32.0 / 46e9, t_c = 1.0 / 100e9;
    EXPECT_NEAR(p.seconds_per_iteration, std::sqrt(2.0) * t_mem + t_c, 1e-9 * t_mem);
    EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                            [](const std::string& n) { return n.find("q = 1") != std::string::npos; }));
    EXPECT_THROW(machine_from(ratio_two_machine(", compute_overlap_exponent: 0.5")), core::InputError);
}

TEST(Mixed, CalibrationIntervalsBecomeABandInTheNotes) {
    // Same kernel (t_MEM = t_L2 = 32/46 ns, t_C = 1/100 ns), p = 2 within 1.5-3: the slow end is the p-norm
    // at p = 1.5, the fast end at p = 3. The slow end lies 2^(1/1.5) / 2^(1/2) - 1 = 12 % above the
    // prediction, beyond 10 %, so the band is flagged uncertain.
    model::PredictOptions o;
    o.models = {"mixed"};
    const auto note_of = [&](const std::string& compute_extra) {
        const auto a = model::analyse(kernel_from(counts("{MEM: 4, L2: 4}", 1)),
                                      machine_from(ratio_two_machine(compute_extra)), o);
        const auto& notes = a.models[0].prediction.notes;
        const auto it = std::find_if(notes.begin(), notes.end(), [](const std::string& n) {
            return n.find("calibration's 95 % intervals") != std::string::npos;
        });
        return std::make_pair(it == notes.end() ? std::string() : *it,
                              a.models[0].prediction.seconds_per_iteration);
    };
    const double t_mem = 32.0 / 46e9, t_c = 1.0 / 100e9;
    const auto norm = [&](double p) { return std::pow(2 * std::pow(t_mem, p) + std::pow(t_c, p), 1 / p); };
    const auto [wide, t] =
        note_of(", overlap_exponent: 2, overlap_exponent_low: 1.5, overlap_exponent_high: 3");
    EXPECT_EQ(wide.find("uncertain: the calibration's 95 % intervals (p 1.50-3.00)"), 0u) << wide;
    EXPECT_NE(
        wide.find(fmt::format("{:+.1f} % to {:+.1f} %", (norm(3) / t - 1) * 100, (norm(1.5) / t - 1) * 100)),
        std::string::npos)
        << wide;
    // A narrow interval is reported without the flag; an unbounded one is flagged and says so.
    const auto [narrow, t2] =
        note_of(", overlap_exponent: 2, overlap_exponent_low: 1.9, overlap_exponent_high: 2.1");
    EXPECT_EQ(narrow.find("the calibration's 95 % intervals (p 1.90-2.10)"), 0u) << narrow;
    const auto [open, t3] = note_of(", overlap_exponent: 2, overlap_exponent_low: 1.9");
    EXPECT_EQ(open.find("uncertain: the calibration's 95 % intervals (p 1.90-unbounded)"), 0u) << open;
    // Without an interval the prediction carries no band.
    EXPECT_EQ(note_of(", overlap_exponent: 2").first, "");
}

TEST(Mixed, ValidityLimits) {
    model::PredictOptions o;
    o.models = {"mixed"};
    // Memory-bound (t_MEM = 32/46 ns > t_L2 = 48/146 ns): L1_short 45 >= 10 * n_MEM = 40 -> outside;
    // L1_long 3 < 8 * (4 + 2) = 48 -> fine.
    const auto mem = model::analyse(kernel_from(counts("{MEM: 4, L2: 2, L1_short: 45, L1_long: 3}")),
                                    machine_from(test::k_published_machine), o);
    const auto& d = mem.models[0];
    EXPECT_EQ(d.prediction.bottleneck, "MEM");
    ASSERT_EQ(d.validity.size(), 2u);
    EXPECT_FALSE(d.validity[0].ok);
    EXPECT_DOUBLE_EQ(d.validity[0].limit, 40);
    EXPECT_TRUE(d.validity[1].ok);
    EXPECT_DOUBLE_EQ(d.validity[1].limit, 48);
    EXPECT_FALSE(d.prediction.valid);
    bool noted = false;
    for (const auto& n : d.prediction.notes)
        noted = noted || n.find("outside validity") != std::string::npos;
    EXPECT_TRUE(noted);
    // The prediction is still made: t = 32 B / 46 GB/s.
    EXPECT_NEAR(d.prediction.seconds_per_iteration, 32.0 / 46e9, 1e-18);

    // Cache-bound (t_L2 = 168/146 ns > t_MEM = 8/46 ns): L1_long 25 >= 1 * (1 + 20) = 21 -> outside;
    // with the machine's limit raised to 2: 25 < 42 -> inside.
    const std::string k = counts("{MEM: 1, L2: 20, L1_long: 25}");
    EXPECT_FALSE(model::analyse(kernel_from(k), machine_from(test::k_published_machine), o)
                     .models[0]
                     .prediction.valid);
    const auto relaxed = model::analyse(
        kernel_from(k),
        machine_from(std::string(test::k_published_machine) + "validity: {l1_long_cache_bound: 2}\n"), o);
    EXPECT_TRUE(relaxed.models[0].prediction.valid);
    EXPECT_DOUBLE_EQ(relaxed.models[0].validity[0].limit, 42);
}

TEST(Mixed, ExplicitFormCannotCheckValidity) {
    model::PredictOptions o;
    o.models = {"mixed"};
    const auto a = model::analyse(
        kernel_from("format_version: 1\nname: t\nflops_per_iteration: 2\nbytes_per_iteration: {MEM: 32}\n"),
        machine_from(test::k_published_machine), o);
    EXPECT_TRUE(a.models[0].validity.empty());
    EXPECT_NE(a.models[0].prediction.notes.back().find("validity limits not checked"), std::string::npos);
}

namespace {
// 4 cores; MEM measured per kernel and thread count, calibrated effective 50, entered roof 70.
const char* k_measured = R"(format_version: 1
name: measured
compute:
  peak_gflops: {double: 128}
  ceilings:
    - {precision: double, isa: avx2, op: fma, threads: 2, gflops: 30}
    - {precision: double, isa: avx2, op: fma, threads: 4, gflops: 50}
    - {precision: double, isa: scalar, op: add, threads: 4, gflops: 4}
topology:
  cores: 4
levels:
  - {name: L1, bandwidth_gbs: 800, size_bytes: 32KiB}
  - name: L2
    size_bytes: 1MiB
    curve: {x: working_set, points: [[1048576, 100], [3145728, 60]]}
  - name: MEM
    bandwidth_gbs: 70
    effective_bandwidth_gbs: 50
    measurements:
      - {kernel: triad, threads: 1, working_set_bytes: 1GiB, gbs: 20}
      - {kernel: load, threads: 1, working_set_bytes: 1GiB, gbs: 25}
      - {kernel: triad, threads: 4, working_set_bytes: 1GiB, gbs: 60, moved_per_requested: 1.25}
      - {kernel: copy, threads: 4, working_set_bytes: 1GiB, gbs: 55}
)";
} // namespace

TEST(Choices, BandwidthPerThreadCountAndWorkload) {
    const auto m = machine_from(k_measured);
    const auto k = kernel_from("format_version: 1\nname: t\nflops_per_iteration: 2\nworking_set: "
                               "2MiB\nbytes_per_iteration: {MEM: 32}\n");
    model::PredictOptions o;
    o.threads = 4;
    o.models = {"mixed", "roofline", "hierarchical"};
    auto a = model::analyse(k, m, o);
    // Mixed prefers the calibrated effective bandwidth.
    EXPECT_DOUBLE_EQ(*a.models[0].prediction.terms.back().bandwidth_gbs, 50);
    EXPECT_EQ(a.models[0].prediction.terms.back().bandwidth_source, "calibrated effective");
    // Unknown read/write mix: the triad at 4 threads, in moved bytes 60 * 1.25 = 75 GB/s.
    EXPECT_DOUBLE_EQ(*a.models[1].prediction.terms.back().bandwidth_gbs, 75);
    EXPECT_EQ(a.models[1].prediction.terms.back().bandwidth_source, "measured triad, 4 threads");
    // L2 has only a curve: at the 2 MiB working set, halfway between (1 MiB, 100) and (3 MiB, 60) = 80.
    EXPECT_DOUBLE_EQ(*a.models[2].prediction.terms[1].bandwidth_gbs, 80);
    EXPECT_EQ(a.models[2].prediction.terms[1].bandwidth_source, "curve at 2.00 MiB");
    // No measurement at 2 threads: the entered roof.
    o.threads = 2;
    a = model::analyse(k, m, o);
    EXPECT_DOUBLE_EQ(*a.models[1].prediction.terms.back().bandwidth_gbs, 70);
    EXPECT_EQ(a.models[1].prediction.terms.back().bandwidth_source, "entered");
}

TEST(Choices, LoadOnlyLoopPicksTheLoadKernel) {
    // s += a[i]: reads only, write fraction 0 -> the load measurement at 1 thread (25 GB/s).
    const auto k = kernel_from(R"(format_version: 1
name: sum
flops_per_iteration: 1
loop:
  indices: [i]
  bounds: [100000000]
  arrays: [{name: a, type: double, dims: [100000000]}]
  reads: ["a[i]"]
)");
    model::PredictOptions o;
    o.threads = 1;
    o.models = {"roofline"};
    const auto a = model::analyse(k, machine_from(k_measured), o);
    EXPECT_DOUBLE_EQ(*a.models[0].prediction.terms[0].bandwidth_gbs, 25);
    EXPECT_EQ(a.models[0].prediction.terms[0].bandwidth_source, "measured load, 1 thread");
}

TEST(Choices, ComputePeakForFewerThreads) {
    const auto k =
        kernel_from("format_version: 1\nname: t\nflops_per_iteration: 2\nbytes_per_iteration: {MEM: 8}\n");
    model::PredictOptions o;
    o.models = {"roofline"};
    // Ceilings at 2 and 4 threads: 128 * 30/50 = 76.8 GFLOP/s.
    o.threads = 2;
    EXPECT_NEAR(model::analyse(k, machine_from(k_measured), o).models[0].peak_gflops, 76.8, k_tol);
    // No ceiling at 1 thread: 128 * 1/4 = 32 GFLOP/s.
    o.threads = 1;
    const auto a = model::analyse(k, machine_from(k_measured), o);
    EXPECT_NEAR(a.models[0].peak_gflops, 32, k_tol);
    EXPECT_EQ(a.models[0].compute.source, "peak x 1/4 cores");
    // All cores: the peak as given, and the scalar-add ceiling (4 GFLOP/s) lies below the predicted
    // min(128, 75 GB/s * 2/8) = 18.75 GFLOP/s: SIMD is needed; the FMA ceiling (50) is not below.
    o.threads = 0;
    const auto all = model::analyse(k, machine_from(k_measured), o);
    EXPECT_NEAR(all.models[0].prediction.gflops, 18.75, k_tol);
    // Then the memory kernels measured at 4 threads, at I_MEM = 2/8: triad 75 GB/s -> 18.75 (the roof
    // used), copy 55 GB/s -> 13.75 GFLOP/s, below the prediction.
    ASSERT_EQ(all.models[0].ceilings.size(), 4u);
    EXPECT_FALSE(all.models[0].ceilings[0].below_prediction);
    EXPECT_TRUE(all.models[0].ceilings[1].below_prediction);
    EXPECT_NEAR(all.models[0].ceilings[2].gflops, 18.75, k_tol);
    EXPECT_FALSE(all.models[0].ceilings[2].below_prediction);
    EXPECT_NEAR(all.models[0].ceilings[3].gflops, 13.75, k_tol);
    EXPECT_TRUE(all.models[0].ceilings[3].below_prediction);
}

TEST(BadInput, EachNamesFileAndField) {
    const auto pub = machine_from(test::k_published_machine);
    auto traffic = [&](const std::string& text) {
        return test::input_error_of([&] { model::derive_traffic(kernel_from(text), pub, 1); });
    };
    const std::string head = "format_version: 1\nname: b\nflops_per_iteration: 2\n";
    EXPECT_NE(
        traffic(head + "bytes_per_iteration: {L1: 0, MEM: 0}\n").find("k.yaml: field 'bytes_per_iteration'"),
        std::string::npos);
    EXPECT_NE(traffic(head + "bytes_per_iteration: {MEM: 0}\n").find("zero at every level"),
              std::string::npos);
    EXPECT_NE(traffic(head + "arrays: {MEM: -1}\n").find("field 'arrays.MEM': expected a non-negative"),
              std::string::npos);
    EXPECT_NE(traffic(head + "arrays: {MEM: .nan}\n").find("field 'arrays.MEM'"), std::string::npos);
    EXPECT_NE(traffic(head + "arrays: {MEM: nan}\n").find("finite"), std::string::npos);
    EXPECT_NE(
        traffic(head + "bytes_per_iteration: {L3: 8}\n").find("field 'bytes_per_iteration.L3': the machine"),
        std::string::npos);
    EXPECT_NE(traffic(head + "arrays: {MEM: 1, L3: 2}\n").find("field 'arrays.L3'"), std::string::npos);
    EXPECT_NE(traffic(head + "arrays: {MEM: 1, L1: 2}\n").find("field 'arrays.L1'"), std::string::npos);
    EXPECT_NE(traffic(head).find("expected one of bytes_per_iteration, arrays or loop"), std::string::npos);
    EXPECT_NE(traffic(head + "arrays: {MEM: 1}\nbytes_per_iteration: {MEM: 8}\n").find("only one"),
              std::string::npos);

    const std::string loop = head + "loop:\n  indices: [j, i]\n  bounds: [10, 10]\n"
                                    "  arrays: [{name: a, dims: [10, 10]}]\n  reads: [\"";
    EXPECT_NE(traffic(loop + "a[j][i*i]\"]\n").find("non-affine"), std::string::npos);
    EXPECT_NE(traffic(loop + "a[j][2*i]\"]\n").find("field 'loop.reads[0]': non-affine"), std::string::npos);
    EXPECT_NE(traffic(loop + "a[j][m]\"]\n").find("unknown loop index 'm'"), std::string::npos);
    EXPECT_NE(traffic(loop + "a[j][3]\"]\n").find("constant index"), std::string::npos);
    EXPECT_NE(traffic(loop + "a[j+i][i]\"]\n").find("non-affine"), std::string::npos);
    EXPECT_NE(traffic(loop + "b[j][i]\"]\n").find("not declared"), std::string::npos);
    EXPECT_NE(traffic(loop + "a[i][j]\"]\n").find("last (contiguous) dimension"), std::string::npos);
    // A loop nest on a machine without cache sizes.
    const std::string no_sizes = test::input_error_of([&] {
        model::analyse(kernel_from(loop + "a[j][i]\"]\n"), pub, {0, {}, false, "pub.yaml"});
    });
    EXPECT_NE(no_sizes.find("pub.yaml: field 'levels[0].size_bytes'"), std::string::npos) << no_sizes;

    // Machine without a compute peak (the machine reader refuses it), and without the kernel's precision.
    EXPECT_NE(test::input_error_of([] {
                  machine_from(
                      "format_version: 1\nname: x\ncompute: {}\nlevels: [{name: MEM, bandwidth_gbs: 1}]\n");
              }).find("field 'compute.peak_gflops': missing"),
              std::string::npos);
    EXPECT_NE(test::input_error_of([&] {
                  model::analyse(kernel_from(head + "precision: single\nbytes_per_iteration: {MEM: 8}\n"),
                                 pub, {0, {}, false, "pub.yaml"});
              }).find("pub.yaml: field 'compute.peak_gflops.single'"),
              std::string::npos);
    // More threads than the machine has cores.
    EXPECT_NE(test::input_error_of([&] {
                  model::analyse(kernel_from(head + "bytes_per_iteration: {MEM: 8}\n"),
                                 machine_from(k_measured), {5, {}, false, ""});
              }).find("field 'threads': expected at most 4 threads"),
              std::string::npos);
    // Unknown model name.
    EXPECT_NE(test::input_error_of([&] {
                  model::analyse(kernel_from(head + "bytes_per_iteration: {MEM: 8}\n"), pub,
                                 {0, {"ecm"}, false, ""});
              }).find("field 'model': unknown model 'ecm'"),
              std::string::npos);
}

TEST(Derived, RatesFromOneDeclaration) {
    // Triad: 2 flops, 32 B from memory, 1 ns per iteration -> 2 GFLOP/s, 32 GB/s, 1/16 flop/B.
    const auto r = model::derive_rates(2, {{"MEM", 32}}, 1e-9);
    EXPECT_NEAR(r.gflops, 2, k_tol);
    EXPECT_NEAR(r.gbs.at("MEM"), 32, k_tol);
    EXPECT_DOUBLE_EQ(*r.intensity.at("MEM"), 1.0 / 16);
    EXPECT_FALSE(model::intensity(2, 0).has_value());
    // Times 1 ns and 2 ns -> rates 2 and 1 GFLOP/s, median 1.5, spread (2-1)/1.5.
    const auto s = model::derive_rates(2, {{"MEM", 32}}, *core::summarize({1e-9, 2e-9}));
    EXPECT_NEAR(s.gflops.median, 1.5, k_tol);
    EXPECT_NEAR(s.gbs.at("MEM").median, 24, k_tol);
    EXPECT_TRUE(s.gflops.noisy);
    EXPECT_THROW(model::derive_rates(2, {}, 0.0), std::invalid_argument);
}

TEST(Choices, AffineVolumeCurve) {
    // MEM given only as B = a*V + b with V the access volume: D_MEM * iterations = 32 B * 1e6 = 3.2e7 B;
    // a = 1e-6 GB/s per byte, b = 10 GB/s -> B = 32 + 10 = 42 GB/s; 3.2e7 B = 30.5 MiB.
    const auto m = machine_from(R"(format_version: 1
name: affine
compute: {peak_gflops: {double: 100}}
levels:
  - name: MEM
    curve: {x: volume, affine: {a: 1.0e-6, b: 10}}
)");
    const auto k = kernel_from("format_version: 1\nname: t\nflops_per_iteration: 2\niterations: "
                               "1000000\nbytes_per_iteration: {MEM: 32}\n");
    model::PredictOptions o;
    o.models = {"roofline"};
    const auto a = model::analyse(k, m, o);
    EXPECT_NEAR(*a.models[0].prediction.terms[0].bandwidth_gbs, 42, k_tol);
    EXPECT_EQ(a.models[0].prediction.terms[0].bandwidth_source, "curve at 30.5 MiB");
    // Roofline: min(100, 42 * 2/32) = 2.625 GFLOP/s.
    EXPECT_NEAR(a.models[0].prediction.gflops, 2.625, k_tol);
}
