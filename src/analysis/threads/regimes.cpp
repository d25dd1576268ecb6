#include "analysis/threads/fit_detail.hpp"
#include "core/error.hpp"

#include <fmt/format.h>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace roofcast::model::threads::detail {

namespace {

std::size_t distinct_in(const std::vector<double>& values, double lo, double hi) {
    std::set<double> d;
    for (const double v : values)
        if (v >= lo && v < hi)
            d.insert(v);
    return d.size();
}

} // namespace

bool settle(ThreadsModel& m, const std::vector<Measurement>& pts, bool record) {
    std::vector<double> ns, ss;
    for (const auto& p : pts) {
        ns.push_back(p.n);
        ss.push_back(p.s);
    }
    // The oversubscription step needs two thread counts beyond the hardware threads (with the slope there).
    // and, with θ's other parameters and T_seq's share of the work, more thread counts than θ has parameters.
    if (m.oversubscription_step) {
        const std::size_t beyond = distinct_in(ss, m.hw_threads + 0.5, k_inf);
        const std::size_t all = distinct_in(ss, 0.0, k_inf);
        if (beyond < 2 || all < 4 + m.s_breaks.size()) {
            if (!record)
                return false;
            m.notes.push_back(
                fmt::format("θ(s): {} thread count(s) beyond the {} hardware threads, {} in all: no "
                            "step for oversubscription",
                            beyond, m.hw_threads, all));
            m.oversubscription_step = false;
        }
    }
    bool changed = true;
    while (changed) {
        changed = false;
        // θ: the first segment needs 2 thread counts (θ0, θ1), every later one 1 (its slope change).
        for (std::size_t k = 0; k < m.s_breaks.size() && !changed; ++k) {
            const double lo = k == 0 ? 0.0 : m.s_breaks[k - 1] + 0.5;
            const double hi = m.s_breaks[k] + 0.5;
            const double next = k + 1 < m.s_breaks.size() ? m.s_breaks[k + 1] + 0.5 : k_inf;
            const bool first_short = k == 0 && distinct_in(ss, lo, hi) < 2;
            const bool beyond_short = distinct_in(ss, hi, next) < 1;
            if (first_short || beyond_short) {
                if (!record)
                    return false;
                m.notes.push_back(fmt::format(
                    "θ(s): the segment {} s = {:g} ({}) has {} thread count(s) for its parameters: the break "
                    "at s = {:g} is dropped (one linear piece across it)",
                    first_short ? "up to" : "beyond", m.s_breaks[k], m.s_names[k],
                    first_short ? distinct_in(ss, lo, hi) : distinct_in(ss, hi, next), m.s_breaks[k]));
                m.s_breaks.erase(m.s_breaks.begin() + static_cast<long>(k));
                m.s_names.erase(m.s_names.begin() + static_cast<long>(k));
                changed = true;
            }
        }
        if (changed)
            continue;
        // Memory regime: γ (or α) and β need 2 sizes.
        if (m.memory_from && distinct_in(ns, *m.memory_from, k_inf) < 2) {
            if (!record)
                return false;
            m.notes.push_back(fmt::format(
                "regime MEM (n >= {:.4g}) has {} size(s) for 2 parameters: merged into "
                "regime {} (time / s beyond the last cache)",
                *m.memory_from, distinct_in(ns, *m.memory_from, k_inf), m.n_names[m.n_breaks.size()]));
            m.memory_from.reset();
            changed = true;
            continue;
        }
        // Cache regimes: the first needs 2 sizes (a, b), each later one 1 (its slope change).
        const double end = m.memory_from.value_or(k_inf);
        for (std::size_t k = 0; k <= m.n_breaks.size() && !changed; ++k) {
            const double lo = k == 0 ? 0.0 : m.n_breaks[k - 1];
            const double hi = k < m.n_breaks.size() ? m.n_breaks[k] : end;
            const std::size_t need = k == 0 ? 2 : 1;
            const std::size_t have = distinct_in(ns, lo, hi);
            if (have >= need || m.n_breaks.empty())
                continue;
            if (!record)
                return false;
            // Merge with the next regime (drop the break that closes this one), or, for the last, with
            // the previous (drop the break that opens it).
            const std::size_t drop = k < m.n_breaks.size() ? k : k - 1;
            const std::size_t into = k < m.n_breaks.size() ? k + 1 : k - 1;
            m.notes.push_back(
                fmt::format("regime {} ({:.4g} <= n < {:.4g}) has {} size(s) for {} parameter(s): "
                            "merged into regime {}",
                            m.n_names[k], lo, hi, have, need, m.n_names[into]));
            m.n_names.erase(m.n_names.begin() + static_cast<long>(k));
            m.n_breaks.erase(m.n_breaks.begin() + static_cast<long>(drop));
            m.n_break_instances.erase(m.n_break_instances.begin() + static_cast<long>(drop));
            if (drop < m.n_break_to_shared.size())
                m.n_break_to_shared.erase(m.n_break_to_shared.begin() + static_cast<long>(drop));
            changed = true;
        }
    }
    // The contention term needs sizes beyond its break measured both with one core on the shared cache
    // and with several: otherwise its column is zero or a copy of the slope's.
    if (const auto k = m.contention_break()) {
        std::size_t alone = 0, shared = 0;
        for (const auto& p : pts) {
            if (hinge(p.n, m.n_breaks[*k] * m.capacity_scale(m.n_break_instances[*k], p.s)) <= 0)
                continue;
            (m.cores_beyond(*k, p.s) > 1.0 ? shared : alone) += 1;
        }
        if (alone == 0 || shared == 0) {
            if (!record)
                return false;
            m.notes.push_back(fmt::format(
                "regime {}: no contention term for its shared cache ({} point(s) beyond n = {:.4g} on one "
                "core, {} on several; both are needed)",
                m.n_names[*k + 1], alone, m.n_breaks[*k], shared));
            std::fill(m.n_break_to_shared.begin(), m.n_break_to_shared.end(), false);
        }
    }
    return true;
}

namespace {

// One way of giving up a parameter the points may not determine: applied to a copy of the model, it says
// what it merged and why (nullopt: it does not apply to this model).
using Reduction = std::function<std::optional<std::string>(ThreadsModel&)>;

std::string counts_text(const std::vector<Measurement>& pts) {
    std::set<int> ss;
    for (const auto& p : pts)
        ss.insert(p.s);
    std::string out;
    for (const int s : ss)
        out += (out.empty() ? "" : ", ") + std::to_string(s);
    return out;
}

// The reductions, least needed first. T_seq's intercept comes first: a call's fixed cost lies in θ(s) as
// well, and the fit fixes only their sum θ(s) + T_seq(0)·share(s) (docs/threads.md), so merging it into θ
// loses nothing the points hold. Then the refinements of the roofcast model (the oversubscription step, the
// shared cache's contention), θ's breaks from the last, the memory regime, and the cache breaks from the
// last.
std::vector<Reduction> reductions(const std::vector<Measurement>& pts) {
    std::vector<Reduction> out;
    out.push_back([&pts](ThreadsModel& m) -> std::optional<std::string> {
        if (!m.tseq_intercept)
            return std::nullopt;
        m.tseq_intercept = false;
        std::set<int> ss;
        for (const auto& p : pts)
            ss.insert(p.s);
        std::string shares;
        for (const int s : ss)
            shares += fmt::format("{}{:.3g}", shares.empty() ? "" : ", ", m.work_share(s));
        return fmt::format(
            "T_seq's intercept merged into θ(s): on the thread counts measured ({}) the "
            "threads' share of the work ({}) is a shape θ(s) takes, so a fixed cost of the "
            "work cannot be told from one of the threads; fixed(lo) and fixed(hi) give their sum",
            counts_text(pts), shares);
    });
    out.push_back([&pts](ThreadsModel& m) -> std::optional<std::string> {
        if (!m.oversubscription_step)
            return std::nullopt;
        m.oversubscription_step = false;
        return fmt::format("θ(s): no step for oversubscription: the thread counts measured ({}) do not tell "
                           "it from θ's segments",
                           counts_text(pts));
    });
    out.push_back([](ThreadsModel& m) -> std::optional<std::string> {
        const auto k = m.contention_break();
        if (!k)
            return std::nullopt;
        const std::string name = m.n_names[*k + 1];
        std::fill(m.n_break_to_shared.begin(), m.n_break_to_shared.end(), false);
        return fmt::format("regime {}: no contention term for its shared cache: the points do not tell it "
                           "from the regime's slope",
                           name);
    });
    out.push_back([&pts](ThreadsModel& m) -> std::optional<std::string> {
        if (m.s_breaks.empty())
            return std::nullopt;
        const double b = m.s_breaks.back();
        const std::string name = m.s_names.back();
        m.s_breaks.pop_back();
        m.s_names.pop_back();
        return fmt::format("θ(s): the break at s = {:g} ({}) is dropped (one linear piece across it): the "
                           "thread counts measured ({}) do not determine its slope change",
                           b, name, counts_text(pts));
    });
    out.push_back([](ThreadsModel& m) -> std::optional<std::string> {
        if (!m.memory_from)
            return std::nullopt;
        const double from = *m.memory_from;
        m.memory_from.reset();
        return fmt::format("regime MEM (n >= {:.4g}) merged into regime {}: the points do not determine its "
                           "parameters apart from the cache regimes'",
                           from, m.n_names[m.n_breaks.size()]);
    });
    out.push_back([](ThreadsModel& m) -> std::optional<std::string> {
        if (m.n_breaks.empty())
            return std::nullopt;
        const std::size_t k = m.n_breaks.size() - 1;
        const std::string merged = m.n_names[k + 1];
        const std::string into = m.n_names[k];
        const double at = m.n_breaks[k];
        m.n_names.pop_back();
        m.n_breaks.pop_back();
        m.n_break_instances.pop_back();
        if (m.n_break_to_shared.size() > m.n_breaks.size())
            m.n_break_to_shared.resize(m.n_breaks.size());
        return fmt::format("regime {} (n >= {:.4g}) merged into regime {}: the points do not determine its "
                           "slope change",
                           merged, at, into);
    });
    return out;
}

std::size_t columns(const ThreadsModel& m, const std::vector<Measurement>& pts) {
    return design_row(m, pts.front().n, pts.front().s).size();
}

} // namespace

void determine(ThreadsModel& m, const std::vector<Measurement>& pts) {
    const std::vector<Reduction> steps = reductions(pts);
    std::size_t rank = design_rank(m, pts);
    std::size_t cols = columns(m, pts);
    while (rank < cols) {
        // The first reduction that leaves fewer parameters undetermined (one that removes only determined
        // ones would lower the rank with the columns and change nothing the points lack).
        bool reduced = false;
        for (const Reduction& step : steps) {
            ThreadsModel trial = m;
            const std::optional<std::string> why = step(trial);
            if (!why)
                continue;
            const std::size_t r = design_rank(trial, pts);
            const std::size_t c = columns(trial, pts);
            if (c - r >= cols - rank)
                continue;
            trial.notes.push_back(
                fmt::format("{} ({} of the model's {} parameters were determined)", *why, rank, cols));
            m = std::move(trial);
            rank = r;
            cols = c;
            reduced = true;
            break;
        }
        if (!reduced)
            throw core::InputError(
                "", "sizes_threads",
                fmt::format("expected points that determine the {} model: {} of its {} parameters are "
                            "determined by {} point(s) with thread counts {}, and no regime is left to merge",
                            to_string(m.kind), rank, cols, pts.size(), counts_text(pts)));
    }
}

} // namespace roofcast::model::threads::detail
