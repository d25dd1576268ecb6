// TLB decoding from cpuid register values built field by field from the vendors' manuals (AMD APM
// vol. 3 appendix E, CPUID Fn8000_0005/0006/0019; Intel SDM vol. 2A, CPUID leaves 18H and 2), and the
// transparent-huge-page mode parser.
#include "measure/tlb.hpp"

#include <gtest/gtest.h>

using namespace roofcast;
using namespace roofcast::measure;

namespace {

// AMD L1 style: data associativity 31:24, data entries 23:16, instruction associativity 15:8, entries 7:0.
std::uint32_t amd_l1(std::uint32_t d_assoc, std::uint32_t d_entries, std::uint32_t i_assoc,
                     std::uint32_t i_entries) {
    return d_assoc << 24 | d_entries << 16 | i_assoc << 8 | i_entries;
}
// AMD L2 style: data associativity code 31:28, entries 27:16, instruction code 15:12, entries 11:0.
std::uint32_t amd_l2(std::uint32_t d_code, std::uint32_t d_entries, std::uint32_t i_code,
                     std::uint32_t i_entries) {
    return d_code << 28 | d_entries << 16 | i_code << 12 | i_entries;
}
// Intel leaf 18H sub-leaf: EBX page-size bits and ways 31:16, ECX sets, EDX type 4:0, level 7:5, fully bit 8.
CpuidRegisters intel(std::uint32_t pages, std::uint32_t ways, std::uint32_t sets, std::uint32_t type,
                     std::uint32_t level, bool fully = false, std::uint32_t eax = 0) {
    return {eax, ways << 16 | pages, sets, type | level << 5 | (fully ? 1u << 8 : 0u)};
}

} // namespace

TEST(Tlb, AmdLeavesDecodeEntriesPagesAndWays) {
    // L1: 72 entries per page size, fully associative (FFh); L2: 3072 4K entries 12-way is not encodable, so
    // a part reports the nearest code; here code 6 (8 ways) with 2048 entries, and 2048 2M entries code 4
    // (4 ways); 1 GiB: 64 L1 entries fully (Fh), 1024 L2 entries code 8 (16 ways).
    const CpuidRegisters l1{amd_l1(0xFF, 72, 0xFF, 64), amd_l1(0xFF, 72, 0xFF, 64), 0, 0};
    const CpuidRegisters l2{amd_l2(4, 2048, 2, 512), amd_l2(6, 2048, 4, 512), 0, 0};
    const CpuidRegisters gb{amd_l2(0xF, 64, 0xF, 64), amd_l2(8, 1024, 0, 0), 0, 0};
    const auto t = decode_amd_tlb(l1, l2, gb);
    ASSERT_EQ(t.size(), 6u);
    EXPECT_EQ(t[0].level, "L1d");
    EXPECT_EQ(t[0].entries, 72);
    EXPECT_EQ(t[0].page_bytes, 4096u);
    EXPECT_EQ(t[0].associativity, std::nullopt); // fully associative
    EXPECT_EQ(t[1].page_bytes, 2u << 20);
    EXPECT_EQ(t[2].page_bytes, 1u << 30);
    EXPECT_EQ(t[2].entries, 64);
    EXPECT_EQ(t[2].associativity, std::nullopt);
    EXPECT_EQ(t[3].level, "L2");
    EXPECT_EQ(t[3].entries, 2048);
    EXPECT_EQ(t[3].page_bytes, 4096u);
    EXPECT_EQ(t[3].associativity, 8);
    EXPECT_EQ(t[4].associativity, 4);
    EXPECT_EQ(t[5].entries, 1024);
    EXPECT_EQ(t[5].associativity, 16);

    core::Topology topo;
    topo.tlb = t;
    EXPECT_EQ(topo.tlb_reach(), std::uint64_t{2048} * 4096);
}

TEST(Tlb, AmdDisabledAndAbsentTlbsAreLeftOut) {
    // Code 0 = disabled; zero entries = none; no Fn8000_0019; L1 associativity 4 ways.
    const CpuidRegisters l1{0, amd_l1(4, 64, 4, 64), 0, 0};
    const CpuidRegisters l2{amd_l2(0, 1024, 0, 0), amd_l2(0xA, 512, 0, 0), 0, 0};
    const auto t = decode_amd_tlb(l1, l2, std::nullopt);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].level, "L1d");
    EXPECT_EQ(t[0].associativity, 4);
    EXPECT_EQ(t[1].level, "L2");
    EXPECT_EQ(t[1].entries, 512);
    EXPECT_EQ(t[1].associativity, 32); // code Ah
    EXPECT_TRUE(decode_amd_tlb({}, {}, CpuidRegisters{}).empty());
}

TEST(Tlb, IntelLeaf18SubleavesDecodeEntriesAsWaysTimesSets) {
    const std::vector<CpuidRegisters> sub{
        intel(0x7, 8, 32, 2, 1, false, 5), // instruction TLB (sub-leaf 0 carries the count): left out
        intel(0x1, 6, 16, 4, 1),           // load-only 4K: 96 entries, 6-way
        intel(0x1, 16, 1, 5, 1, true),     // store-only, fully associative: left out
        intel(0xE, 8, 4, 4, 1),            // load-only 2M/4M/1G: 32 entries, 8-way
        intel(0x3, 16, 128, 3, 2),         // unified L2 4K+2M: 2048 entries, 16-way
        intel(0x8, 8, 128, 3, 2),          // unified L2 1G: 1024 entries, 8-way
        intel(0x1, 4, 16, 0, 1),           // null sub-leaf: left out
    };
    const auto t = decode_intel_tlb(sub);
    ASSERT_EQ(t.size(), 6u);
    EXPECT_EQ(t[0].level, "L1d");
    EXPECT_EQ(t[0].entries, 96);
    EXPECT_EQ(t[0].page_bytes, 4096u);
    EXPECT_EQ(t[0].associativity, 6);
    EXPECT_EQ(t[1].entries, 32);
    EXPECT_EQ(t[1].page_bytes, 2u << 20);
    EXPECT_EQ(t[2].page_bytes, 1u << 30);
    EXPECT_EQ(t[2].entries, 32); // the load-only TLB's entries serve 2M and 1G pages
    EXPECT_EQ(t[3].level, "L2");
    EXPECT_EQ(t[3].entries, 2048);
    EXPECT_EQ(t[3].page_bytes, 4096u);
    EXPECT_EQ(t[3].associativity, 16);
    EXPECT_EQ(t[4].entries, 2048); // the same entries serve 2M pages
    EXPECT_EQ(t[4].page_bytes, 2u << 20);
    EXPECT_EQ(t[5].entries, 1024);
    EXPECT_EQ(t[5].page_bytes, 1u << 30);
    EXPECT_EQ(t[5].associativity, 8);
    // Fully associative data TLB: no way count.
    const auto f = decode_intel_tlb({intel(0x1, 64, 1, 1, 1, true)});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].entries, 64);
    EXPECT_EQ(f[0].associativity, std::nullopt);
    EXPECT_TRUE(decode_intel_tlb({}).empty());
}

TEST(Tlb, IntelLeafTwoDescriptors) {
    // The SDM's example (Pentium 4): EAX 66 5B 50 01H: 01h is the count, 50h an instruction TLB, 66h a
    // cache, 5Bh a 64-entry data TLB for 4 KiB (and 4 MiB) pages with no stated associativity.
    const auto p4 = decode_intel_leaf2_tlb({0x665B5001, 0, 0, 0x007A7000});
    ASSERT_EQ(p4.size(), 1u);
    EXPECT_EQ(p4[0].level, "L1d");
    EXPECT_EQ(p4[0].entries, 64);
    EXPECT_EQ(p4[0].page_bytes, 4096u);
    EXPECT_EQ(p4[0].associativity, std::nullopt);
    // EBX (bytes low to high): C3h (shared L2: 4 KiB and 2 MiB 1536 entries 6-way, 1 GiB 16 entries
    // 4-way), B4h (DTLB1, 4 KiB, 256 entries, 4-way), 57h (DTLB0, 4 KiB, 16, 4-way), 56h (4 MiB pages
    // only: left out). EAX's count byte 03h is not descriptor 03h; ECX and EDX have bit 31 set: their bytes
    // are not descriptors (so B4h can never be a register's top byte).
    const auto t = decode_intel_leaf2_tlb({0x00000003, 0x5657B4C3, 0x80000003, 0xB4000000});
    ASSERT_EQ(t.size(), 5u);
    EXPECT_EQ(t[0].level, "L1d");
    EXPECT_EQ(t[0].entries, 16);
    EXPECT_EQ(t[0].associativity, 4);
    EXPECT_EQ(t[1].level, "L2");
    EXPECT_EQ(t[1].page_bytes, 4096u);
    EXPECT_EQ(t[1].entries, 1536); // C3h before B4h: both 4 KiB at L2, in descriptor order
    EXPECT_EQ(t[1].associativity, 6);
    EXPECT_EQ(t[2].entries, 256);
    EXPECT_EQ(t[3].page_bytes, 2u << 20);
    EXPECT_EQ(t[3].entries, 1536);
    EXPECT_EQ(t[4].page_bytes, 1u << 30);
    EXPECT_EQ(t[4].entries, 16);
    EXPECT_EQ(t[4].associativity, 4);
    // FEh: the TLBs are in leaf 18h, whatever else the leaf lists.
    EXPECT_TRUE(decode_intel_leaf2_tlb({0x00FE5B01, 0, 0, 0}).empty());
    EXPECT_TRUE(decode_intel_leaf2_tlb({0x00000001, 0, 0, 0}).empty());
}

TEST(Tlb, HugePageModeIsTheBracketedWord) {
    EXPECT_EQ(huge_page_mode("always [madvise] never\n"), "madvise");
    EXPECT_EQ(huge_page_mode("[always] madvise never"), "always");
    EXPECT_EQ(huge_page_mode("always madvise [never]\n"), "never");
    EXPECT_EQ(huge_page_mode("always madvise never"), "");
    EXPECT_EQ(huge_page_mode("[sometimes]"), "");
    EXPECT_EQ(huge_page_mode("] ["), "");
    EXPECT_EQ(huge_page_mode(""), "");
}
