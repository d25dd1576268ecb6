#include "measure/cpu_signature.hpp"

#include <cpuid.h>
#include <cstring>

namespace roofcast::measure {

CpuSignature decode_cpu_signature(const CpuidRegisters& leaf0, const CpuidRegisters& leaf1) {
    CpuSignature s;
    char vendor[13] = {};
    std::memcpy(vendor, &leaf0.ebx, 4);
    std::memcpy(vendor + 4, &leaf0.edx, 4);
    std::memcpy(vendor + 8, &leaf0.ecx, 4);
    s.vendor = vendor;
    const std::uint32_t eax = leaf1.eax;
    const int base_family = static_cast<int>((eax >> 8) & 0xF);
    const int base_model = static_cast<int>((eax >> 4) & 0xF);
    const int ext_model = static_cast<int>((eax >> 16) & 0xF);
    const int ext_family = static_cast<int>((eax >> 20) & 0xFF);
    s.stepping = static_cast<int>(eax & 0xF);
    s.family = base_family == 0xF ? base_family + ext_family : base_family;
    s.model = base_family == 0x6 || base_family == 0xF ? (ext_model << 4) + base_model : base_model;
    return s;
}

CpuSignature detect_cpu_signature() {
    CpuidRegisters leaf0, leaf1;
    __cpuid(0, leaf0.eax, leaf0.ebx, leaf0.ecx, leaf0.edx);
    if (leaf0.eax >= 1)
        __cpuid(1, leaf1.eax, leaf1.ebx, leaf1.ecx, leaf1.edx);
    return decode_cpu_signature(leaf0, leaf1);
}

} // namespace roofcast::measure
