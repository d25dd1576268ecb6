// Data-TLB sizes from cpuid and the transparent-huge-page mode from sysfs, for core::Topology::tlb and
// huge_pages. The decoding is a pure function of the register values (unit-tested with values built
// from the vendors' manuals); only detect_tlb and detect_huge_pages execute cpuid or read files.
// AMD (and Hygon): leaves 8000_0005h (L1 TLBs), 8000_0006h (L2 TLBs), 8000_0019h (1 GiB pages).
// Intel: leaf 18h (deterministic address translation parameters), else the one-byte descriptors of leaf 2
// (CPUs before leaf 18h).
#pragma once

#include "core/machine.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure {

struct CpuidRegisters {
    std::uint32_t eax = 0;
    std::uint32_t ebx = 0;
    std::uint32_t ecx = 0;
    std::uint32_t edx = 0;
};

// Data TLBs of an AMD CPU, L1d first, 4 KiB before 2 MiB before 1 GiB pages; a TLB with 0 entries
// (absent or disabled) is left out. `l1` is leaf 8000_0005h, `l2` 8000_0006h, `gb` 8000_0019h when the
// CPU has it.
std::vector<core::TlbInfo> decode_amd_tlb(const CpuidRegisters& l1, const CpuidRegisters& l2,
                                          const std::optional<CpuidRegisters>& gb);

// Data TLBs of an Intel CPU from the sub-leaves of leaf 18h (sub-leaf 0 first): data, load-only and
// unified TLBs of levels 1 and 2, one entry per page size each supports (4 KiB, 2 MiB, 1 GiB); null,
// instruction and store-only TLBs are left out. Ordered like decode_amd_tlb.
std::vector<core::TlbInfo> decode_intel_tlb(const std::vector<CpuidRegisters>& subleaves);

// Data TLBs of an Intel CPU from the registers of leaf 2 (Intel SDM vol. 2A, "Encoding of CPUID Leaf 2
// Descriptors"): each register whose bit 31 is clear holds four one-byte descriptors (EAX's lowest byte
// is a count, not a descriptor). Data TLBs are listed by level: "Data TLB", "DTLB0", "uTLB" at L1d, "Data
// TLB1", the DTLB beside a uTLB and the shared second-level TLB at L2; descriptors for 4 MiB pages alone
// (32-bit paging) are left out, like leaf 18h's. Ordered like decode_amd_tlb; empty when the leaf sends
// to leaf 18h (descriptor FEh) or names no data TLB.
std::vector<core::TlbInfo> decode_intel_leaf2_tlb(const CpuidRegisters& leaf2);

// The selected mode of /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never" ->
// "madvise"); "" when no known mode is selected.
std::string huge_page_mode(std::string_view enabled_text);

// This CPU's data TLBs (empty when its vendor or cpuid leaves are not known) and this kernel's
// transparent-huge-page mode ("" when unknown).
std::vector<core::TlbInfo> detect_tlb();
std::string detect_huge_pages();

} // namespace roofcast::measure
