#include "core/machine_noise.hpp"

#include "core/cache_sharing.hpp"
#include "core/stats.hpp"

#include <algorithm>
#include <map>
#include <type_traits>

namespace roofcast::core {

std::string machine_noise_kind(const Machine& m, const std::string& level) {
    return level == "MEM" || cache_shared_by(m, level) > 1 ? "memory" : "core";
}

bool flag_row_alone(Summary& s) {
    const auto iqr = interquartile_spread_of(s);
    s.noisy = iqr && *iqr > k_noisy_spread;
    return s.noisy;
}

namespace {

// The measured rows of a machine by kind, for a const machine (judging) or a mutable one (flagging):
// rows with samples in `by_kind`, rows without in `unsampled`.
template <class MachineT> struct Rows {
    using S = std::conditional_t<std::is_const_v<MachineT>, const Summary, Summary>;
    std::map<std::string, std::vector<S*>> by_kind;
    std::vector<S*> unsampled;

    explicit Rows(MachineT& m) {
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
    }
    void add(const std::string& kind, S& s) {
        if (interquartile_spread_of(s))
            by_kind[kind].push_back(&s);
        else
            unsampled.push_back(&s);
    }
};

// Each kind's floor and count, and per row (in Rows order) whether it is NOISY.
template <class RowsT>
std::vector<MachineNoiseKind> judge(const RowsT& rows, std::map<std::string, std::vector<bool>>& noisy) {
    std::vector<MachineNoiseKind> out;
    for (const char* kind : {"core", "memory", "sweep", "overhead", "mpi"}) {
        const auto it = rows.by_kind.find(kind);
        if (it == rows.by_kind.end())
            continue;
        MachineNoiseKind k;
        k.kind = kind;
        std::vector<double> spreads;
        for (const Summary* s : it->second)
            spreads.push_back(*interquartile_spread_of(*s));
        k.rows = spreads.size();
        k.own_floor = k.rows >= k_machine_noise_min_rows;
        k.floor = outlier_floor(spreads, k_noisy_spread, k_machine_noise_min_rows);
        auto& flags = noisy[kind];
        for (const double spread : spreads) {
            flags.push_back(spread > k.floor);
            k.flagged += flags.back();
        }
        out.push_back(k);
    }
    return out;
}

} // namespace

std::vector<MachineNoiseKind> machine_noise_kinds(const Machine& m) {
    std::map<std::string, std::vector<bool>> noisy;
    return judge(Rows<const Machine>(m), noisy);
}

std::vector<MachineNoiseKind> flag_machine_noise(Machine& m) {
    const Rows<Machine> rows(m);
    std::map<std::string, std::vector<bool>> noisy;
    auto kinds = judge(rows, noisy);
    for (const auto& [kind, summaries] : rows.by_kind)
        for (std::size_t i = 0; i < summaries.size(); ++i)
            summaries[i]->noisy = noisy.at(kind)[i];
    for (Summary* s : rows.unsampled)
        s->noisy = false;
    return kinds;
}

} // namespace roofcast::core
