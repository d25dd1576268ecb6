// Data-TLB sizes from cpuid and the transparent-huge-page mode from sysfs, for core::Topology::tlb and
// huge_pages. The decoding is a pure function of the register values (unit-tested with values built
// from the vendors' manuals); only detect_tlb and detect_huge_pages execute cpuid or read files.
// AMD (and Hygon): leaves 8000_0005h (L1 TLBs), 8000_0006h (L2 TLBs), 8000_0019h (1 GiB pages).
// Intel: leaf 18h (deterministic address translation parameters); the older leaf 2 descriptors are not
// decoded, so a CPU without leaf 18h reports no TLB.
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

// The selected mode of /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never" ->
// "madvise"); "" when no known mode is selected.
std::string huge_page_mode(std::string_view enabled_text);

// This CPU's data TLBs (empty when its vendor or cpuid leaves are not known) and this kernel's
// transparent-huge-page mode ("" when unknown).
std::vector<core::TlbInfo> detect_tlb();
std::string detect_huge_pages();

} // namespace roofcast::measure
