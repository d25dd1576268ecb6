// The rule that decides whether a cached machine file describes this host (measure/host_identity.hpp), on
// hand-built topologies, and the decoding of cpuid's signature it rests on (measure/cpu_signature.hpp).
#include "measure/cpu_signature.hpp"
#include "measure/host_identity.hpp"
#include "measure/machine_run.hpp"
#include "measure/topology.hpp"

#include <cstring>
#include <gtest/gtest.h>

namespace roofcast::measure {
namespace {

// Leaf 0 with the vendor string in EBX, EDX, ECX (the order cpuid returns it in).
CpuidRegisters leaf0(const char (&vendor)[13]) {
    CpuidRegisters r;
    r.eax = 0x10;
    std::memcpy(&r.ebx, vendor, 4);
    std::memcpy(&r.edx, vendor + 4, 4);
    std::memcpy(&r.ecx, vendor + 8, 4);
    return r;
}

TEST(CpuSignature, DecodesTheDisplayFamilyAndModelOfKnownCpus) {
    struct Case {
        const char* what;
        std::uint32_t eax;
        int family, model, stepping;
    };
    // Signatures (CPUID.1:EAX) as the vendors document them: AMD's revision guides for families 17h and 19h,
    // Intel's SDM table of DisplayFamily_DisplayModel.
    const Case cases[] = {
        {"Zen 3 EPYC 7003 (Milan B1)", 0x00A00F11, 25, 1, 1},
        {"Zen 4 EPYC 9004 (Genoa B1)", 0x00A10F11, 25, 17, 1},
        {"Zen 2 EPYC 7002 (Rome B0)", 0x00830F10, 23, 49, 0},
        {"Sapphire Rapids (06_8FH)", 0x000806F8, 6, 143, 8},
        {"Skylake-SP (06_55H)", 0x00050654, 6, 85, 4},
        // A base family other than 06h and 0Fh takes neither extended field.
        {"family 5 ignores the extended fields", 0x0FF50541, 5, 4, 1},
    };
    for (const auto& c : cases) {
        CpuidRegisters l1;
        l1.eax = c.eax;
        const CpuSignature s = decode_cpu_signature(leaf0({"AuthenticAMD"}), l1);
        EXPECT_EQ(s.family, c.family) << c.what;
        EXPECT_EQ(s.model, c.model) << c.what;
        EXPECT_EQ(s.stepping, c.stepping) << c.what;
        EXPECT_EQ(s.vendor, "AuthenticAMD");
    }
    EXPECT_EQ(decode_cpu_signature(leaf0({"GenuineIntel"}), {}).vendor, "GenuineIntel");
}

TEST(CpuSignature, ThisHostHasOne) {
    const core::Topology t = detect_topology();
    ASSERT_FALSE(t.vendor.empty());
    ASSERT_TRUE(t.family && t.model_number && t.stepping);
    EXPECT_GT(*t.family, 0);
}

core::Topology zen3_host() {
    core::Topology t;
    t.cpu_model = "AMD EPYC";
    t.vendor = "AuthenticAMD";
    t.family = 25;
    t.model_number = 1;
    t.stepping = 1;
    t.isa = {"scalar", "sse", "avx2"};
    t.cores = 2;
    t.hw_threads = 2;
    t.caches = {{"L1", 32768, 64, 8, 1, 2, std::nullopt, ""},
                {"L2", 524288, 64, 8, 1, 2, std::nullopt, ""},
                {"L3", 33554432, 64, 16, 2, 1, std::nullopt, ""}};
    return t;
}

core::Machine measured_on(const core::Topology& t, int revision) {
    core::Machine m;
    m.topology = t;
    m.measurement_revision = revision;
    return m;
}

TEST(HostIdentity, TheSameHostMatchesWhateverItsName) {
    core::Machine m = measured_on(zen3_host(), 8);
    m.name = "another host name (AMD EPYC)";
    // Measured figures that move between runs are no part of the identity.
    m.topology->caches[2].effective_size_bytes = 13u << 20;
    m.topology->huge_pages = "madvise";
    EXPECT_FALSE(host_mismatch(m, zen3_host(), 8));
}

TEST(HostIdentity, EachFieldOfTheIdentityRefusesTheFileNamingIt) {
    struct Case {
        const char* field;
        void (*edit)(core::Topology&);
        const char* reason;
    };
    const Case cases[] = {
        {"topology.vendor", [](core::Topology& t) { t.vendor = "GenuineIntel"; },
         "is of another CPU (GenuineIntel, this host AuthenticAMD)"},
        {"topology.model", [](core::Topology& t) { t.model_number = 17; },
         "is of another CPU (family 25 model 17, this host family 25 model 1)"},
        {"topology.family", [](core::Topology& t) { t.family = 23; },
         "is of another CPU (family 23 model 1, this host family 25 model 1)"},
        {"topology.stepping", [](core::Topology& t) { t.stepping = 0; },
         "is of another CPU (family 25 model 1 stepping 0, this host family 25 model 1 stepping 1)"},
        {"topology.packages", [](core::Topology& t) { t.packages = 2; },
         "is of a machine with 2 packages (this host 1)"},
        {"topology.cores", [](core::Topology& t) { t.cores = 4; },
         "is of a machine with 4 cores (this host 2)"},
        {"topology.hw_threads", [](core::Topology& t) { t.hw_threads = 4; },
         "is of a machine with 4 hardware threads (this host 2)"},
        {"topology.isa", [](core::Topology& t) { t.isa.push_back("avx512"); },
         "is of a machine with the ISAs scalar, sse, avx2, avx512 (this host scalar, sse, avx2)"},
        {"topology.caches[2].size_bytes", [](core::Topology& t) { t.caches[2].size_bytes = 16u << 20; },
         "is of a machine with L3 of 16.0 MiB (this host 32.0 MiB)"},
        {"topology.caches", [](core::Topology& t) { t.caches.pop_back(); },
         "is of a machine with the caches L1, L2 (this host L1, L2, L3)"},
        {"topology.vendor", [](core::Topology& t) { t.family.reset(); }, "records no CPU identity"},
    };
    for (const auto& c : cases) {
        core::Topology t = zen3_host();
        c.edit(t);
        const auto m = host_mismatch(measured_on(t, 8), zen3_host(), 8);
        ASSERT_TRUE(m) << c.field;
        EXPECT_EQ(m->field, c.field);
        EXPECT_NE(m->reason.find(c.reason), std::string::npos) << m->reason;
    }
}

TEST(HostIdentity, TheCpuIsNamedBeforeTheRevisionAndTheRevisionMustMatch) {
    core::Topology zen4 = zen3_host();
    zen4.model_number = 17;
    EXPECT_EQ(host_mismatch(measured_on(zen4, 3), zen3_host(), 8)->field, "topology.model");
    const auto old = host_mismatch(measured_on(zen3_host(), 7), zen3_host(), 8);
    ASSERT_TRUE(old);
    EXPECT_EQ(old->field, "measurement_revision");
    EXPECT_EQ(old->reason, "was measured by measurement revision 7 (this build measures 8)");
    core::Machine none = measured_on(zen3_host(), 8);
    none.measurement_revision.reset();
    EXPECT_EQ(host_mismatch(none, zen3_host(), 8)->field, "measurement_revision");
    none.topology.reset();
    EXPECT_EQ(host_mismatch(none, zen3_host(), 8)->field, "topology");
}

TEST(HostIdentity, AFileMeasuredHereDescribesThisHost) {
    core::Machine m;
    m.topology = detect_topology();
    m.measurement_revision = k_measurement_revision;
    EXPECT_FALSE(differs_from_this_host(m)) << differs_from_this_host(m)->reason;
}

} // namespace
} // namespace roofcast::measure
