#include "report/roofline.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "model/bandwidth.hpp"
#include "report/format.hpp"
#include "report/roofline_chart.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace roofcast::report {

namespace {

using detail::Chart;

std::string op_label(const std::string& op) {
    static const std::map<std::string, std::string> k_labels{{"fma", "FMA"},
                                                             {"add", "add"},
                                                             {"mul", "mul"},
                                                             {"addmul", "add+mul (no FMA)"},
                                                             {"chain", "dependent chain"}};
    auto it = k_labels.find(op);
    return it == k_labels.end() ? op : it->second;
}

const core::ComputeCeiling* best(const std::vector<const core::ComputeCeiling*>& cs) {
    const core::ComputeCeiling* b = nullptr;
    for (const auto* c : cs)
        if (!b || c->gflops.median > b->gflops.median)
            b = c;
    return b;
}

std::string chart_title(const core::Machine& m, const Roofs& roofs, const std::string& what) {
    return fmt::format("{} · {} · {}, {} thread{}", what, m.name, roofs.precision, roofs.threads,
                       roofs.threads == 1 ? "" : "s");
}

} // namespace

Roofs roofs_for(const core::Machine& m, int threads, const std::string& precision) {
    Roofs r;
    r.precision = precision;
    r.threads = threads;
    std::vector<const core::ComputeCeiling*> same_precision;
    for (const auto& c : m.ceilings)
        if (c.precision == precision)
            same_precision.push_back(&c);
    if (!same_precision.empty()) {
        int used = same_precision.front()->threads;
        for (const auto* c : same_precision)
            if (std::abs(c->threads - threads) < std::abs(used - threads) ||
                (std::abs(c->threads - threads) == std::abs(used - threads) && c->threads < used))
                used = c->threads;
        if (used != threads)
            r.notes.push_back(
                fmt::format("no {} compute ceilings measured with {} threads; using those with {}", precision,
                            threads, used));
        std::map<std::string, std::vector<const core::ComputeCeiling*>> by_isa;
        for (const auto* c : same_precision)
            if (c->threads == used)
                by_isa[c->isa].push_back(c);
        std::vector<std::string> isas;
        for (const auto& [isa, cs] : by_isa)
            isas.push_back(isa);
        std::sort(isas.begin(), isas.end(), [](const std::string& a, const std::string& b) {
            return core::isa_bits(a) > core::isa_bits(b);
        });
        for (const auto& isa : isas) {
            const auto& cs = by_isa[isa];
            const auto fma = std::find_if(cs.begin(), cs.end(), [](const auto* c) { return c->op == "fma"; });
            const core::ComputeCeiling* c = fma != cs.end() ? *fma : best(cs);
            r.compute.push_back(
                {core::isa_label(isa) + " " + op_label(c->op), c->gflops.median, c->gflops, false});
            if (isa == isas.front()) {
                const auto mix =
                    std::find_if(cs.begin(), cs.end(), [](const auto* x) { return x->op == "addmul"; });
                if (mix != cs.end() && *mix != c)
                    r.compute.push_back({core::isa_label(isa) + " " + op_label("addmul"),
                                         (*mix)->gflops.median, (*mix)->gflops, false});
            }
        }
        std::stable_sort(r.compute.begin(), r.compute.end(),
                         [](const ComputeRoof& a, const ComputeRoof& b) { return a.gflops > b.gflops; });
        const auto peak = m.peak_gflops.find(precision);
        const bool all_cores = !m.topology || used >= m.topology->cores;
        if (peak != m.peak_gflops.end() && all_cores && peak->second > r.top() * 1.02)
            r.compute.push_back({"theoretical peak", peak->second, std::nullopt, true});
    } else {
        const bool effective = m.effective_gflops.count(precision) > 0;
        r.compute.push_back(
            {effective ? "effective peak" : "peak", m.effective(precision), std::nullopt, false});
        r.notes.push_back(
            fmt::format("no measured {} compute ceilings: the roof is the machine file's {} ({})", precision,
                        effective ? "effective_gflops" : "peak_gflops", gflops_text(r.top())));
    }

    for (const auto& l : m.levels) {
        MemoryRoof mr;
        mr.level = l.name;
        // The roof a prediction of the reference workload (read/write mix unknown) uses at this thread
        // count: the models' one choice (model/bandwidth.hpp), never a second rule here.
        model::BandwidthNeed need;
        need.threads = threads;
        const model::ChosenBandwidth b = model::choose_bandwidth(l, need);
        mr.gbs = b.gbs;
        mr.source = b.source;
        mr.measured = b.measured;
        mr.ridge = r.top() / mr.gbs;
        r.memory.push_back(mr);
    }
    return r;
}

int dominant_threads(const core::Results& r) {
    std::map<int, int> count;
    for (const auto& k : r.kernels)
        ++count[k.threads];
    int best_threads = 1;
    int best_count = 0;
    for (const auto& [t, c] : count)
        if (c >= best_count) {
            best_threads = t;
            best_count = c;
        }
    return best_threads;
}

std::string dominant_precision(const core::Results& r) {
    std::map<std::string, int> count;
    for (const auto& k : r.kernels)
        ++count[k.precision];
    std::string best_precision = "double";
    int best_count = 0;
    for (const auto& [p, c] : count)
        if (c > best_count) {
            best_precision = p;
            best_count = c;
        }
    return best_precision;
}

std::string classic_level(const core::KernelResult& k, const core::Machine& m) {
    const auto positive = [&](const std::string& level) {
        auto it = k.bytes_per_iteration.find(level);
        return it != k.bytes_per_iteration.end() && it->second > 0;
    };
    if (positive("MEM"))
        return "MEM";
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it)
        if (positive(it->name))
            return it->name;
    for (const auto& [level, bytes] : k.bytes_per_iteration)
        if (bytes > 0)
            return level;
    return "";
}

std::string suite_class(const std::string& suite) {
    std::string c = "s-";
    for (char ch : suite)
        c += std::isalnum(static_cast<unsigned char>(ch))
                 ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch)))
                 : '-';
    return c;
}

svg::Document roofline_chart(const core::Results& r, RooflineView view, const std::string& id_prefix) {
    return roofline_chart(r, view, id_prefix, KernelSet::all_but_calibration);
}

svg::Document roofline_chart(const core::Results& r, RooflineView view, const std::string& id_prefix,
                             KernelSet set) {
    if (!r.machine)
        throw core::InputError("", "machine", "the results file has no embedded machine: cannot draw roofs");
    const Roofs roofs = roofs_for(*r.machine, dominant_threads(r), dominant_precision(r));
    std::string what = view == RooflineView::classic ? "Roofline" : "Hierarchical roofline";
    if (set == KernelSet::calibration_only)
        what += " (calibration loops)";
    Chart c{*r.machine,  roofs, r.kernels, view, chart_title(*r.machine, roofs, what), id_prefix, {}, {}, {},
            roofs.notes, set,   {},        {}};
    std::size_t hidden = 0;
    for (const auto& k : r.kernels) {
        if (!c.shown(k)) {
            ++hidden;
            continue;
        }
        if (k.threads != roofs.threads || k.precision != roofs.precision)
            c.notes.push_back(fmt::format(
                "{} ran with {} thread{} ({}); the roofs are for {} ({})", k.name, k.threads,
                k.threads == 1 ? "" : "s", k.precision,
                roofs.threads == 1 ? "1 thread" : fmt::format("{} threads", roofs.threads), roofs.precision));
    }
    if (r.kernels.empty())
        c.notes.push_back("the results file has no kernels: roofs only");
    else if (hidden > 0 && set == KernelSet::all_but_calibration)
        c.notes.push_back(fmt::format("{} calibration loop{} not drawn here (roofline-calibration.svg)",
                                      hidden, hidden == 1 ? "" : "s"));
    else if (hidden == r.kernels.size())
        c.notes.push_back("no kernel of this set in the results file: roofs only");
    return c.render();
}

svg::Document roofline_chart(const core::Machine& m, const std::string& id_prefix) {
    int threads = 1;
    for (const auto& c : m.ceilings)
        threads = std::max(threads, c.threads);
    std::string precision = "double";
    if (!m.peak_gflops.count("double") && !m.peak_gflops.empty())
        precision = m.peak_gflops.begin()->first;
    const Roofs roofs = roofs_for(m, threads, precision);
    static const std::vector<core::KernelResult> k_none;
    Chart c{m,
            roofs,
            k_none,
            RooflineView::classic,
            chart_title(m, roofs, "Roofline"),
            id_prefix,
            {},
            {},
            {},
            roofs.notes,
            KernelSet::all,
            {},
            {}};
    return c.render();
}

} // namespace roofcast::report
