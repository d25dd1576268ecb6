#include "report/stencil_report.hpp"

#include "core/machine.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::report {

namespace {

std::string grid_text(const model::stencil::Index3& n) {
    return fmt::format("{}x{}x{}", n[2], n[1], n[0]);
}

std::string header_text(const StencilHeader& h) {
    std::string s =
        fmt::format("stencil {} on {} points (NXxNYxNZ), {} rank{} (process grid {}, --decomp {}), "
                    "{} thread{} per rank, {} steps\n",
                    h.kernel, grid_text(h.grid), h.ranks, h.ranks == 1 ? "" : "s", grid_text(h.dims),
                    h.decomp, h.threads, h.threads == 1 ? "" : "s", h.steps);
    if (h.model_sources.empty())
        s += "model: no machine file (--no-machine), no prediction\n";
    for (const auto& m : h.model_sources)
        s += "model: " + m + "\n";
    return s;
}

// The measured repetitions of k (a k of the comparison's rows).
const core::Summary& seconds_of_k(const model::stencil::KComparison& c, int k) {
    return std::find_if(c.rows.begin(), c.rows.end(), [k](const auto& r) { return r.k == k; })
        ->measured.seconds_per_step;
}

std::string us(double s) {
    return fmt::format("{:.2f}", s * 1e6);
}

nlohmann::json phases_json(const model::stencil::PhaseTimes& t) {
    return {{"inner", t.inner},   {"pack", t.pack},         {"mpi", t.comm},
            {"unpack", t.unpack}, {"boundary", t.boundary}, {"block", t.block()}};
}

} // namespace

std::string format_stencil_sweep(const StencilHeader& h, const model::stencil::MeasuredStencil& m,
                                 const model::stencil::KComparison& c) {
    std::string s = header_text(h);
    s += fmt::format("MPI library: {}\n", m.library.empty() ? "?" : m.library);
    s +=
        fmt::format("per-sweep constant (one-point sweep): {:.3g} ns median (min {:.3g} .. max {:.3g}, n {})",
                    m.sweep_overhead_s.median * 1e9, m.sweep_overhead_s.min * 1e9,
                    m.sweep_overhead_s.max * 1e9, m.sweep_overhead_s.n);
    s += "\n";
    if (m.exchange_overhead_s && m.exchange_latency_s)
        s += fmt::format("per-exchange start-up (one-value messages to every neighbour): {:.3g} us mean, "
                         "{:.3g} us median (min {:.3g} .. max {:.3g}, n {})\n",
                         *m.exchange_latency_s * 1e6, m.exchange_overhead_s->median * 1e6,
                         m.exchange_overhead_s->min * 1e6, m.exchange_overhead_s->max * 1e6,
                         m.exchange_overhead_s->n);
    if (m.cell_s)
        s += fmt::format("time per point (a sweep of the rank's block, every rank at once): {:.3g} ns median "
                         "(min {:.3g} .. max {:.3g}, n {})\n",
                         m.cell_s->median * 1e9, m.cell_s->min * 1e9, m.cell_s->max * 1e9, m.cell_s->n);
    if (m.halo) {
        std::vector<std::string> widths;
        for (std::size_t i = 0; i < m.halo->bytes.size(); ++i)
            widths.push_back(fmt::format(
                "{:.3g} us for {:.0f} B{}", m.halo->seconds[i].median * 1e6, m.halo->bytes[i],
                i < m.halo->overlapped_per_width.size()
                    ? fmt::format(" ({:.3g} us around {} sweep{})",
                                  m.halo->overlapped_per_width[i].median * 1e6, m.halo->overlapped_sweeps[i],
                                  m.halo->overlapped_sweeps[i] == 1 ? "" : "s")
                    : std::string()));
        s += fmt::format(
            "halo exchange alone (pack, send, wait, unpack; medians): {}; the inner sweep of k = 1 "
            "{:.3g} us alone, {:.3g} us around the exchange: {:.3g} us + bytes / {:.3g} GB/s, {:.0f} % "
            "hidden\n",
            fmt::join(widths, ", "), m.halo->inner_s.median * 1e6, m.halo->overlapped_s.median * 1e6,
            m.halo->fixed_s * 1e6, m.halo->bytes_per_second / 1e9, 100 * m.halo->overlap);
    }
    s += "times per step in us; measured: the fastest repetition (the verdict's), then the median and the "
         "slowest; phases: medians per block over blocks and repetitions (slowest rank)\n";
    s += fmt::format("{:>3} {:>11} {:>11} {:>21} {:>10} {:>9} {:>9} {:>9} {:>9}  {}\n", "k", "predicted",
                     "measured", "(median .. max, n)", "inner", "pack", "mpi", "unpack", "boundary", "check");
    for (const auto& r : c.rows) {
        const auto& ms = r.measured.seconds_per_step;
        const auto& ph = r.measured.phase_seconds_per_block;
        std::string check = "-";
        if (r.measured.check) {
            const auto& j = *r.measured.check;
            check = j.value("bitwise_equal", false)
                        ? "bitwise equal"
                        : fmt::format("{} points differ", j.value("points_differing", 0L));
            if (j.contains("gosa_within_tolerance"))
                check += fmt::format(", gosa {} (rel. diff {:.1e})",
                                     j.value("gosa_within_tolerance", false) ? "ok" : "OFF",
                                     j.value("gosa_relative_difference", 0.0));
        }
        s += fmt::format("{:>3} {:>11} {:>11} {:>21} {:>10} {:>9} {:>9} {:>9} {:>9}  {}\n", r.k,
                         r.predicted ? us(r.predicted->seconds_per_step) : std::string("-"), us(ms.min),
                         fmt::format("({} .. {}, {})", us(ms.median), us(ms.max), ms.n),
                         us(ph.at("inner").median), us(ph.at("pack").median), us(ph.at("mpi").median),
                         us(ph.at("unpack").median), us(ph.at("boundary").median), check);
    }
    s += fmt::format("best measured k = {}", c.best_measured_k);
    if (c.best_predicted_k)
        s += fmt::format(", best predicted k = {}: {} (its measured time is {:+.1f} % of the best)",
                         *c.best_predicted_k,
                         *c.best_predicted_k == c.best_measured_k ? "the measured best"
                         : *c.hit                                 ? "within 5 % of the measured best"
                                                                  : "MISSED (more than 5 % slower)",
                         100 * *c.predicted_best_excess);
    if (c.hit_within_interval && *c.best_predicted_k != c.best_measured_k) {
        const core::Summary& predicted = seconds_of_k(c, *c.best_predicted_k);
        const core::Summary& best = seconds_of_k(c, c.best_measured_k);
        s += fmt::format("; its fastest {} against the best's repetitions {} .. {}: {}", us(predicted.min),
                         us(best.min), us(best.max),
                         *c.hit_within_interval ? "inside or at most 10 % beyond them"
                                                : "more than 10 % beyond them");
    }
    s += "\n";
    return s;
}

nlohmann::json stencil_sweep_json(const StencilHeader& h, const model::stencil::MeasuredStencil& m,
                                  const model::stencil::KComparison& c) {
    nlohmann::json j;
    j["kernel"] = h.kernel;
    j["grid"] = {h.grid[2], h.grid[1], h.grid[0]};
    j["process_grid"] = {h.dims[2], h.dims[1], h.dims[0]};
    j["decomp"] = h.decomp;
    j["ranks"] = h.ranks;
    j["threads"] = h.threads;
    j["steps"] = h.steps;
    j["library"] = m.library;
    j["model_sources"] = h.model_sources;
    j["sweep_constant_seconds"] = core::summary_to_json(m.sweep_overhead_s);
    if (m.exchange_overhead_s && m.exchange_latency_s) {
        j["exchange_latency_seconds"] = core::summary_to_json(*m.exchange_overhead_s);
        j["exchange_latency_seconds"]["mean"] = *m.exchange_latency_s;
    }
    if (m.cell_s)
        j["cell_seconds"] = core::summary_to_json(*m.cell_s);
    if (m.halo) {
        nlohmann::json widths = nlohmann::json::array();
        for (std::size_t i = 0; i < m.halo->bytes.size(); ++i) {
            widths.push_back(
                {{"bytes", m.halo->bytes[i]}, {"seconds", core::summary_to_json(m.halo->seconds[i])}});
            if (i < m.halo->overlapped_per_width.size()) {
                widths.back()["overlapped_seconds"] = core::summary_to_json(m.halo->overlapped_per_width[i]);
                widths.back()["overlapped_sweeps"] = m.halo->overlapped_sweeps[i];
            }
        }
        j["halo_exchange"] = {{"widths", widths},
                              {"inner_seconds", core::summary_to_json(m.halo->inner_s)},
                              {"overlapped_seconds", core::summary_to_json(m.halo->overlapped_s)},
                              {"fixed_seconds", m.halo->fixed_s},
                              {"bytes_per_second", m.halo->bytes_per_second},
                              {"overlap", m.halo->overlap}};
    }
    j["sweep"] = nlohmann::json::array();
    for (const auto& r : c.rows) {
        nlohmann::json row;
        row["k"] = r.k;
        row["predicted_seconds_per_step"] =
            r.predicted ? nlohmann::json(r.predicted->seconds_per_step) : nlohmann::json(nullptr);
        if (r.predicted)
            row["predicted_phase_seconds_per_block"] = phases_json(r.predicted->first_block);
        // The fastest repetition, on which the verdict rests; the median and spread beside it.
        row["measured_seconds_per_step"] = r.measured.seconds_per_step.min;
        row["measured_seconds_per_step_median"] = r.measured.seconds_per_step.median;
        row["measured_seconds_per_step_spread"] = core::summary_to_json(r.measured.seconds_per_step);
        nlohmann::json ph;
        for (const auto& [name, sum] : r.measured.phase_seconds_per_block)
            ph[name] = core::summary_to_json(sum);
        row["phase_seconds_per_block"] = ph;
        if (r.measured.check)
            row["check"] = *r.measured.check;
        j["sweep"].push_back(row);
    }
    j["best_measured_k"] = c.best_measured_k;
    j["best_predicted_k"] =
        c.best_predicted_k ? nlohmann::json(*c.best_predicted_k) : nlohmann::json(nullptr);
    j["predicted_best_hit"] = c.hit ? nlohmann::json(*c.hit) : nlohmann::json(nullptr);
    j["predicted_best_within_interval"] =
        c.hit_within_interval ? nlohmann::json(*c.hit_within_interval) : nlohmann::json(nullptr);
    j["predicted_best_excess"] =
        c.predicted_best_excess ? nlohmann::json(*c.predicted_best_excess) : nlohmann::json(nullptr);
    return j;
}

std::string format_stencil_simulation(const StencilSimulation& sim) {
    std::string s = header_text(sim.header);
    s += "simulation: the model alone, one rank per node (nothing is run)\n";
    s += fmt::format("{:>3} {:>16} {:>12} {:>12} {:>12} {:>12}\n", "k", "us per step", "inner", "pack+unpack",
                     "mpi", "boundary");
    for (const auto& p : sim.choice.all)
        s += fmt::format("{:>3} {:>16} {:>12} {:>12} {:>12} {:>12}\n", p.k, us(p.seconds_per_step),
                         us(p.first_block.inner), us(p.first_block.pack + p.first_block.unpack),
                         us(p.first_block.comm), us(p.first_block.boundary));
    s += fmt::format("predicted best k = {} at {} ranks: {:.1f} % faster than k = 1\n", sim.choice.best_k,
                     sim.header.ranks, 100 * sim.choice.gain_over_k1);
    s += "strong scaling (best k per rank count):\n";
    s += fmt::format("{:>7} {:>12} {:>14} {:>7} {:>16} {:>8} {:>10}\n", "ranks", "grid", "us/step k=1",
                     "best k", "us/step best k", "gain", "speed-up");
    const double t1 = sim.scaling.empty() ? 0 : sim.scaling.front().seconds_per_step_best;
    for (const auto& p : sim.scaling)
        s += fmt::format("{:>7} {:>12} {:>14} {:>7} {:>16} {:>7.1f}% {:>10.1f}\n", p.ranks, grid_text(p.dims),
                         us(p.seconds_per_step_k1), p.best_k, us(p.seconds_per_step_best), 100 * p.gain,
                         p.seconds_per_step_best > 0 ? t1 / p.seconds_per_step_best : 0.0);
    return s;
}

nlohmann::json stencil_simulation_json(const StencilSimulation& sim) {
    nlohmann::json j;
    j["kernel"] = sim.header.kernel;
    j["grid"] = {sim.header.grid[2], sim.header.grid[1], sim.header.grid[0]};
    j["process_grid"] = {sim.header.dims[2], sim.header.dims[1], sim.header.dims[0]};
    j["ranks"] = sim.header.ranks;
    j["threads"] = sim.header.threads;
    j["steps"] = sim.header.steps;
    j["model_sources"] = sim.header.model_sources;
    j["sweep"] = nlohmann::json::array();
    for (const auto& p : sim.choice.all)
        j["sweep"].push_back({{"k", p.k},
                              {"predicted_seconds_per_step", p.seconds_per_step},
                              {"predicted_phase_seconds_per_block", phases_json(p.first_block)}});
    j["best_predicted_k"] = sim.choice.best_k;
    j["gain_over_k1"] = sim.choice.gain_over_k1;
    j["strong_scaling"] = nlohmann::json::array();
    for (const auto& p : sim.scaling)
        j["strong_scaling"].push_back({{"ranks", p.ranks},
                                       {"process_grid", {p.dims[2], p.dims[1], p.dims[0]}},
                                       {"seconds_per_step_k1", p.seconds_per_step_k1},
                                       {"best_k", p.best_k},
                                       {"seconds_per_step_best", p.seconds_per_step_best},
                                       {"gain_over_k1", p.gain}});
    return j;
}

} // namespace roofcast::report
