// Reader of the CPU identity in a machine file's topology (docs/machine-file.md, "CPU identity"). The
// ranges are those of cpuid's fields: the display family is the base family (4 bits) plus, for base
// family 0Fh, the extended family (8 bits), at most 15 + 255; the display model is at most 8 bits and the
// stepping 4 bits (Intel SDM vol. 2A, CPUID, "Version Information"; AMD APM vol. 3, CPUID Fn0000_0001_EAX).
#include "core/machine_sections.hpp"

namespace roofcast::core {

void read_cpu_identity(const YamlField& topology, Topology& t) {
    if (auto v = topology.optional("vendor")) {
        t.vendor = v->as_string();
        // cpuid's vendor string is 12 characters (EBX, EDX, ECX of leaf 0).
        if (t.vendor.empty() || t.vendor.size() > 12)
            v->fail("expected the CPU vendor string of cpuid (1 to 12 characters, e.g. AuthenticAMD)");
    }
    if (auto f = topology.optional("family"))
        t.family = static_cast<int>(f->as_int_in(0, 15 + 255));
    if (auto m = topology.optional("model"))
        t.model_number = static_cast<int>(m->as_int_in(0, 255));
    if (auto s = topology.optional("stepping"))
        t.stepping = static_cast<int>(s->as_int_in(0, 15));
}

} // namespace roofcast::core
