#include "analysis/stencil/measured.hpp"

#include "core/error.hpp"
#include "model/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::model::stencil {

namespace {

core::Summary summary_of(const nlohmann::json& j, const std::string& label, const std::string& field) {
    if (!j.is_object() || !j.contains("median") || !j["median"].is_number() || !j.contains("min") ||
        !j.contains("max") || !j.contains("n") || !j["n"].is_number_integer())
        throw core::InputError(label, field, "expected a summary {median, min, max, n}");
    core::Summary s;
    s.median = j["median"].get<double>();
    s.min = j["min"].get<double>();
    s.max = j["max"].get<double>();
    s.n = j["n"].get<std::size_t>();
    if (s.median > 0)
        s.spread = (s.max - s.min) / s.median;
    return s;
}

int int_of(const nlohmann::json& j, const std::string& key, const std::string& label) {
    if (!j.contains(key) || !j[key].is_number_integer())
        throw core::InputError(label, key, "expected an integer");
    return j[key].get<int>();
}

} // namespace

HaloCosts halo_costs(std::vector<double> bytes, std::vector<core::Summary> seconds,
                     const core::Summary& inner, const core::Summary& overlapped,
                     std::vector<core::Summary> overlapped_per_width, std::vector<int> overlapped_sweeps) {
    HaloCosts h;
    h.bytes = std::move(bytes);
    h.seconds = std::move(seconds);
    h.inner_s = inner;
    h.overlapped_s = overlapped;
    if (overlapped_per_width.size() == h.bytes.size()) {
        h.overlapped_per_width = std::move(overlapped_per_width);
        h.overlapped_sweeps = overlapped_sweeps.size() == h.bytes.size()
                                  ? std::move(overlapped_sweeps)
                                  : std::vector<int>(h.bytes.size(), 1);
    }
    if (h.seconds.empty() || h.seconds.size() != h.bytes.size())
        return h;
    const double t1 = h.seconds[0].median;
    h.fixed_s = t1;
    if (h.seconds.size() >= 2) {
        const double t2 = h.seconds[1].median;
        if (h.bytes[1] > h.bytes[0] && t2 > t1) {
            h.bytes_per_second = (h.bytes[1] - h.bytes[0]) / (t2 - t1);
            h.fixed_s = std::max(0.0, t1 - h.bytes[0] / h.bytes_per_second);
        }
    }
    const double shorter = std::min(t1, inner.median);
    if (shorter > 0)
        h.overlap = std::min(1.0, (t1 + inner.median - overlapped.median) / shorter);
    return h;
}

std::vector<std::pair<double, double>> HaloCosts::added_points() const {
    std::vector<std::pair<double, double>> out;
    for (std::size_t i = 0; i < bytes.size() && i < overlapped_per_width.size(); ++i)
        out.emplace_back(
            bytes[i],
            std::max(0.0, overlapped_per_width[i].median -
                              (i < overlapped_sweeps.size() ? overlapped_sweeps[i] : 1) * inner_s.median));
    return out;
}

std::vector<std::pair<double, double>> HaloCosts::points() const {
    std::vector<std::pair<double, double>> out;
    for (std::size_t i = 0; i < bytes.size() && i < seconds.size(); ++i)
        out.emplace_back(bytes[i], seconds[i].median);
    return out;
}

MeasuredStencil stencil_run_from_json(const nlohmann::json& j, const std::string& label) {
    if (!j.is_object())
        throw core::InputError(label, "", "expected a JSON object from roofcast-stencil");
    MeasuredStencil m;
    if (!j.contains("kernel") || !j["kernel"].is_string())
        throw core::InputError(label, "kernel", "expected a kernel name");
    m.kernel = j["kernel"].get<std::string>();
    m.ranks = int_of(j, "ranks", label);
    m.threads = int_of(j, "threads", label);
    m.steps = int_of(j, "steps", label);
    if (j.contains("library") && j["library"].is_string())
        m.library = j["library"].get<std::string>();
    m.sweep_overhead_s =
        summary_of(j.value("sweep_overhead_seconds", nlohmann::json()), label, "sweep_overhead_seconds");
    if (j.contains("exchange_overhead_seconds")) {
        const auto& e = j["exchange_overhead_seconds"];
        m.exchange_overhead_s = summary_of(e, label, "exchange_overhead_seconds");
        if (!e.contains("mean") || !e["mean"].is_number() || !(e["mean"].get<double>() >= 0))
            throw core::InputError(label, "exchange_overhead_seconds.mean", "expected a time >= 0 s");
        m.exchange_latency_s = e["mean"].get<double>();
    }
    if (j.contains("cell_seconds")) {
        m.cell_s = summary_of(j["cell_seconds"], label, "cell_seconds");
        if (!(m.cell_s->median > 0) || !(m.cell_s->min >= 0) || !(m.cell_s->max >= m.cell_s->median))
            throw core::InputError(label, "cell_seconds", "expected a time per point > 0 s");
    }
    if (j.contains("halo_exchange") && !j["halo_exchange"].is_null()) {
        const auto& hx = j["halo_exchange"];
        const std::string f = "halo_exchange";
        if (!hx.is_object() || !hx.contains("widths") || !hx["widths"].is_array() || hx["widths"].empty() ||
            hx["widths"].size() > static_cast<std::size_t>(k_max_depth))
            throw core::InputError(label, f + ".widths", "expected the exchange at 1 to 1024 halo widths");
        std::vector<double> bytes;
        std::vector<core::Summary> seconds, around;
        std::vector<int> sweeps;
        for (std::size_t i = 0; i < hx["widths"].size(); ++i) {
            const auto& w = hx["widths"][i];
            const std::string where = fmt::format("{}.widths[{}]", f, i);
            if (!w.is_object() || !w.contains("bytes") || !w["bytes"].is_number() ||
                !(w["bytes"].get<double>() > 0) || !std::isfinite(w["bytes"].get<double>()) ||
                (i > 0 && !(w["bytes"].get<double>() > bytes.back())))
                throw core::InputError(label, where + ".bytes",
                                       "expected a message size > 0 bytes, ascending");
            bytes.push_back(w["bytes"].get<double>());
            seconds.push_back(summary_of(w.value("seconds", nlohmann::json()), label, where + ".seconds"));
            // Every width or none (older runners): a file with some is wrong.
            const bool has_around = w.contains("overlapped_seconds");
            if (i > 0 && has_around != !around.empty())
                throw core::InputError(label, where + ".overlapped_seconds",
                                       "expected the exchange around the sweep at every width or at none");
            if (has_around) {
                around.push_back(summary_of(w["overlapped_seconds"], label, where + ".overlapped_seconds"));
                int m = 1;
                if (w.contains("overlapped_sweeps")) {
                    if (!w["overlapped_sweeps"].is_number_integer() ||
                        w["overlapped_sweeps"].get<long>() < 1 || w["overlapped_sweeps"].get<long>() > 64)
                        throw core::InputError(label, where + ".overlapped_sweeps",
                                               "expected an integer 1..64");
                    m = w["overlapped_sweeps"].get<int>();
                }
                sweeps.push_back(m);
            }
        }
        const core::Summary inner =
            summary_of(hx.value("inner_seconds", nlohmann::json()), label, f + ".inner_seconds");
        const core::Summary both =
            summary_of(hx.value("overlapped_seconds", nlohmann::json()), label, f + ".overlapped_seconds");
        std::vector<core::Summary> all = seconds;
        all.push_back(inner);
        all.push_back(both);
        all.insert(all.end(), around.begin(), around.end());
        for (const core::Summary& x : all)
            if (!(x.median > 0) || !std::isfinite(x.median))
                throw core::InputError(label, f, "expected times > 0 s");
        m.halo = halo_costs(std::move(bytes), std::move(seconds), inner, both, std::move(around),
                            std::move(sweeps));
    }
    if (!j.contains("runs") || !j["runs"].is_array() || j["runs"].empty())
        throw core::InputError(label, "runs", "expected a non-empty list of runs");
    for (std::size_t i = 0; i < j["runs"].size(); ++i) {
        const auto& r = j["runs"][i];
        const std::string where = fmt::format("runs[{}]", i);
        MeasuredK k;
        k.k = int_of(r, "k", label + ": " + where);
        k.seconds_per_step =
            summary_of(r.value("seconds_per_step", nlohmann::json()), label, where + ".seconds_per_step");
        const auto ph = r.value("phase_seconds_per_block", nlohmann::json());
        for (const auto& name : k_phase_names)
            k.phase_seconds_per_block[name] =
                summary_of(ph.is_object() ? ph.value(name, nlohmann::json()) : nlohmann::json(), label,
                           where + ".phase_seconds_per_block." + name);
        if (r.contains("check"))
            k.check = r["check"];
        m.runs.push_back(std::move(k));
    }
    return m;
}

KComparison compare(const MeasuredStencil& m, const std::vector<KPrediction>& predictions) {
    KComparison c;
    std::size_t best_m = 0;
    for (std::size_t i = 0; i < m.runs.size(); ++i) {
        KComparison::Row row;
        row.k = m.runs[i].k;
        row.measured = m.runs[i];
        for (const auto& p : predictions)
            if (p.k == row.k)
                row.predicted = p;
        c.rows.push_back(std::move(row));
        if (m.runs[i].seconds_per_step.min < m.runs[best_m].seconds_per_step.min)
            best_m = i;
    }
    c.best_measured_k = m.runs[best_m].k;
    const double best_time = m.runs[best_m].seconds_per_step.min;
    std::optional<std::size_t> best_p;
    for (std::size_t i = 0; i < c.rows.size(); ++i)
        if (c.rows[i].predicted &&
            (!best_p || c.rows[i].predicted->seconds < c.rows[*best_p].predicted->seconds))
            best_p = i;
    if (best_p) {
        c.best_predicted_k = c.rows[*best_p].k;
        const double t = c.rows[*best_p].measured.seconds_per_step.min;
        c.predicted_best_excess = best_time > 0 ? t / best_time - 1 : 0.0;
        c.hit = *c.best_predicted_k == c.best_measured_k || *c.predicted_best_excess <= k_hit_tolerance;
        c.hit_within_interval =
            *c.best_predicted_k == c.best_measured_k ||
            t <= (1.0 + k_beyond_tolerance) * m.runs[best_m].seconds_per_step.max * (1.0 + 1e-12);
    }
    return c;
}

} // namespace roofcast::model::stencil
