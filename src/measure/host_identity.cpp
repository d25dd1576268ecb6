#include "measure/host_identity.hpp"

#include "core/units.hpp"
#include "measure/machine_run.hpp"
#include "measure/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

namespace roofcast::measure {

namespace {

std::string opt_text(const std::optional<int>& v) {
    return v ? std::to_string(*v) : std::string("?");
}

std::string cpu_text(const core::Topology& t, bool stepping) {
    return fmt::format("family {} model {}{}", opt_text(t.family), opt_text(t.model_number),
                       stepping ? " stepping " + opt_text(t.stepping) : std::string());
}

std::optional<HostMismatch> cpu_mismatch(const core::Topology& f, const core::Topology& h) {
    if (f.vendor.empty() || !f.family || !f.model_number || !f.stepping)
        return HostMismatch{
            "topology.vendor",
            "records no CPU identity (topology.vendor, family, model, stepping): written by hand "
            "or measured before measurement revision 8"};
    if (f.vendor != h.vendor)
        return HostMismatch{"topology.vendor",
                            fmt::format("is of another CPU ({}, this host {})", f.vendor, h.vendor)};
    const bool same_model = f.family == h.family && f.model_number == h.model_number;
    if (!same_model || f.stepping != h.stepping)
        return HostMismatch{f.family != h.family               ? "topology.family"
                            : f.model_number != h.model_number ? "topology.model"
                                                               : "topology.stepping",
                            fmt::format("is of another CPU ({}, this host {})", cpu_text(f, same_model),
                                        cpu_text(h, same_model))};
    return std::nullopt;
}

std::optional<HostMismatch> size_mismatch(const core::Topology& f, const core::Topology& h) {
    const std::pair<const char*, std::pair<int, int>> counts[] = {
        {"packages", {f.packages, h.packages}},
        {"cores", {f.cores, h.cores}},
        {"hw_threads", {f.hw_threads, h.hw_threads}}};
    for (const auto& [name, v] : counts)
        if (v.first != v.second)
            return HostMismatch{fmt::format("topology.{}", name),
                                fmt::format("is of a machine with {} {} (this host {})", v.first,
                                            std::string(name) == "hw_threads" ? "hardware threads" : name,
                                            v.second)};
    std::vector<std::string> fi = f.isa, hi = h.isa;
    std::sort(fi.begin(), fi.end());
    std::sort(hi.begin(), hi.end());
    if (fi != hi)
        return HostMismatch{"topology.isa", fmt::format("is of a machine with the ISAs {} (this host {})",
                                                        fmt::join(f.isa, ", "), fmt::join(h.isa, ", "))};
    auto names = [](const core::Topology& t) {
        std::vector<std::string> n;
        for (const auto& c : t.caches)
            n.push_back(c.name);
        return n;
    };
    if (names(f) != names(h))
        return HostMismatch{"topology.caches",
                            fmt::format("is of a machine with the caches {} (this host {})",
                                        fmt::join(names(f), ", "), fmt::join(names(h), ", "))};
    for (std::size_t i = 0; i < f.caches.size(); ++i)
        if (f.caches[i].size_bytes != h.caches[i].size_bytes)
            return HostMismatch{fmt::format("topology.caches[{}].size_bytes", i),
                                fmt::format("is of a machine with {} of {} (this host {})", f.caches[i].name,
                                            core::format_size(static_cast<double>(f.caches[i].size_bytes)),
                                            core::format_size(static_cast<double>(h.caches[i].size_bytes)))};
    return std::nullopt;
}

} // namespace

std::optional<HostMismatch> host_mismatch(const core::Machine& file, const core::Topology& host,
                                          int revision) {
    if (!file.topology)
        return HostMismatch{"topology", "has no topology: written by hand, not measured on a host"};
    if (auto m = cpu_mismatch(*file.topology, host))
        return m;
    if (auto m = size_mismatch(*file.topology, host))
        return m;
    if (!file.measurement_revision)
        return HostMismatch{
            "measurement_revision",
            fmt::format("records no measurement revision (this build measures revision {})", revision)};
    if (*file.measurement_revision != revision)
        return HostMismatch{"measurement_revision",
                            fmt::format("was measured by measurement revision {} (this build measures {})",
                                        *file.measurement_revision, revision)};
    return std::nullopt;
}

std::optional<HostMismatch> differs_from_this_host(const core::Machine& file) {
    return host_mismatch(file, detect_topology(), k_measurement_revision);
}

} // namespace roofcast::measure
