#include "measure/tlb.hpp"

#include <algorithm>
#include <array>
#include <cpuid.h>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace roofcast::measure {

namespace {

constexpr std::uint64_t k_4k = 4096;
constexpr std::uint64_t k_2m = std::uint64_t{2} << 20;
constexpr std::uint64_t k_1g = std::uint64_t{1} << 30;

std::uint32_t bits(std::uint32_t v, int hi, int lo) {
    return (v >> lo) & ((std::uint32_t{1} << (hi - lo + 1)) - 1);
}

// AMD APM vol. 3, appendix E.4.4 (CPUID Fn8000_0005): L1 TLB associativity is the number of ways,
// FFh = fully associative (0 is reserved: treated as unknown).
std::optional<int> amd_l1_ways(std::uint32_t field) {
    if (field == 0 || field == 0xFF)
        return std::nullopt;
    return static_cast<int>(field);
}

// AMD APM vol. 3, appendix E.4.5 (CPUID Fn8000_0006), "L2/L3 cache and TLB associativity field
// encoding" (also used by Fn8000_0019): 1, 2, 3, 4 ways; 5 = 6, 6 = 8, 8 = 16, Ah = 32, Bh = 48, Ch = 64,
// Dh = 96, Eh = 128 ways; Fh = fully associative; 0 = disabled; 9 = described by Fn8000_001D (caches
// only), treated as unknown. Returns {disabled, ways}.
std::pair<bool, std::optional<int>> amd_l2_ways(std::uint32_t field) {
    static constexpr std::array<int, 16> k_ways{0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
    if (field == 0)
        return {true, std::nullopt};
    const int w = k_ways[field & 0xF];
    return {false, w > 0 ? std::optional<int>(w) : std::nullopt};
}

void add(std::vector<core::TlbInfo>& out, const std::string& level, std::uint32_t entries, std::uint64_t page,
         std::optional<int> ways) {
    if (entries > 0)
        out.push_back({level, static_cast<int>(entries), page, ways});
}

// Data TLB of an AMD L2-style register half: bits 31:28 associativity, 27:16 entries.
void add_amd_l2_style(std::vector<core::TlbInfo>& out, const std::string& level, std::uint32_t reg,
                      std::uint64_t page) {
    const auto [disabled, ways] = amd_l2_ways(bits(reg, 31, 28));
    if (!disabled)
        add(out, level, bits(reg, 27, 16), page, ways);
}

void sort_tlb(std::vector<core::TlbInfo>& v) {
    std::stable_sort(v.begin(), v.end(), [](const core::TlbInfo& a, const core::TlbInfo& b) {
        return a.level != b.level ? a.level < b.level : a.page_bytes < b.page_bytes;
    });
}

CpuidRegisters cpuid(std::uint32_t leaf, std::uint32_t subleaf = 0) {
    CpuidRegisters r;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
}

} // namespace

std::vector<core::TlbInfo> decode_amd_tlb(const CpuidRegisters& l1, const CpuidRegisters& l2,
                                          const std::optional<CpuidRegisters>& gb) {
    std::vector<core::TlbInfo> out;
    // Fn8000_0005: EBX = 4 KiB pages, EAX = 2 MiB/4 MiB pages; bits 31:24 data-TLB associativity,
    // 23:16 data-TLB entries (15:0 describe the instruction TLB). A 4 MiB page takes two 2 MiB entries,
    // so the entry count is the 2 MiB one.
    add(out, "L1d", bits(l1.ebx, 23, 16), k_4k, amd_l1_ways(bits(l1.ebx, 31, 24)));
    add(out, "L1d", bits(l1.eax, 23, 16), k_2m, amd_l1_ways(bits(l1.eax, 31, 24)));
    // Fn8000_0006: EBX = 4 KiB pages, EAX = 2 MiB/4 MiB pages; bits 31:28 associativity, 27:16 entries.
    add_amd_l2_style(out, "L2", l2.ebx, k_4k);
    add_amd_l2_style(out, "L2", l2.eax, k_2m);
    // Fn8000_0019: 1 GiB pages; EAX = L1 TLB, EBX = L2 TLB, each with bits 31:28 associativity and 27:16
    // data-TLB entries (the L2-style encoding).
    if (gb) {
        add_amd_l2_style(out, "L1d", gb->eax, k_1g);
        add_amd_l2_style(out, "L2", gb->ebx, k_1g);
    }
    sort_tlb(out);
    return out;
}

std::vector<core::TlbInfo> decode_intel_tlb(const std::vector<CpuidRegisters>& subleaves) {
    std::vector<core::TlbInfo> out;
    // Intel SDM vol. 2A, CPUID leaf 18H (deterministic address translation parameters):
    // EDX 4:0 type (0 null, 1 data, 2 instruction, 3 unified, 4 load-only, 5 store-only), 7:5 level
    // (from 1), bit 8 fully associative; EBX bits 0-3 page sizes 4K, 2M, 4M, 1G, 31:16 ways; ECX sets.
    // Entries = ways x sets. A 4 MiB page exists only outside 64-bit paging: not listed.
    for (const CpuidRegisters& r : subleaves) {
        const std::uint32_t type = bits(r.edx, 4, 0);
        if (type != 1 && type != 3 && type != 4)
            continue;
        const std::uint32_t level = bits(r.edx, 7, 5);
        if (level != 1 && level != 2)
            continue;
        const std::string name = level == 1 ? "L1d" : "L2";
        const std::uint32_t ways = bits(r.ebx, 31, 16);
        const std::uint64_t entries = std::uint64_t{ways} * r.ecx;
        if (entries == 0 || entries > (std::uint64_t{1} << 30))
            continue;
        const bool fully = bits(r.edx, 8, 8) != 0;
        const std::optional<int> assoc = fully ? std::nullopt : std::optional<int>(static_cast<int>(ways));
        const std::array<std::pair<int, std::uint64_t>, 3> sizes{{{0, k_4k}, {1, k_2m}, {3, k_1g}}};
        for (const auto& [bit, page] : sizes)
            if (bits(r.ebx, bit, bit) != 0)
                add(out, name, static_cast<std::uint32_t>(entries), page, assoc);
    }
    sort_tlb(out);
    return out;
}

std::vector<core::TlbInfo> decode_intel_leaf2_tlb(const CpuidRegisters& r) {
    struct Descriptor {
        std::uint8_t code;
        const char* level;
        int entries;
        std::uint64_t page;
        int ways; // 0: fully associative or not stated
    };
    // Intel SDM vol. 2A, CPUID leaf 2, "Encoding of CPUID Leaf 2 Descriptors": the data and shared TLBs.
    // A descriptor for "4 KByte and 4 MByte pages" lists its 4 KiB use, "2 MByte or 4 MByte" its 2 MiB use;
    // one with two arrays (63h, C3h) has two rows.
    static constexpr Descriptor k_table[] = {
        {0x03, "L1d", 64, k_4k, 4},  {0x57, "L1d", 16, k_4k, 4},  {0x59, "L1d", 16, k_4k, 0},
        {0x5A, "L1d", 32, k_2m, 4},  {0x5B, "L1d", 64, k_4k, 0},  {0x5C, "L1d", 128, k_4k, 0},
        {0x5D, "L1d", 256, k_4k, 0}, {0x63, "L1d", 32, k_2m, 4},  {0x63, "L1d", 4, k_1g, 4},
        {0x64, "L1d", 512, k_4k, 4}, {0x6A, "L1d", 64, k_4k, 8},  {0x6B, "L2", 256, k_4k, 8},
        {0x6C, "L2", 128, k_2m, 8},  {0x6D, "L2", 16, k_1g, 0},   {0xA0, "L1d", 32, k_4k, 0},
        {0xB3, "L1d", 128, k_4k, 4}, {0xB4, "L2", 256, k_4k, 4},  {0xBA, "L2", 64, k_4k, 4},
        {0xC0, "L1d", 8, k_4k, 4},   {0xC1, "L2", 1024, k_4k, 8}, {0xC1, "L2", 1024, k_2m, 8},
        {0xC2, "L1d", 16, k_2m, 4},  {0xC3, "L2", 1536, k_4k, 6}, {0xC3, "L2", 1536, k_2m, 6},
        {0xC3, "L2", 16, k_1g, 4},   {0xC4, "L1d", 32, k_2m, 4},  {0xCA, "L2", 512, k_4k, 4},
    };
    std::vector<core::TlbInfo> out;
    const std::array<std::uint32_t, 4> regs{r.eax, r.ebx, r.ecx, r.edx};
    for (std::size_t i = 0; i < regs.size(); ++i) {
        if (bits(regs[i], 31, 31) != 0)
            continue; // no valid descriptors in this register
        for (int byte = i == 0 ? 1 : 0; byte < 4; ++byte) {
            const std::uint32_t code = bits(regs[i], 8 * byte + 7, 8 * byte);
            if (code == 0xFE)
                return {}; // the TLBs are described by leaf 18h
            for (const Descriptor& d : k_table)
                if (d.code == code)
                    add(out, d.level, static_cast<std::uint32_t>(d.entries), d.page,
                        d.ways > 0 ? std::optional<int>(d.ways) : std::nullopt);
        }
    }
    sort_tlb(out);
    return out;
}

std::string huge_page_mode(std::string_view text) {
    const auto open = text.find('[');
    const auto close = text.find(']', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos)
        return "";
    const std::string mode(text.substr(open + 1, close - open - 1));
    return mode == "always" || mode == "madvise" || mode == "never" ? mode : "";
}

std::vector<core::TlbInfo> detect_tlb() {
    const CpuidRegisters v = cpuid(0);
    char vendor[13] = {};
    std::memcpy(vendor, &v.ebx, 4);
    std::memcpy(vendor + 4, &v.edx, 4);
    std::memcpy(vendor + 8, &v.ecx, 4);
    const std::string_view name(vendor);
    if (name == "AuthenticAMD" || name == "HygonGenuine") {
        const std::uint32_t max_ext = cpuid(0x80000000).eax;
        if (max_ext < 0x80000006)
            return {};
        std::optional<CpuidRegisters> gb;
        if (max_ext >= 0x80000019)
            gb = cpuid(0x80000019);
        return decode_amd_tlb(cpuid(0x80000005), cpuid(0x80000006), gb);
    }
    if (name != "GenuineIntel")
        return {};
    if (v.eax >= 0x18) {
        const CpuidRegisters first = cpuid(0x18, 0);
        std::vector<CpuidRegisters> subleaves{first};
        // Sub-leaf 0's EAX is the largest valid sub-leaf; bounded so a strange value cannot loop long.
        for (std::uint32_t s = 1; s <= std::min<std::uint32_t>(first.eax, 64); ++s)
            subleaves.push_back(cpuid(0x18, s));
        if (auto t = decode_intel_tlb(subleaves); !t.empty())
            return t;
    }
    // CPUs before leaf 18h (or a hypervisor that leaves it empty) describe their TLBs in leaf 2.
    return v.eax >= 0x2 ? decode_intel_leaf2_tlb(cpuid(0x2)) : std::vector<core::TlbInfo>{};
}

std::string detect_huge_pages() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    if (!in)
        return "";
    std::ostringstream text;
    text << in.rdbuf();
    return huge_page_mode(text.str());
}

} // namespace roofcast::measure
