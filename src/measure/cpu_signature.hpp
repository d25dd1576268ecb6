// The CPU's identity from cpuid: the vendor string (leaf 0) and the display family, display model and
// stepping (leaf 1, EAX). The decoding is a pure function of the register values (unit-tested with the
// signatures of known CPUs); only detect_cpu_signature executes cpuid. The model name alone does not tell
// CPUs apart ("AMD EPYC" on Zen 3 and Zen 4 alike); the family and model do.
#pragma once

#include "measure/tlb.hpp"

#include <string>

namespace roofcast::measure {

struct CpuSignature {
    std::string vendor; // "AuthenticAMD", "GenuineIntel", "HygonGenuine", ...
    int family = 0;     // display family
    int model = 0;      // display model
    int stepping = 0;
};

// Intel SDM vol. 2A, CPUID, "Version Information: Type, Family, Model, and Stepping ID" (Figure 3-6) and
// AMD APM vol. 3, CPUID Fn0000_0001_EAX: the display family is the base family plus the extended family
// when the base family is 0Fh; the display model is the base model plus the extended model shifted left by
// 4 when the base family is 06h or 0Fh. `leaf0` gives the vendor (EBX, EDX, ECX), `leaf1` the signature.
CpuSignature decode_cpu_signature(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1);

// This CPU's signature.
CpuSignature detect_cpu_signature();

} // namespace roofcast::measure
