#include "core/machine_noise.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <map>

namespace roofcast::core {

std::string machine_noise_kind(const Machine& m, const std::string& level) {
    if (level == "MEM")
        return "memory";
    if (m.topology)
        for (const auto& c : m.topology->caches)
            if (c.name == level)
                return c.shared_by_cores > 1 ? "memory" : "core";
    return "core";
}

bool flag_row_alone(Summary& s) {
    const auto iqr = interquartile_spread_of(s);
    s.noisy = iqr && *iqr > k_noisy_spread;
    return s.noisy;
}

std::vector<MachineNoiseKind> flag_machine_noise(Machine& m) {
    std::map<std::string, std::vector<Summary*>> rows;
    auto add = [&](const std::string& kind, Summary& s) {
        if (interquartile_spread_of(s))
            rows[kind].push_back(&s);
        else
            s.noisy = false;
    };
    for (auto& c : m.ceilings)
        add("core", c.gflops);
    for (auto& l : m.levels) {
        const std::string kind = machine_noise_kind(m, l.name);
        for (auto& p : l.measurements)
            add(kind, p.gbs);
        if (l.bandwidth)
            add(kind, *l.bandwidth);
    }
    for (auto& c : m.stream_capacity)
        for (auto& p : c.points)
            add(machine_noise_kind(m, c.level), p.gbs);
    for (auto& p : m.sweep)
        add("sweep", p.gbs);
    for (auto& o : m.thread_overhead)
        add("overhead", o.seconds);
    if (m.mpi) {
        for (auto& p : m.mpi->points)
            add("mpi", p.seconds);
        if (m.mpi->latency_s)
            add("mpi", *m.mpi->latency_s);
        if (m.mpi->bandwidth_gbs)
            add("mpi", *m.mpi->bandwidth_gbs);
    }
    std::vector<MachineNoiseKind> out;
    for (const char* kind : {"core", "memory", "sweep", "overhead", "mpi"}) {
        const auto it = rows.find(kind);
        if (it == rows.end())
            continue;
        MachineNoiseKind k;
        k.kind = kind;
        std::vector<double> spreads;
        for (const Summary* s : it->second)
            spreads.push_back(*interquartile_spread_of(*s));
        k.rows = spreads.size();
        if (k.rows >= k_machine_noise_min_rows) {
            k.own_floor = true;
            const double q1 = *quantile(spreads, 0.25), q3 = *quantile(spreads, 0.75);
            k.floor = std::max(k_noisy_spread, q3 + 1.5 * (q3 - q1));
        }
        for (std::size_t i = 0; i < spreads.size(); ++i) {
            it->second[i]->noisy = spreads[i] > k.floor;
            k.flagged += it->second[i]->noisy;
        }
        out.push_back(k);
    }
    return out;
}

} // namespace roofcast::core
