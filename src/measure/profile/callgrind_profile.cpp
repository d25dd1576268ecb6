// A callgrind file as a roofcast profile (callgrind.hpp, profile_from_callgrind): the files valgrind's
// callgrind writes, and the counts roofcast's callgrind backend writes with --callgrind-out.
#include "core/error.hpp"
#include "measure/profile/cachegrind.hpp"
#include "measure/profile/callgrind.hpp"
#include "measure/profile/counted_work.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <string_view>

namespace roofcast::measure::profile {

namespace {

// roofcast's own events (--callgrind-out) and the profile metrics they are.
const std::map<std::string, std::pair<std::string, core::MetricOrigin>>& counted_events() {
    static const std::map<std::string, std::pair<std::string, core::MetricOrigin>> k{
        {"Flops", {"flops", core::MetricOrigin::counted}},
        {"Flops_DP", {"flops_dp", core::MetricOrigin::counted}},
        {"Flops_SP", {"flops_sp", core::MetricOrigin::counted}},
        {"Bytes_L1", {"bytes_L1", core::MetricOrigin::counted}},
        {"Bytes_L2", {"bytes_L2", core::MetricOrigin::simulated}},
        {"Bytes_L3", {"bytes_L3", core::MetricOrigin::simulated}},
        {"Bytes_MEM", {"bytes_MEM", core::MetricOrigin::simulated}}};
    return k;
}

const char* unit_of(const std::string& metric) {
    if (metric.starts_with("flops"))
        return "flop";
    if (metric.starts_with("bytes") || metric == "LL_MISS_BYTES")
        return "byte";
    return "count";
}

// The line size of callgrind's last-level cache from its `desc: LL cache: 524288 B, 64 B, 8-way` line; 64
// (valgrind's default) without one.
std::uint32_t ll_line_bytes(const std::string& text) {
    const auto at = text.find("desc: LL cache:");
    if (at == std::string::npos)
        return 64;
    const auto comma = text.find(", ", at);
    const auto eol = text.find('\n', at);
    if (comma == std::string::npos || comma > eol)
        return 64;
    unsigned v = 0;
    const char* p = text.data() + comma + 2;
    while (*p >= '0' && *p <= '9' && v < 1u << 20)
        v = v * 10 + static_cast<unsigned>(*p++ - '0');
    return v >= 8 && v <= 4096 ? v : 64;
}

} // namespace

bool looks_like_callgrind(std::string_view text) {
    const std::string_view head = text.substr(0, 4096);
    return head.starts_with("# callgrind format") ||
           head.find("\ncreator: callgrind") != std::string_view::npos ||
           (head.find("\npositions:") != std::string_view::npos &&
            head.find("\nevents:") != std::string_view::npos);
}

core::Profile profile_from_callgrind(const std::string& text, const std::string& file) {
    const CallgrindData d = parse_callgrind(text, file);
    const std::uint32_t line = ll_line_bytes(text);
    core::Profile p;
    p.backend = "callgrind";
    p.backend_reason = "imported from " + file;
    p.ranks = 1;
    p.threads = 1;
    p.parameters = {{"ranks", 1.0}};
    if (!d.command.empty())
        p.command = {d.command};
    const auto first = d.command.find_first_not_of(' ');
    const std::string program = first == std::string::npos
                                    ? std::string()
                                    : d.command.substr(first, d.command.find(' ', first) - first);
    p.settings["callgrind.events"] = fmt::format("{}", fmt::join(d.events, " "));
    for (const CallgrindFunction& f : d.functions) {
        std::map<std::string, double> events;
        for (const auto& i : f.instructions)
            for (std::size_t e = 0; e < d.events.size() && e < i.events.size(); ++e)
                events[d.events[e]] += i.events[e];
        if (events.empty())
            continue;
        core::ProfileFunction pf;
        pf.name = f.name;
        pf.kind =
            program.empty() || f.object.empty() || same_object(f.object, program) ? "function" : "library";
        const auto put = [&](const std::string& metric, core::MetricOrigin origin, double v) {
            core::ProfileMetric m;
            m.origin = origin;
            m.unit = unit_of(metric);
            m.per_rank = {{v}};
            pf.metrics[metric] = std::move(m);
        };
        for (const auto& [metric, v] : cachegrind_metrics(events, line))
            put(metric, metric == "INS" ? core::MetricOrigin::counted : core::MetricOrigin::simulated, v);
        for (const auto& [event, target] : counted_events())
            if (const auto it = events.find(event); it != events.end())
                put(target.first, target.second, it->second);
        p.functions.push_back(std::move(pf));
    }
    if (p.functions.empty())
        throw core::InputError(file, "fn", "expected at least one function with costs");
    return p;
}

} // namespace roofcast::measure::profile
