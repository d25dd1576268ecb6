// Whether a machine file describes this host: the one rule behind every reuse of a cached machine file
// (`roofcast run`, and the commands that take --machine when none is given, cli/host_machine.hpp). A file
// is this host's when it records the same CPU (vendor, family, model, stepping), the same packages, cores
// and hardware threads, the same vector ISAs and cache sizes, and was measured by this build's measurement
// revision (k_measurement_revision). The host name is no part of it: VMs share names, and clusters share
// home directories across node types.
#pragma once

#include "core/machine.hpp"

#include <optional>
#include <string>

namespace roofcast::measure {

struct HostMismatch {
    std::string field; // the machine-file field that differs ("topology.model", "measurement_revision")
    std::string
        reason; // completes "FILE ...": "is of another CPU (family 25 model 17, this host family 25 ...)"
};

// The first difference between `file` and the host whose topology is `host` and whose build measures
// revision `revision`, checked in the order above; nullopt when the file describes that host. A file without
// topology or CPU identity (hand-written, or measured before revision 8) never does.
std::optional<HostMismatch> host_mismatch(const core::Machine& file, const core::Topology& host,
                                          int revision);

// The same against this host (detect_topology) and this build.
std::optional<HostMismatch> differs_from_this_host(const core::Machine& file);

} // namespace roofcast::measure
