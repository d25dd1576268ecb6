// The theoretical peak from the CPU's documented issue rates (measure/fp_peak.hpp), the machine file's peak
// derived from it, and a measured ceiling judged against it: hand-computed figures for an AVX2 AMD Zen 3
// core and an AVX-512 Intel Sapphire Rapids core, an unlisted CPU, and the busy two-unit core that the old
// rule (FMA units read from the judged epoch) refused.
#include "core/error.hpp"
#include "measure/compute.hpp"
#include "measure/fp_peak.hpp"

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::measure;

namespace {

CpuidRegisters vendor(const char* name) { // leaf 0: the 12 characters in ebx, edx, ecx
    CpuidRegisters r;
    r.eax = 0x10;
    std::memcpy(&r.ebx, name, 4);
    std::memcpy(&r.edx, name + 4, 4);
    std::memcpy(&r.ecx, name + 8, 4);
    return r;
}

CpuidRegisters signature(std::uint32_t eax) {
    CpuidRegisters r;
    r.eax = eax;
    return r;
}

// AMD EPYC 7003 (Milan): signature 00A00F11h, family 0Fh + extended 0Ah = 19h (25), model 01h.
CpuIdentity zen3_identity() {
    return decode_cpu_identity(vendor("AuthenticAMD"), signature(0x00A00F11));
}
// Intel Xeon Sapphire Rapids: signature 000806F8h, family 6, model 0Fh + extended 8 << 4 = 8Fh.
CpuIdentity sapphire_rapids() {
    return decode_cpu_identity(vendor("GenuineIntel"), signature(0x000806F8));
}

double peak(const CpuIdentity& id, const std::string& isa, const std::string& op, int lanes) {
    const auto doc = documented_fp_issue(id, isa);
    EXPECT_TRUE(doc.has_value()) << describe(id) << " " << isa;
    return doc ? peak_flops_per_cycle(*doc, op, lanes) : 0.0;
}

core::ComputeCeiling ceiling(const char* precision, const char* isa, const char* op, int threads = 1) {
    core::ComputeCeiling c;
    c.precision = precision;
    c.isa = isa;
    c.op = op;
    c.threads = threads;
    c.ghz = 3.0;
    return c;
}

bool has_fp_note(const ComputeResult& r, const std::string& a, const std::string& b = "") {
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
        return n.find(a) != std::string::npos && n.find(b) != std::string::npos;
    });
}

} // namespace

TEST(CpuIdentity, DecodesVendorFamilyAndModel) {
    const CpuIdentity amd = zen3_identity();
    EXPECT_EQ(amd.vendor, "AuthenticAMD");
    EXPECT_EQ(amd.family, 25);
    EXPECT_EQ(amd.model, 1);
    const CpuIdentity intel = sapphire_rapids();
    EXPECT_EQ(intel.vendor, "GenuineIntel");
    EXPECT_EQ(intel.family, 6);
    EXPECT_EQ(intel.model, 0x8F);
    // AMD Zen 4 (Genoa, 00A10F11h): model 11h = 17, as /proc/cpuinfo prints it.
    EXPECT_EQ(decode_cpu_identity(vendor("AuthenticAMD"), signature(0x00A10F11)).model, 17);
    EXPECT_EQ(describe(amd), "AuthenticAMD family 25 model 1");
}

TEST(FpPeak, Zen3Avx2ByHand) {
    // Zen 3: FMA and multiply on FP0 and FP1, add on FP2 and FP3, each 256 bits wide (AMD pub. 56665 §2.11).
    const CpuIdentity id = zen3_identity();
    // avx2 double, 4 lanes: FMA 2 x 4 x 2 = 16; add 2 x 4 = 8; mul 8; add+mul 2 + 2 per cycle x 4 = 16; the
    // dependent FMA chain cannot beat the FMA rate: 16. Single, 8 lanes: twice each.
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "fma", 4), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "add", 4), 8.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "mul", 4), 8.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "addmul", 4), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "chain", 4), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "fma", 8), 32.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "addmul", 8), 32.0);
    // Scalar double, 1 lane, on the same pipes: FMA 4, add 2, mul 2, add+mul 4.
    EXPECT_DOUBLE_EQ(peak(id, "scalar", "fma", 1), 4.0);
    EXPECT_DOUBLE_EQ(peak(id, "scalar", "add", 1), 2.0);
    EXPECT_DOUBLE_EQ(peak(id, "scalar", "addmul", 1), 4.0);
    // Zen 3 has no AVX-512: nothing documented.
    EXPECT_FALSE(documented_fp_issue(id, "avx512").has_value());
}

TEST(FpPeak, SapphireRapidsAvx512ByHand) {
    // Golden Cove server core: 512-bit FMA, add and multiply on ports 0 (0+1 fused) and 5; at 256 bits FMA
    // and multiply on ports 0 and 1, add on the fast adders of ports 1 and 5 (Intel 248966, ch. 2).
    const CpuIdentity id = sapphire_rapids();
    // avx512 double, 8 lanes: FMA 2 x 8 x 2 = 32; add 16; mul 16; add+mul share the two ports: 2 x 8 = 16.
    EXPECT_DOUBLE_EQ(peak(id, "avx512", "fma", 8), 32.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx512", "add", 8), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx512", "mul", 8), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx512", "addmul", 8), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx512", "chain", 8), 32.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx512", "fma", 16), 64.0); // single
    // avx2 double, 4 lanes: FMA 16; add 8; add+mul on three ports (mul on 0, add on 5, either on 1): 3 x 4
    // = 12.
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "fma", 4), 16.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "add", 4), 8.0);
    EXPECT_DOUBLE_EQ(peak(id, "avx2", "addmul", 4), 12.0);
}

TEST(FpPeak, RangesAndUnlistedCpus) {
    // Skylake-SP has one or two 512-bit FMA units by SKU: the check uses the upper end, 2 x 8 x 2 = 32.
    const CpuIdentity skx = decode_cpu_identity(vendor("GenuineIntel"), signature(0x00050654));
    ASSERT_EQ(skx.model, 0x55);
    const auto doc = documented_fp_issue(skx, "avx512");
    ASSERT_TRUE(doc.has_value());
    EXPECT_DOUBLE_EQ(peak_flops_per_cycle(*doc, "fma", 8, true), 32.0);
    EXPECT_DOUBLE_EQ(peak_flops_per_cycle(*doc, "fma", 8, false), 16.0);
    // An unlisted CPU: nothing documented; the bound is the most any listed core issues (avx2: two FMA, two
    // add, two multiply pipes, four for an add+mul mix, as on AMD Zen 2 to 5).
    const CpuIdentity other = decode_cpu_identity(vendor("HygonGenuine"), signature(0x00900F01));
    EXPECT_FALSE(documented_fp_issue(other, "avx2").has_value());
    const FpIssue bound = widest_fp_issue("avx2");
    EXPECT_DOUBLE_EQ(peak_flops_per_cycle(bound, "fma", 4), 16.0);
    EXPECT_DOUBLE_EQ(peak_flops_per_cycle(bound, "addmul", 4), 16.0);
    EXPECT_THROW(peak_flops_per_cycle(bound, "div", 4), core::InputError);
}

TEST(CeilingJudgement, EveryOpAgainstADocumentedPeak) {
    // The report: a busy two-unit core whose best FMA epoch reads 1.3 units' worth (10.4 of 16 flops per
    // cycle). Read from the epoch itself, the units were 1 and the epoch was refused as 130 %; against
    // Zen 3's documented two units it is 65 %.
    const PeakJudgement fma = judge_against_peak(zen3_identity(), ceiling("double", "avx2", "fma"), 10.4);
    EXPECT_DOUBLE_EQ(fma.peak_flops_per_cycle, 16.0);
    EXPECT_NEAR(fma.fraction, 0.65, 1e-12);
    EXPECT_LE(fma.fraction, k_peak_margin);
    EXPECT_NE(fma.basis.find("documented for AMD Zen 3"), std::string::npos) << fma.basis;
    // Every op is judged, each against its own peak: an add ceiling at 9 of 8 flops per cycle (112.5 %)
    // cannot be a ceiling of this core; an add+mul one at 15 of 16 can.
    const PeakJudgement add = judge_against_peak(zen3_identity(), ceiling("double", "avx2", "add"), 9.0);
    EXPECT_DOUBLE_EQ(add.peak_flops_per_cycle, 8.0);
    EXPECT_GT(add.fraction, k_peak_margin);
    EXPECT_LE(judge_against_peak(zen3_identity(), ceiling("double", "avx2", "addmul"), 15.0).fraction,
              k_peak_margin);
    EXPECT_GT(judge_against_peak(zen3_identity(), ceiling("single", "avx2", "mul"), 18.0).fraction,
              k_peak_margin);
    EXPECT_GT(judge_against_peak(zen3_identity(), ceiling("double", "avx2", "chain"), 17.0).fraction,
              k_peak_margin);
    // AVX-512 on Sapphire Rapids: 31 of 32 double flops per cycle is accepted, a mul at 17 of 16 is not.
    EXPECT_LE(judge_against_peak(sapphire_rapids(), ceiling("double", "avx512", "fma"), 31.0).fraction,
              k_peak_margin);
    EXPECT_GT(judge_against_peak(sapphire_rapids(), ceiling("double", "avx512", "mul"), 17.0).fraction,
              k_peak_margin);
    // An unlisted CPU is judged against the widest bound, and the basis says so.
    const PeakJudgement unknown = judge_against_peak(CpuIdentity{}, ceiling("double", "avx2", "fma"), 10.4);
    EXPECT_DOUBLE_EQ(unknown.peak_flops_per_cycle, 16.0);
    EXPECT_NE(unknown.basis.find("not in the table"), std::string::npos) << unknown.basis;
}

TEST(TheoreticalPeak, DocumentedUnitsNotTheJudgedEpoch) {
    // A 2-core Zen 3 run at 3.0 GHz whose best avx2 FMA epoch read 1.3 units' worth (a busy host).
    ComputeResult r;
    r.cpu = zen3_identity();
    r.isas = {"scalar", "sse", "avx2"};
    r.cores = 2;
    r.clock_ghz = *core::summarize({2.9, 3.0, 3.1});
    const auto add = [&r](const char* isa, const char* op, double fpc) {
        core::ComputeCeiling c = ceiling("double", isa, op);
        c.gflops = *core::summarize({fpc * 3.0});
        r.ceilings.push_back(c);
        r.best_flops_per_cycle.push_back(fpc);
    };
    add("avx2", "fma", 10.4);
    add("avx2", "add", 7.9);
    add("avx2", "addmul", 14.0);
    derive_theoretical_peak(r);
    EXPECT_EQ(r.fma_units, 2);
    // 2 cores x 4 lanes x 2 flops x 2 units x 3.0 GHz = 96 GFLOP/s double, 192 single.
    EXPECT_DOUBLE_EQ(r.peak_gflops.at("double"), 96.0);
    EXPECT_DOUBLE_EQ(r.peak_gflops.at("single"), 192.0);
    EXPECT_TRUE(has_fp_note(r, "fma_units = 2: documented for AMD Zen 3 on avx2", "1.30 units' worth"));
    // Each op's fraction of its own peak: 10.4 / 16 = 65.0 %, 7.9 / 8 = 98.8 %, 14 / 16 = 87.5 %.
    EXPECT_TRUE(has_fp_note(r, "double avx2 fma, 1 thread", "65.0 % of the theoretical 16"));
    EXPECT_TRUE(has_fp_note(r, "double avx2 add, 1 thread", "98.8 % of the theoretical 8"));
    EXPECT_TRUE(has_fp_note(r, "double avx2 addmul, 1 thread", "87.5 % of the theoretical 16"));
    EXPECT_FALSE(has_fp_note(r, "above the peak"));
}

TEST(TheoreticalPeak, DocumentedRangeIsNarrowedByTheBestEpoch) {
    // Skylake-SP: one or two 512-bit FMA units by SKU. The best epoch picks within the documented range.
    ComputeResult r;
    r.cpu = decode_cpu_identity(vendor("GenuineIntel"), signature(0x00050654));
    r.isas = {"scalar", "sse", "avx2", "avx512"};
    r.cores = 1;
    r.clock_ghz = *core::summarize({2.0});
    core::ComputeCeiling c = ceiling("double", "avx512", "fma");
    c.gflops = *core::summarize({15.8 * 2.0});
    r.ceilings.push_back(c);
    r.best_flops_per_cycle.push_back(15.8); // 0.99 units' worth: one unit
    derive_theoretical_peak(r);
    EXPECT_EQ(r.fma_units, 1);
    EXPECT_DOUBLE_EQ(r.peak_gflops.at("double"), 1 * 8 * 2 * 1 * 2.0);
    EXPECT_TRUE(has_fp_note(r, "1-2 FMA units per core on avx512 by model")) << r.notes.front();
    r.notes.clear();
    r.best_flops_per_cycle[0] = 31.2; // 1.95 units' worth: two
    derive_theoretical_peak(r);
    EXPECT_EQ(r.fma_units, 2);
}
