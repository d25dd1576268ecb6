#include "model/predict.hpp"

#include "core/error.hpp"
#include "model/model.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace roofcast::model {

namespace {

// Best median of the measured compute ceilings of a precision at a thread count, if any.
std::optional<double> best_ceiling(const core::Machine& m, const std::string& precision, int threads) {
    std::optional<double> best;
    for (const auto& c : m.ceilings)
        if (c.precision == precision && c.threads == threads)
            best = std::max(best.value_or(0.0), c.gflops.median);
    return best;
}

// Compute roofs for `threads` of `cores`: the machine's figures are for the whole machine; fewer threads
// scale by the ratio of the best ceilings measured at both thread counts when present (this keeps turbo
// effects), else linearly (peak x threads / cores).
void compute_roofs(ModelContext& c) {
    const std::string& prec = c.k.precision;
    auto it = c.m.peak_gflops.find(prec);
    if (it == c.m.peak_gflops.end())
        throw core::InputError(c.machine_label, "compute.peak_gflops." + prec,
                               "missing: the machine has no " + prec + "-precision compute peak");
    double scale = 1;
    std::string how;
    if (c.threads != c.cores) {
        const auto at_t = best_ceiling(c.m, prec, c.threads);
        const auto at_all = best_ceiling(c.m, prec, c.cores);
        if (at_t && at_all && *at_all > 0) {
            scale = *at_t / *at_all;
            how = fmt::format(" x measured ceiling ratio {:.3g}/{:.3g} ({} / {})", *at_t, *at_all,
                              thread_text(c.threads), thread_text(c.cores));
        } else {
            scale = static_cast<double>(c.threads) / c.cores;
            how = fmt::format(" x {}/{} cores", c.threads, c.cores);
        }
    }
    c.peak = it->second * scale;
    c.peak_source = "peak" + how;
    auto eff = c.m.effective_gflops.find(prec);
    if (eff != c.m.effective_gflops.end()) {
        c.effective = eff->second * scale;
        c.effective_source = "effective" + how;
    } else if (auto measured = best_ceiling(c.m, prec, c.threads)) {
        c.effective = *measured;
        c.effective_source = "best measured ceiling, " + thread_text(c.threads);
    } else {
        c.effective = c.peak;
        c.effective_source = c.peak_source + " (no effective figure)";
    }
}

std::vector<std::string> requested_models(const PredictOptions& o) {
    std::vector<std::string> out;
    for (const auto& name : o.models) {
        if (name == "all") {
            for (const auto& n : model_names())
                if (std::find(out.begin(), out.end(), n) == out.end())
                    out.push_back(n);
            continue;
        }
        if (std::find(model_names().begin(), model_names().end(), name) == model_names().end())
            throw core::InputError("", "model",
                                   "unknown model '" + name + "', expected " + model_list_text());
        if (std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
    }
    return out.empty() ? model_names() : out;
}

} // namespace

std::string model_list_text() {
    std::string out;
    for (const auto& n : model_names())
        out += n + ", ";
    out.resize(out.size() - 2); // "roofline, hierarchical, cache-aware, mixed"
    return out + " or all";
}

int resolve_threads(const core::Machine& m, int threads) {
    if (threads > 0)
        return threads;
    return m.topology ? m.topology->cores : 1;
}

Analysis analyse(const KernelSpec& k, const core::Machine& m, const PredictOptions& o) {
    const std::vector<std::string> models = requested_models(o);
    if (o.threads < 0)
        throw core::InputError("", "threads", "expected a thread count >= 1 (or 0 for all cores)");
    ModelContext c(k, m, o.machine_file.empty() ? m.name : o.machine_file);
    c.threads = resolve_threads(m, o.threads);
    c.cores = m.topology ? m.topology->cores : c.threads;
    if (c.threads > c.cores)
        throw core::InputError("", "threads",
                               fmt::format("expected at most {} threads (the machine's cores)", c.cores));
    compute_roofs(c);
    c.traffic = derive_traffic(k, m, c.threads, c.machine_label);

    Analysis a;
    a.kernel = k.name;
    a.machine = m.name;
    a.precision = k.precision;
    a.threads = c.threads;
    a.flops_per_iteration = k.flops_per_iteration;
    a.iterations = iterations_of(k);
    a.traffic = c.traffic;
    bool thread_specific = true;
    for (const auto& lv : m.levels)
        if (!measured_bandwidth(lv, need_for(c, lv, false)))
            thread_specific = false;
    for (const auto& name : models) {
        ModelDetail d = find_model(name)->analyse(c);
        if (!m.topology && o.threads > 0)
            d.prediction.notes.push_back(fmt::format(
                "the machine file has no topology (core count): its figures are used as given for {}",
                thread_text(c.threads)));
        else if (!thread_specific && c.threads != c.cores)
            d.prediction.notes.push_back(
                fmt::format("bandwidths not measured at {} are the machine file's figures, taken as they are",
                            thread_text(c.threads)));
        a.models.push_back(std::move(d));
    }
    return a;
}

std::vector<core::Prediction> predict(const KernelSpec& k, const core::Machine& m, const PredictOptions& o) {
    std::vector<core::Prediction> out;
    for (auto& d : analyse(k, m, o).models)
        out.push_back(std::move(d.prediction));
    return out;
}

} // namespace roofcast::model
