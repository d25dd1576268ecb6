#include "measure/fp_peak.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <array>
#include <cpuid.h>
#include <cstring>
#include <fmt/format.h>
#include <vector>

namespace roofcast::measure {

namespace {

constexpr const char* k_amd_17h =
    "AMD Software Optimization Guide for Family 17h Processors (pub. 55723), §2.11";
constexpr const char* k_amd_19h =
    "AMD Software Optimization Guide for AMD EPYC 7003 Processors (pub. 56665), §2.11";
constexpr const char* k_amd_zen4 =
    "AMD Software Optimization Guide for the AMD Zen4 Microarchitecture (pub. 57647), "
    "§2.11";
constexpr const char* k_amd_zen5 =
    "AMD Software Optimization Guide for the AMD Zen5 Microarchitecture (pub. 58455), "
    "§2.11";
constexpr const char* k_intel =
    "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966), ch. 2; "
    "Agner Fog, Instruction tables";

struct Rates {
    IssueRate fma, add, mul, add_or_mul;
};
constexpr IssueRate fixed(double v) {
    return {v, v};
}
constexpr Rates rates(double fma, double add, double mul, double any) {
    return {fixed(fma), fixed(add), fixed(mul), fixed(any)};
}
constexpr Rates none{};

// One microarchitecture: the models it covers and its rates per ISA width (none: the ISA is absent).
struct Core {
    const char* vendor;
    int family;
    std::vector<std::pair<int, int>> models; // inclusive ranges
    const char* name;
    const char* source;
    Rates narrow; // scalar and SSE
    Rates avx2;
    Rates avx512;
};

// AMD: two FMA/multiply pipes (FP0, FP1) and two add pipes (FP2, FP3) since Zen; 128 bits wide on Zen and
// Zen+ (a 256-bit operation takes a pipe twice), 256 bits from Zen 2; Zen 4 runs a 512-bit operation as two
// 256-bit halves on the same pipes; Zen 5 on 512-bit pipes in desktop and server parts, on halved ones in
// some mobile parts. Intel: Haswell and Broadwell add on port 1 only, multiply and FMA on ports 0 and 1;
// Skylake adds, multiplies and FMAs on ports 0 and 1; a 512-bit operation uses ports 0+1 fused and, on
// server cores with a second 512-bit unit, port 5; Golden Cove adds a fast adder on ports 1 and 5.
const std::vector<Core>& cores() {
    // One row per core: vendor, family, model ranges, name, source, rates for scalar/SSE, AVX2, AVX-512.
    // clang-format off
    static const std::vector<Core> table{
        {"AuthenticAMD", 0x17, {{0x00, 0x2F}}, "AMD Zen/Zen+", k_amd_17h, rates(2, 2, 2, 4), rates(1, 1, 1, 2), none},
        {"AuthenticAMD", 0x17, {{0x30, 0xFF}}, "AMD Zen 2", k_amd_17h, rates(2, 2, 2, 4), rates(2, 2, 2, 4), none},
        {"AuthenticAMD", 0x19, {{0x00, 0x0F}, {0x20, 0x5F}}, "AMD Zen 3", k_amd_19h, rates(2, 2, 2, 4), rates(2, 2, 2, 4), none},
        {"AuthenticAMD", 0x19, {{0x10, 0x1F}, {0x60, 0x7F}, {0xA0, 0xAF}}, "AMD Zen 4", k_amd_zen4, rates(2, 2, 2, 4), rates(2, 2, 2, 4), rates(1, 1, 1, 2)},
        {"AuthenticAMD", 0x1A, {{0x00, 0xFF}}, "AMD Zen 5", k_amd_zen5, rates(2, 2, 2, 4), rates(2, 2, 2, 4), {{1, 2}, {1, 2}, {1, 2}, {2, 4}}},
        {"GenuineIntel", 6, {{0x3C, 0x3C}, {0x3F, 0x3F}, {0x45, 0x46}, {0x3D, 0x3D}, {0x47, 0x47}, {0x4F, 0x4F}, {0x56, 0x56}}, "Intel Haswell/Broadwell", k_intel, rates(2, 1, 2, 2), rates(2, 1, 2, 2), none},
        {"GenuineIntel", 6, {{0x4E, 0x4E}, {0x5E, 0x5E}, {0x8E, 0x8E}, {0x9E, 0x9E}, {0xA5, 0xA6}}, "Intel Skylake (client)", k_intel, rates(2, 2, 2, 2), rates(2, 2, 2, 2), none},
        {"GenuineIntel", 6, {{0x55, 0x55}}, "Intel Skylake-SP/Cascade Lake", k_intel, rates(2, 2, 2, 2), rates(2, 2, 2, 2), {{1, 2}, {1, 2}, {1, 2}, {1, 2}}},
        {"GenuineIntel", 6, {{0x6A, 0x6A}, {0x6C, 0x6C}}, "Intel Ice Lake-SP", k_intel, rates(2, 2, 2, 2), rates(2, 2, 2, 2), rates(2, 2, 2, 2)},
        {"GenuineIntel", 6, {{0x8F, 0x8F}, {0xCF, 0xCF}}, "Intel Sapphire/Emerald Rapids (Golden Cove)", k_intel, rates(2, 2, 2, 3), rates(2, 2, 2, 3), rates(2, 2, 2, 2)},
    };
    // clang-format on
    return table;
}

const Rates* rates_of(const Core& c, const std::string& isa) {
    const Rates* r = isa == "scalar" || isa == "sse" ? &c.narrow
                     : isa == "avx2"                 ? &c.avx2
                     : isa == "avx512"               ? &c.avx512
                                                     : nullptr;
    return r != nullptr && r->fma.hi > 0 ? r : nullptr;
}

const Core* find_core(const CpuIdentity& id) {
    for (const Core& c : cores())
        if (id.vendor == c.vendor && id.family == c.family)
            for (const auto& [lo, hi] : c.models)
                if (id.model >= lo && id.model <= hi)
                    return &c;
    return nullptr;
}

double end_of(const IssueRate& r, bool upper) {
    return upper ? r.hi : r.lo;
}

} // namespace

CpuIdentity decode_cpu_identity(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1) {
    // Intel SDM vol. 2A, CPUID leaf 01h "Version Information"; AMD APM vol. 3, CPUID Fn0000_0001_EAX: the
    // extended family is added for base family 0Fh, the extended model prepended for base family 06h or 0Fh.
    CpuIdentity id;
    std::array<char, 12> v{};
    std::memcpy(v.data(), &leaf0.ebx, 4);
    std::memcpy(v.data() + 4, &leaf0.edx, 4);
    std::memcpy(v.data() + 8, &leaf0.ecx, 4);
    id.vendor.assign(v.begin(), v.end());
    const int base_family = static_cast<int>((leaf1.eax >> 8) & 0xF);
    const int base_model = static_cast<int>((leaf1.eax >> 4) & 0xF);
    id.family = base_family == 0xF ? base_family + static_cast<int>((leaf1.eax >> 20) & 0xFF) : base_family;
    id.model = base_family == 0x6 || base_family == 0xF
                   ? base_model + (static_cast<int>((leaf1.eax >> 16) & 0xF) << 4)
                   : base_model;
    return id;
}

CpuIdentity host_cpu_identity() {
    CpuidRegisters l0, l1;
    if (__get_cpuid(0, &l0.eax, &l0.ebx, &l0.ecx, &l0.edx) == 0 || l0.eax < 1)
        return {};
    __get_cpuid(1, &l1.eax, &l1.ebx, &l1.ecx, &l1.edx);
    return decode_cpu_identity(l0, l1);
}

std::string describe(const CpuIdentity& id) {
    if (id.vendor.empty())
        return "an unidentified CPU";
    return fmt::format("{} family {} model {}", id.vendor, id.family, id.model);
}

std::optional<FpIssue> documented_fp_issue(const CpuIdentity& id, const std::string& isa) {
    const Core* c = find_core(id);
    if (c == nullptr)
        return std::nullopt;
    const Rates* r = rates_of(*c, isa);
    if (r == nullptr)
        return std::nullopt;
    return FpIssue{c->name, c->source, r->fma, r->add, r->mul, r->add_or_mul};
}

FpIssue widest_fp_issue(const std::string& isa) {
    FpIssue out{"the widest core listed",
                "the most any listed core issues (docs/measure-compute.md)",
                {},
                {},
                {},
                {}};
    const auto widen = [](IssueRate& into, const IssueRate& r) {
        into.lo = std::max(into.lo, r.hi);
        into.hi = std::max(into.hi, r.hi);
    };
    for (const Core& c : cores())
        if (const Rates* r = rates_of(c, isa)) {
            widen(out.fma, r->fma);
            widen(out.add, r->add);
            widen(out.mul, r->mul);
            widen(out.add_or_mul, r->add_or_mul);
        }
    return out;
}

double peak_flops_per_cycle(const FpIssue& r, const std::string& op, int lanes, bool upper) {
    const double l = static_cast<double>(lanes);
    if (op == "fma" || op == "chain")
        return 2.0 * l * end_of(r.fma, upper);
    if (op == "add")
        return l * end_of(r.add, upper);
    if (op == "mul")
        return l * end_of(r.mul, upper);
    if (op == "addmul")
        return l * 2.0 *
               std::min({end_of(r.add, upper), end_of(r.mul, upper), end_of(r.add_or_mul, upper) / 2.0});
    throw core::InputError("", "op",
                           fmt::format("unknown op '{}'; expected fma, add, mul, addmul or chain", op));
}

} // namespace roofcast::measure
