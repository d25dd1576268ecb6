// The theoretical floating-point peak of one core, from the CPU's documented issue rates: how many vector
// FMA, add and multiply instructions of each ISA width a core of this microarchitecture starts per cycle.
// One home for the peak rule: the machine file's theoretical peak (derive_theoretical_peak) and the check
// of a measured ceiling against it (judge_against_peak, `roofcast ceiling`) both take their figures from
// peak_flops_per_cycle() here, never from the epoch being judged.
//
// The rates are those of the vendors' optimisation guides (AMD: "Software Optimization Guide" for family
// 17h, pub. 55723, §2.11; for family 19h (EPYC 7003), pub. 56665, §2.11; for Zen 4, pub. 57647, §2.11; for
// Zen 5, pub. 58455, §2.11. Intel: "Intel 64 and IA-32 Architectures Optimization Reference Manual", order
// 248966, the execution-unit tables of chapter 2) as tabulated per instruction by Agner Fog, "Instruction
// tables" (2022), and uops.info. Where they differ between models of one family (Intel Xeon Scalable of the
// first two generations have one or two 512-bit FMA units by SKU; Zen 5 runs 512-bit operations on full-width
// or on halved data paths by product), the rate is a range [lo, hi].
//
// Contract: pure functions of a CPU identity (host_cpu_identity() alone executes cpuid). A CPU that the
// table does not list has no documented rates; the check then uses the most any listed core issues on that
// ISA (widest_fp_issue), and says so.
#pragma once

#include "measure/tlb.hpp" // CpuidRegisters

#include <optional>
#include <string>

namespace roofcast::measure {

// Vendor string and display family and model (cpuid leaf 1, with the extended fields folded in as the
// vendors' manuals define them). Under a hypervisor these are what it presents.
struct CpuIdentity {
    std::string vendor; // "AuthenticAMD", "GenuineIntel"; empty: unknown
    int family = 0;
    int model = 0;
};
CpuIdentity decode_cpu_identity(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1);
CpuIdentity host_cpu_identity();
std::string describe(const CpuIdentity& id); // "AuthenticAMD family 25 model 1"

// Instructions per core and cycle; lo < hi where models of one family differ.
struct IssueRate {
    double lo = 0;
    double hi = 0;
};

// The issue rates of one core for one ISA width (scalar and SSE instructions at the rates of the 128-bit or
// wider pipes that execute them).
struct FpIssue {
    std::string core;   // "AMD Zen 3"
    std::string source; // where the rates are documented
    IssueRate fma, add, mul;
    IssueRate add_or_mul; // pipes that take an add or a multiply: bounds a mix of the two
};

// The documented rates of `isa` on this CPU; nullopt where the table does not list the CPU or the ISA.
std::optional<FpIssue> documented_fp_issue(const CpuIdentity& id, const std::string& isa);
// The most any core the table lists issues on `isa` (each rate its largest): a bound for an unlisted CPU.
FpIssue widest_fp_issue(const std::string& isa);

// The peak rule: flops per core and cycle of `op` (fma, add, mul, addmul, chain) on registers of `lanes`
// elements at the rates `r` (their hi end with `upper`, else lo):
//   fma, chain: 2·lanes·fma (the dependent chain issues FMAs, so it cannot beat their rate)
//   add:        lanes·add            mul: lanes·mul
//   addmul:     lanes·2·min(add, mul, add_or_mul/2) (equal numbers of adds and multiplies).
// Unknown op: core::InputError (field "op").
double peak_flops_per_cycle(const FpIssue& r, const std::string& op, int lanes, bool upper = true);

} // namespace roofcast::measure
