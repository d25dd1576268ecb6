// The diagnosis rules on synthetic evidence (each cause detected and not detected), the stream analysis
// of loop nests whose streams, set conflicts and pages are counted by hand, and the ceilings' order.
#include "experiment/bench.hpp"
#include "experiment/diagnosis.hpp"
#include "model/access_streams.hpp"
#include "model/overlap.hpp"
#include "tiny_machine.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace roofcast;
using namespace roofcast::model;

namespace {

ArrayAccess rd(const std::string& a, std::vector<long> off) {
    return {a, std::move(off), false, {}};
}
ArrayAccess wr(const std::string& a, std::vector<long> off) {
    return {a, std::move(off), true, {}};
}

// 3-D 7-point stencil b = f(a) on an nk x n x n grid of doubles.
LoopNest jacobi_nest(long n) {
    LoopNest l;
    l.indices = {"k", "j", "i"};
    l.bounds = {8, n - 2, n - 2};
    l.arrays = {{"a", "double", {10, n, n}}, {"b", "double", {10, n, n}}};
    l.accesses = {wr("b", {0, 0, 0}),  rd("a", {0, 0, 0}), rd("a", {0, 0, -1}), rd("a", {0, 0, 1}),
                  rd("a", {0, -1, 0}), rd("a", {0, 1, 0}), rd("a", {-1, 0, 0}), rd("a", {1, 0, 0})};
    return l;
}

// Evidence of a kernel at `fraction` of its prediction, nothing else known yet.
DiagnosisEvidence evidence_at(double fraction) {
    DiagnosisEvidence e;
    e.fraction = fraction;
    return e;
}

// d holds one cause, `cause`, with its decisive figure and the limit it was held against.
void expect_only(const std::vector<core::Diagnosis>& d, const std::string& cause, double figure,
                 double limit) {
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, cause);
    EXPECT_NEAR(*d[0].figure, figure, 1e-12);
    EXPECT_DOUBLE_EQ(*d[0].limit, limit);
}

// Evidence of a kernel at `fraction` whose innermost loop runs `streams` streams against a level that keeps
// 90 % of its best up to `capacity` streams and gives `capacity_fraction` of its best at `streams`.
DiagnosisEvidence stream_evidence(double fraction, int streams, int capacity, double capacity_fraction) {
    DiagnosisEvidence e = evidence_at(fraction);
    e.streams = streams;
    e.stream_capacity = capacity;
    e.capacity_level = "MEM (read streams)";
    e.capacity_fraction = capacity_fraction;
    return e;
}

bool has(const std::vector<core::Diagnosis>& d, const std::string& cause) {
    return std::any_of(d.begin(), d.end(), [&](const auto& x) { return x.cause == cause; });
}

TEST(AccessStreams, JacobiHasFiveReadStreamsAndOneWrite) {
    // a(i-1), a(i), a(i+1) share one stream; a(j-1), a(j+1), a(k-1), a(k+1) are four more; b one write.
    const StreamSummary s = innermost_streams(jacobi_nest(130));
    EXPECT_EQ(s.reads, 5);
    EXPECT_EQ(s.writes, 1);
    EXPECT_EQ(s.total(), 6);
}

TEST(AccessStreams, PowerOfTwoPlanesShareASet) {
    // n = 128: rows of 1 KiB, planes of 128 KiB. In a 32 KiB 8-way L1 (64 sets, 4 KiB span) the centre of
    // a, a(k-1), a(k+1) and b's centre fall into one set: 4 lines; a(j-1) and a(j+1) are 16 lines away.
    const StreamSummary s = innermost_streams(jacobi_nest(128));
    EXPECT_EQ(max_streams_per_set(s, 32768, 8), 4);
    // Rows of 130 doubles (1040 B) move a(j+-1) to other sets; planes of 135200 B are 2112.5 lines, so
    // a(k+1) starts in line 2112 (set 0, with the centres of a and b) and a(k-1) in line -2113 (set 63).
    EXPECT_EQ(max_streams_per_set(innermost_streams(jacobi_nest(130)), 32768, 8), 3);
}

TEST(AccessStreams, SixteenRowsFourPowersOfTwoApartThrash) {
    // The mixed family's n = 14 member with rows of 2^17 bytes: 15 rows of c and a in one set.
    LoopNest l;
    l.indices = {"k", "j", "i"};
    l.bounds = {4, 242, 16384};
    l.arrays = {{"a", "double", {4, 256, 16384}}, {"c", "double", {4, 256, 16384}}};
    l.accesses.push_back(wr("a", {0, 0, 0}));
    for (long d = 0; d <= 14; ++d)
        l.accesses.push_back(rd("c", {0, d, 0}));
    const StreamSummary s = innermost_streams(l);
    EXPECT_EQ(s.total(), 16);
    EXPECT_EQ(max_streams_per_set(s, 32768, 8), 16);
    EXPECT_EQ(pages_in_flight(s), 16);
    // An odd number of lines per row (16383 + 8 elements = 2049 lines): every row in its own set.
    for (auto& a : l.arrays)
        a.dims[2] = 16392;
    EXPECT_EQ(max_streams_per_set(innermost_streams(l), 32768, 8), 2); // c's row 0 and a
}

TEST(AccessStreams, PagesMergeWithinOnePage) {
    LoopNest l;
    l.indices = {"i"};
    l.bounds = {1000};
    l.arrays = {{"x", "double", {100000}}};
    l.accesses = {rd("x", {0}), rd("x", {100}), rd("x", {600})}; // 0, 800 B (same page), 4800 B (next page)
    const StreamSummary s = innermost_streams(l);
    EXPECT_EQ(s.total(), 3);
    EXPECT_EQ(pages_in_flight(s), 2);
}

TEST(Diagnosis, NothingAtOrAboveTheThreshold) {
    DiagnosisEvidence e = evidence_at(k_diagnosis_fraction);
    e.sets = {{"L1", 20, 8}};
    EXPECT_TRUE(diagnose(e).empty());
}

TEST(Diagnosis, UnexplainedListsWhatWasChecked) {
    DiagnosisEvidence e = evidence_at(0.5);
    e.sets = {{"L1", 3, 8}};
    const auto d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "unexplained");
    EXPECT_NE(d[0].evidence.find("L1 sets"), std::string::npos);
}

TEST(Diagnosis, CacheConflict) {
    DiagnosisEvidence e = evidence_at(0.3);
    e.sets = {{"L1", 9, 8}};
    EXPECT_TRUE(has(diagnose(e), "cache-conflict"));
    e.sets = {{"L1", 8, 8}};
    EXPECT_FALSE(has(diagnose(e), "cache-conflict"));
}

TEST(Diagnosis, StreamCapacity) {
    DiagnosisEvidence e = stream_evidence(0.3, 14, 8, 0.6);
    const auto d = diagnose(e);
    ASSERT_TRUE(has(d, "stream-capacity"));
    EXPECT_DOUBLE_EQ(*d[0].figure, 14);
    EXPECT_DOUBLE_EQ(*d[0].limit, 8);
    e.capacity_fraction = 0.89; // past the knee, but losing too little to explain a kernel below 85 %
    EXPECT_FALSE(has(diagnose(e), "stream-capacity"));
    e.capacity_fraction = 0.95;
    e.streams = 8; // at the capacity, on the curve's plateau
    EXPECT_FALSE(has(diagnose(e), "stream-capacity"));
}

TEST(Diagnosis, TooFewStreams) {
    // One read stream per thread where memory reaches its best from two: below the knee.
    DiagnosisEvidence e = stream_evidence(0.76, 1, 16, 0.82);
    const auto d = diagnose(e);
    ASSERT_TRUE(has(d, "stream-capacity"));
    EXPECT_DOUBLE_EQ(*d[0].figure, 0.82);
    EXPECT_DOUBLE_EQ(*d[0].limit, k_diagnosis_fraction);
    EXPECT_NE(d[0].evidence.find("fewer requests in flight"), std::string::npos) << d[0].evidence;
    e.capacity_fraction = 0.9; // one stream nearly as good as the best: not the cause
    EXPECT_FALSE(has(diagnose(e), "stream-capacity"));
    // Below 85 % by the medians, but within the points' own ranges (a burst lifted the best point): not
    // named; beyond them: named, with both figures.
    e.capacity_fraction = 0.76;
    e.capacity_upper_fraction = 0.88;
    EXPECT_FALSE(has(diagnose(e), "stream-capacity"));
    e.capacity_upper_fraction = 0.8;
    const auto named = diagnose(e);
    ASSERT_TRUE(has(named, "stream-capacity"));
    EXPECT_NE(
        named[0].evidence.find("76 % of its best bandwidth at that count (at most 80 % within the points' "
                               "own ranges)"),
        std::string::npos)
        << named[0].evidence;
}

TEST(Diagnosis, StreamCapacityBeyondTheCapacityWithinTheSpread) {
    // Past the capacity and below 85 % by the medians, but not beyond the points' ranges: not named.
    DiagnosisEvidence e = stream_evidence(0.3, 14, 8, 0.6);
    e.capacity_upper_fraction = 0.9;
    EXPECT_FALSE(has(diagnose(e), "stream-capacity"));
    e.capacity_upper_fraction = 0.7;
    EXPECT_TRUE(has(diagnose(e), "stream-capacity"));
}

TEST(Diagnosis, TlbReach) {
    DiagnosisEvidence e = evidence_at(0.3);
    e.pages = 80;
    e.tlb_entries = 64;
    e.huge_pages = "never";
    const auto d = diagnose(e);
    ASSERT_TRUE(has(d, "tlb-reach"));
    EXPECT_NE(d[0].evidence.find("never"), std::string::npos);
    e.pages = 64;
    EXPECT_FALSE(has(diagnose(e), "tlb-reach"));
}

TEST(Diagnosis, VectorWidthFpMixAndGather) {
    DiagnosisEvidence e = evidence_at(0.3);
    e.machine_vector_bits = 512;
    CodeEvidence c{
        .function = "f", .vector_bits = 256, .fp_vector = 4, .fma = 0, .add = 2, .mul = 2, .gathers = 1};
    e.code = c;
    auto d = diagnose(e);
    EXPECT_TRUE(has(d, "vector-width"));
    EXPECT_TRUE(has(d, "fp-mix"));
    EXPECT_TRUE(has(d, "gather"));
    const auto evidence = [](const std::vector<core::Diagnosis>& ds, const std::string& cause) {
        for (const auto& x : ds)
            if (x.cause == cause)
                return x.evidence;
        return std::string();
    };
    // One instruction, then two: the count's noun agrees (the report's headline cuts the evidence at "(").
    EXPECT_EQ(evidence(d, "gather").rfind("1 gather instruction per pass:", 0), 0u) << evidence(d, "gather");
    c.gathers = 2;
    e.code = c;
    EXPECT_EQ(evidence(diagnose(e), "gather").rfind("2 gather instructions per pass:", 0), 0u);
    c.vector_bits = 512;
    c.fma = 2;
    c.gathers = 0;
    e.code = c;
    d = diagnose(e);
    EXPECT_FALSE(has(d, "vector-width"));
    EXPECT_FALSE(has(d, "fp-mix"));
    EXPECT_FALSE(has(d, "gather"));
    // Scalar code on a machine whose widest vectors are unknown: no width verdict.
    c.vector_bits = 0;
    c.fp_scalar = 4;
    c.fp_vector = 0;
    e.code = c;
    e.machine_vector_bits = 0;
    EXPECT_FALSE(has(diagnose(e), "vector-width"));
    e.machine_vector_bits = 256;
    EXPECT_TRUE(has(diagnose(e), "vector-width"));
}

TEST(Diagnosis, InCoreAndImbalance) {
    DiagnosisEvidence e = evidence_at(0.3);
    e.l1_share = 0.9;
    e.imbalance = 1.3;
    auto d = diagnose(e);
    EXPECT_TRUE(has(d, "in-core"));
    EXPECT_TRUE(has(d, "load-imbalance"));
    e.l1_share = 0.2;
    e.imbalance = 1.15; // idle 13 % of the time: cannot alone put a kernel below 85 %
    d = diagnose(e);
    EXPECT_FALSE(has(d, "in-core"));
    EXPECT_FALSE(has(d, "load-imbalance"));
    e.fp_share = 0.8;
    e.fp_ceiling = "scalar FMA";
    EXPECT_TRUE(has(diagnose(e), "in-core"));
}

TEST(Diagnosis, InCacheTimeThatAddsToMemorysOrHoldsTheLoopAlone) {
    // Measured 0.342 ns per iteration, memory's term 0.203 ns (59 % of its bound's time, so at 59 %).
    DiagnosisEvidence e = evidence_at(0.59);
    e.measured_seconds = 0.342e-9;
    e.memory_seconds = 0.203e-9;
    // Not measured: not checked.
    EXPECT_EQ(diagnose(e)[0].evidence.find("in-cache time"), std::string::npos);
    // In L2 0.105 ns: with memory's term 0.308 ns, 90 % of the measured time: the two add.
    e.in_cache_seconds = 0.105e-9;
    auto d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "in-core");
    EXPECT_NEAR(*d[0].figure, 0.308 / 0.342, 1e-12);
    EXPECT_DOUBLE_EQ(*d[0].limit, k_diagnosis_fraction);
    EXPECT_NE(d[0].evidence.find("0.105 ns"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("hide little"), std::string::npos) << d[0].evidence;
    // In L2 0.22 ns: 0.423 ns together, 124 % of the measured time: the two overlap in part, which is not
    // this cause (the overlap rule's, when its evidence is there).
    e.in_cache_seconds = 0.22e-9;
    EXPECT_EQ(diagnose(e)[0].cause, "unexplained");
    // In L2 0.05 ns: 0.253 ns together, 74 %: the in-cache time does not explain the gap.
    e.in_cache_seconds = 0.05e-9;
    d = diagnose(e);
    EXPECT_EQ(d[0].cause, "unexplained");
    EXPECT_NE(d[0].evidence.find("in-cache time"), std::string::npos) << d[0].evidence;
    // In L2 0.26 ns, 76 % of the measured time by itself: the loop's own work holds it.
    e.in_cache_seconds = 0.26e-9;
    d = diagnose(e);
    expect_only(d, "in-core", 0.26 / 0.342, k_in_core_share);
    EXPECT_NE(d[0].evidence.find("still takes"), std::string::npos) << d[0].evidence;
    // Without a memory term (a cache-resident kernel) only the share alone can name it.
    e.in_cache_seconds = 0.2e-9;
    e.memory_seconds = 0;
    EXPECT_EQ(diagnose(e)[0].cause, "unexplained");
}

TEST(Diagnosis, MemoryRateWhereEvenNoOverlapLeavesMemorySlow) {
    // 0.452 ns measured, 0.207 ns in L2, memory's term 0.152 ns for 16 B (105.3 GB/s): in L2 46 % of the
    // time (no in-core share), the two together 79 % (no ECM addition), so the 0.245 ns left carry the 16 B
    // at 65.3 GB/s, 0.152 / 0.245 = 62 % of the bound's bandwidth.
    DiagnosisEvidence e = evidence_at(0.5);
    e.measured_seconds = 0.452e-9;
    e.memory_seconds = 0.152e-9;
    e.memory_bytes = 16;
    // Without the in-cache time nothing separates memory's part: not checked.
    auto d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "unexplained");
    EXPECT_EQ(d[0].evidence.find("memory's part"), std::string::npos) << d[0].evidence;
    e.in_cache_seconds = 0.207e-9;
    d = diagnose(e);
    expect_only(d, "memory-rate", 0.152 / (0.452 - 0.207), k_diagnosis_fraction);
    EXPECT_NE(d[0].evidence.find("0.245 ns left"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("65.3 GB/s"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("105.3 GB/s"), std::string::npos) << d[0].evidence;
    // Memory's part at its bandwidth or faster once the in-cache time is taken off (0.093 ns left for a
    // 0.152 ns term; in L2 69 % of the time, the two together 120 %): not this cause; the gap stays
    // unexplained, with this check listed.
    e.measured_seconds = 0.30e-9;
    d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "unexplained");
    EXPECT_NE(d[0].evidence.find("memory's part of the time"), std::string::npos) << d[0].evidence;
    // Where the in-cache time and memory's term add up to the measured time within 85 % the ECM addition
    // names the gap (in-core), not memory's rate, though that is below 85 % as well (0.152 / 0.181 = 84 %):
    // 0.359 ns together, 92 % of 0.388 ns.
    e.measured_seconds = (0.207 + 0.152 / 0.84) * 1e-9;
    d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "in-core");
    // Another rule's cause stands alone: 20 streams in one L1 set of 8 ways explain the rate.
    e.measured_seconds = 0.452e-9;
    e.sets = {{"L1", 20, 8}};
    d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "cache-conflict");
}

TEST(Diagnosis, CeilingsComputeFirstThenBandwidthEachDescending) {
    core::Machine m;
    auto ceiling = [](std::string isa, std::string op, double g) {
        core::ComputeCeiling c;
        c.precision = "double";
        c.isa = std::move(isa);
        c.op = std::move(op);
        c.threads = 1;
        c.gflops.median = g;
        return c;
    };
    m.ceilings = {ceiling("scalar", "fma", 8), ceiling("avx2", "fma", 32), ceiling("avx2", "addmul", 16),
                  ceiling("avx2", "chain", 4), ceiling("avx2", "add", 16)};
    core::Level l1, mem;
    l1.name = "L1";
    l1.bandwidth_gbs = 200;
    mem.name = "MEM";
    mem.bandwidth_gbs = 20;
    m.levels = {l1, mem};
    core::KernelResult k;
    k.threads = 2; // no 2-thread ceilings: one-thread ceilings x 2
    k.flops_per_iteration = 2;
    k.bytes_per_iteration = {{"L1", 16}, {"MEM", 8}};
    const auto c = kernel_ceilings(k, m, 10.0);
    ASSERT_EQ(c.size(), 6u);
    EXPECT_EQ(c[0].name, "AVX2 FMA");
    EXPECT_DOUBLE_EQ(c[0].gflops, 64);
    EXPECT_EQ(c[1].name, "AVX2 without FMA");
    EXPECT_EQ(c[2].name, "scalar FMA");
    EXPECT_EQ(c[3].name, "AVX2 without ILP");
    EXPECT_FALSE(c[3].above); // 8 GF/s < 10 measured
    EXPECT_EQ(c[4].name, "L1 bandwidth");
    EXPECT_DOUBLE_EQ(c[4].gflops, 25);
    EXPECT_EQ(c[5].name, "MEM bandwidth");
    EXPECT_DOUBLE_EQ(c[5].gflops, 5);
    EXPECT_TRUE(c[4].above);
    EXPECT_FALSE(c[5].above);
}

} // namespace

namespace {

TEST(Diagnosis, CloseUnderAnInCoreCeiling) {
    DiagnosisEvidence e = evidence_at(0.2);
    e.under_ceiling = "AVX2 without ILP";
    e.under_share = 0.84;
    // Without the compiled loop a ceiling of about the kernel's height is no evidence.
    EXPECT_FALSE(has(diagnose(e), "in-core"));
    // The compiled loop gives the reason.
    CodeEvidence c{.function = "f", .vector_bits = 256, .fp_vector = 2, .fma = 2};
    e.code = c;
    auto d = diagnose(e);
    ASSERT_TRUE(has(d, "in-core"));
    EXPECT_NE(d.back().evidence.find("256-bit with FMA"), std::string::npos);
    c.fma = 0; // packed but unfused: the ceiling says what is left out
    e.code = c;
    e.under_ceiling = "AVX2 without FMA";
    d = diagnose(e);
    ASSERT_TRUE(has(d, "in-core"));
    EXPECT_NE(d.back().evidence.find("leaves out FMA"), std::string::npos);
    e.under_share = 0.5;
    EXPECT_FALSE(has(diagnose(e), "in-core"));
}

// A full-width FMA loop under a lower ceiling: its carried accumulators against those the FMA latency needs
// say whether a dependency chain holds it (too few), the loads and stores (none carried), or neither
// (enough).
TEST(Diagnosis, FmaChainsAgainstTheLatency) {
    DiagnosisEvidence e = evidence_at(0.6);
    e.under_ceiling = "AVX-512 without FMA";
    e.under_share = 0.9;
    e.code = CodeEvidence{
        .function = "f", .vector_bits = 512, .fp_vector = 24, .fma = 24, .fma_chains = 24, .loads = 14};
    e.fma_chains_needed = 8;
    auto d = diagnose(e);
    ASSERT_TRUE(has(d, "in-core"));
    EXPECT_NE(d.back().evidence.find("24 independent accumulators, as many as the 8"), std::string::npos);
    EXPECT_NE(d.back().evidence.find("neither a dependency chain"), std::string::npos);
    EXPECT_NE(d.back().evidence.find("14 loads per 24 FMAs"), std::string::npos);
    e.code->fma_chains = 8; // exactly enough
    EXPECT_NE(diagnose(e).back().evidence.find("neither a dependency chain"), std::string::npos);
    e.code->fma_chains = 2;
    d = diagnose(e);
    ASSERT_TRUE(has(d, "in-core"));
    EXPECT_NE(d.back().evidence.find("only 2 accumulator(s), where 8 hide"), std::string::npos);
    e.code->fma_chains = 0;
    d = diagnose(e);
    ASSERT_TRUE(has(d, "in-core"));
    EXPECT_NE(d.back().evidence.find("carries no FMA accumulator"), std::string::npos);
    EXPECT_NE(d.back().evidence.find("its 14 loads and 0 store(s) per pass do"), std::string::npos);
    // Without the machine's chain ceiling the count proves nothing either way: the general reason.
    e.fma_chains_needed.reset();
    EXPECT_NE(diagnose(e).back().evidence.find("so a dependency chain (an accumulator"), std::string::npos);
    // Far under the ceiling the rule does not fire at all, whatever the accumulators.
    e.fma_chains_needed = 8;
    e.under_share = 0.5;
    EXPECT_FALSE(has(diagnose(e), "in-core"));
}

TEST(Diagnosis, CodeCausesOnlyWhereFpIssueMatters) {
    DiagnosisEvidence e = evidence_at(0.3);
    e.machine_vector_bits = 256;
    CodeEvidence c{.function = "f", .fp_scalar = 4, .add = 2, .mul = 2};
    e.code = c;
    e.fp_share = 0.2; // memory-bound: the scalar loop loses nothing to its width
    EXPECT_FALSE(has(diagnose(e), "vector-width"));
    EXPECT_FALSE(has(diagnose(e), "fp-mix"));
    e.fp_share = 0.6;
    EXPECT_TRUE(has(diagnose(e), "vector-width"));
    EXPECT_TRUE(has(diagnose(e), "fp-mix"));
}

TEST(Overlap, ExponentForRecoversTheExponentThatMadeTheTime) {
    const std::vector<double> data = {2.0, 1.0, 0.8};
    for (const std::optional<double> q : {std::optional<double>{}, std::optional<double>{1.2}})
        for (const double p : {1.0, 1.33, 2.5, 7.0}) {
            const double t = mixed_time(data, 0.5, p, q);
            const auto x = overlap_exponent_for(data, 0.5, q, t, 64.0);
            ASSERT_TRUE(x.has_value()) << p;
            EXPECT_NEAR(*x, p, 1e-6 * p) << p;
        }
    // Slower than the terms added, or faster than their near-max: no exponent explains it.
    EXPECT_FALSE(overlap_exponent_for(data, 0.5, std::nullopt, 4.4, 64.0).has_value()); // sum 4.3
    EXPECT_FALSE(overlap_exponent_for(data, 0.5, std::nullopt, 2.0, 64.0).has_value()); // the max
}

TEST(Diagnosis, OverlapBelowTheCalibratedExponent) {
    // Terms MEM 0.200, L3 0.113, L2 0.106 ns, compute 0.027 ns; measured 0.332 ns: as if p = 1.33 against a
    // calibrated 2.52-3.93.
    DiagnosisEvidence e = evidence_at(0.72);
    const std::vector<double> data = {0.200e-9, 0.113e-9, 0.106e-9};
    e.measured_seconds = 0.332e-9;
    e.largest_term = "MEM";
    e.largest_seconds = 0.200e-9;
    e.terms_sum_seconds = 0.446e-9;
    e.overlap_fitted = 3.03;
    e.overlap_calibrated = 2.52;
    e.overlap_calibrated_high = 3.93;
    e.overlap_equivalent = overlap_exponent_for(data, 0.027e-9, std::nullopt, e.measured_seconds, 64.0);
    ASSERT_TRUE(e.overlap_equivalent.has_value());
    EXPECT_NEAR(*e.overlap_equivalent, 1.33, 0.02);
    auto d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "overlap");
    EXPECT_NE(d[0].evidence.find("p = 1.33"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("MEM 0.2 ns"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("p = 3.03 (95 % interval 2.52-3.93)"), std::string::npos) << d[0].evidence;
    EXPECT_DOUBLE_EQ(*d[0].limit, 2.52);
    // Inside the calibration's interval: the overlap is what the model assumed, so it is not the cause.
    e.overlap_equivalent = 2.7;
    d = diagnose(e);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cause, "unexplained");
    EXPECT_NE(d[0].evidence.find("term overlap"), std::string::npos);
    // Slower than the terms added: no exponent, not this cause.
    e.overlap_equivalent.reset();
    EXPECT_FALSE(has(diagnose(e), "overlap"));
    // Without a calibrated exponent (the max assumed, or entered without calibration) nothing is checked.
    e.overlap_equivalent = 1.3;
    e.overlap_calibrated.reset();
    d = diagnose(e);
    EXPECT_FALSE(has(d, "overlap"));
    EXPECT_EQ(d[0].evidence.find("term overlap"), std::string::npos);
}

TEST(Diagnosis, MemoryDriftWhereTheCalibrationOutranTheMachineFile) {
    // Calibrated at 121.4 GB/s, the machine file's copy 56.8 GB/s (2.14 x): held against the file's figure
    // the kernel reaches 87 %, so the bound's memory term, not the kernel, is named first.
    DiagnosisEvidence e = evidence_at(0.5);
    e.memory_calibrated_gbs = 121.4;
    e.memory_measured_gbs = 56.8;
    e.memory_measured_source = "measured copy, 2 threads";
    e.fraction_with_measured_memory = 0.87;
    auto d = diagnose(e);
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d[0].cause, "memory-drift");
    EXPECT_NEAR(*d[0].figure, 121.4 / 56.8, 1e-12);
    EXPECT_DOUBLE_EQ(*d[0].limit, k_memory_drift_limit);
    EXPECT_NE(d[0].evidence.find("121.4 GB/s"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("56.8 GB/s"), std::string::npos) << d[0].evidence;
    EXPECT_NE(d[0].evidence.find("87 %"), std::string::npos) << d[0].evidence;
    EXPECT_EQ(d[0].evidence.find("measured 20"), std::string::npos) << d[0].evidence;
    e.memory_measured_when = "2026-11-27T14:59:31Z"; // a cached machine file can be hours older than the run
    EXPECT_NE(diagnose(e)[0].evidence.find("measured copy, 2 threads, measured 2026-11-27T14:59:31Z"),
              std::string::npos)
        << diagnose(e)[0].evidence;
    // Still below its bound against the file's figure: the drift does not explain it.
    e.fraction_with_measured_memory = 0.80;
    d = diagnose(e);
    EXPECT_FALSE(has(d, "memory-drift"));
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d[0].evidence.find("calibrated against measured memory bandwidth"), std::string::npos);
    // A calibration within 1 / 0.85 of the file's figure is not named, whatever the fraction.
    e.fraction_with_measured_memory = 0.95;
    e.memory_calibrated_gbs = 56.8 * 1.15;
    EXPECT_FALSE(has(diagnose(e), "memory-drift"));
    e.memory_calibrated_gbs = 56.8 * 1.2;
    EXPECT_TRUE(has(diagnose(e), "memory-drift"));
    EXPECT_NE(diagnose(e)[0].evidence.find("memory moved between the two measurements"), std::string::npos);
    // Copy loops that disagree among themselves: memory moved within the run, said with their spread.
    e.memory_calibrated_half_width_gbs = 0.2 * *e.memory_calibrated_gbs;
    d = diagnose(e);
    ASSERT_TRUE(has(d, "memory-drift"));
    EXPECT_NE(d[0].evidence.find("the copy loops themselves disagreed (± 13.6 GB/s, 95 %)"),
              std::string::npos)
        << d[0].evidence;
    e.memory_calibrated_half_width_gbs = 0.05 * *e.memory_calibrated_gbs; // a tight calibration
    EXPECT_NE(diagnose(e)[0].evidence.find("memory moved between the two measurements"), std::string::npos);
}

TEST(Diagnosis, MemoryDriftEvidenceFromThePredictionAgainWithoutTheCalibration) {
    // The tiny machine's memory roof is 20 GB/s (entered); a calibration put memory at 40. A memory-bound
    // kernel (16 B and 1 flop per iteration) measured at 0.8 ns per iteration is at half of its calibrated
    // bound (0.4 ns) and at all of the bound the file's roof gives (0.8 ns).
    core::Machine m = test::tiny_machine();
    for (auto& l : m.levels)
        if (l.name == "MEM")
            l.effective_bandwidth_gbs = 40.0;
    KernelSpec spec;
    spec.name = "drift";
    spec.flops_per_iteration = 1;
    spec.iterations = 1e6;
    spec.explicit_bytes = {{"L1", 16}, {"L2", 16}, {"L3", 16}, {"MEM", 16}};
    core::Summary per_call;
    per_call.median = per_call.min = per_call.max = 0.8e-3;
    per_call.n = 1;
    per_call.samples = {0.8e-3};
    core::KernelResult k = compare_kernel(spec, "apps", 1, per_call, m);
    diagnose_kernel(k, spec, m);
    ASSERT_TRUE(k.bound_fraction.has_value());
    EXPECT_NEAR(*k.bound_fraction, 0.5, 1e-9);
    ASSERT_FALSE(k.diagnosis.empty());
    EXPECT_EQ(k.diagnosis[0].cause, "memory-drift");
    EXPECT_NEAR(*k.diagnosis[0].figure, 2.0, 1e-9);
    EXPECT_NE(k.diagnosis[0].evidence.find("100 %"), std::string::npos) << k.diagnosis[0].evidence;
    // Without a calibration there is nothing to hold against.
    for (auto& l : m.levels)
        l.effective_bandwidth_gbs.reset();
    core::KernelResult plain = compare_kernel(spec, "apps", 1, per_call, m);
    diagnose_kernel(plain, spec, m);
    EXPECT_FALSE(has(plain.diagnosis, "memory-drift"));
}

} // namespace
