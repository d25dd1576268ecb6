#include "experiment/noise.hpp"

#include "core/stats.hpp"
#include "experiment/suite_catalogue.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofcast::model {

std::vector<std::vector<double>> split_rounds(const std::vector<double>& epochs, std::size_t rounds) {
    if (rounds == 0 || epochs.empty() || epochs.size() % rounds != 0)
        return {};
    const std::size_t per = epochs.size() / rounds;
    std::vector<std::vector<double>> out;
    for (std::size_t r = 0; r < rounds; ++r)
        out.emplace_back(epochs.begin() + static_cast<std::ptrdiff_t>(r * per),
                         epochs.begin() + static_cast<std::ptrdiff_t>((r + 1) * per));
    return out;
}

std::vector<double> row_units(const std::vector<double>& times, std::size_t rounds) {
    std::vector<double> rates;
    for (double t : times)
        if (t > 0)
            rates.push_back(1.0 / t);
    if (rounds < 2 || rates.size() != times.size())
        return rates;
    const auto per_round = split_rounds(rates, rounds);
    if (per_round.empty())
        return rates;
    std::vector<double> out;
    for (const auto& round : per_round)
        out.push_back(*core::median(round));
    return out;
}

std::vector<double> probe_units(const ProbeRounds& p, std::size_t row, std::size_t epochs_per_round) {
    std::vector<double> out;
    if (p.rounds.size() >= 2) {
        for (const auto& round : p.rounds) {
            if (row + 1 < round.size())
                out.push_back(0.5 * (round[row] + round[row + 1]));
            else if (row < round.size())
                out.push_back(round[row]);
        }
        return out;
    }
    if (p.rounds.empty())
        return out;
    const auto& round = p.rounds.front();
    for (std::size_t j = row; j < round.size() && j < row + std::max<std::size_t>(epochs_per_round, 2); ++j)
        out.push_back(round[j]);
    return out;
}

double noise_floor(const ProbeRounds& p, std::size_t rows, std::size_t epochs_per_round) {
    std::vector<double> spreads;
    for (std::size_t i = 0; i < rows; ++i) {
        const std::vector<double> units = probe_units(p, i, epochs_per_round);
        if (units.size() < 2)
            continue;
        if (const auto s = core::interquartile_spread(units))
            spreads.push_back(*s);
    }
    const auto q = core::quantile(spreads, k_noise_floor_quantile);
    return std::max(k_noise_floor_min, q.value_or(k_noise_floor_min));
}

core::HostNoise assess_noise(std::vector<core::KernelResult>& rows, const std::vector<std::string>& kinds,
                             const std::vector<ProbeRounds>& probes, std::size_t rounds,
                             const std::vector<std::vector<double>>& epochs) {
    if (kinds.size() != rows.size())
        throw std::invalid_argument("assess_noise: one probe kind per row expected");
    if (!epochs.empty() && epochs.size() != rows.size())
        throw std::invalid_argument("assess_noise: one epoch list per row expected");
    const auto row_epochs = [&](std::size_t i) -> const std::vector<double>& {
        return epochs.empty() ? rows[i].measured_seconds->samples : epochs[i];
    };
    core::HostNoise out;
    if (probes.empty())
        return out;
    // Epochs per round, for the one-round comparison (every row of a run has the same count).
    std::size_t per_round = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].measured_seconds && rounds > 0)
            per_round = std::max(per_round, row_epochs(i).size() / rounds);
    for (const auto& p : probes) {
        core::NoiseProbe np;
        np.kind = p.kind;
        np.kernel = p.kernel;
        for (const auto& round : p.rounds)
            np.gbs.insert(np.gbs.end(), round.begin(), round.end());
        np.floor = noise_floor(p, rows.size(), per_round);
        out.probes.push_back(std::move(np));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto& r = rows[i];
        if (!r.measured_seconds)
            continue;
        const std::vector<double> units = row_units(row_epochs(i), rounds);
        const auto spread = units.size() >= 2 ? core::interquartile_spread(units) : std::nullopt;
        if (!spread)
            continue;
        const auto it = std::find_if(out.probes.begin(), out.probes.end(),
                                     [&](const core::NoiseProbe& p) { return p.kind == kinds[i]; });
        const core::NoiseProbe& probe = it == out.probes.end() ? out.probes.front() : *it;
        const core::RowNoise n{probe.kind, *spread, probe.floor};
        core::set_noise(r, n);
        ++out.rows;
        out.flagged += n.flagged();
    }
    return out;
}

} // namespace roofcast::model
