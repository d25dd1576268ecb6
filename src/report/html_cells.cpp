#include "report/format.hpp"
#include "report/html_parts.hpp"
#include "report/noise_text.hpp"
#include "report/svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::report::html_detail {

std::string h(std::string_view text) {
    return svg::escape(text);
}

std::string noisy_badge(const core::Summary& s) {
    return s.noisy
               ? "<span class=\"badge noisy\" title=\"spread above the noise floor of the run\">NOISY</span>"
               : "";
}

std::string machine_spread_cell(const core::Summary& s) {
    const std::string iqr = summary_spread_text(s);
    return std::string("<span title=\"") +
           (iqr.empty() ? "range spread (max - min) / median" : "interquartile spread of the epochs") +
           "\">" + h(iqr.empty() ? spread_percent(s) : iqr) + "</span>" +
           (s.noisy ? "<span class=\"badge noisy\" title=\"interquartile spread above the floor of its kind "
                      "in this run (see Noise)\">NOISY</span>"
                    : "");
}

std::string kernel_spread_cell(const core::KernelResult& k) {
    if (!k.noise)
        return h(spread_percent(*k.measured_gflops)) + noisy_badge(*k.measured_gflops);
    const std::string why = row_noise_text(k);
    return "<span title=\"" + h(why) + "\">" + h(row_spread_text(*k.noise)) + "</span>" +
           (k.noise->flagged() ? "<span class=\"badge noisy\" title=\"" + h(why) + "\">NOISY</span>" : "");
}

std::string num_td(const std::string& text) {
    return "<td class=\"n\">" + h(text) + "</td>";
}

std::string td(const std::string& text) {
    return "<td>" + h(text) + "</td>";
}

std::string fixed3(double v) {
    return fmt::format("{:.3g}", v);
}

std::string threads_text(int t) {
    return fmt::format("{} thread{}", t, t == 1 ? "" : "s");
}

std::string anchor_id(const std::string& name) {
    std::string id = "k-";
    for (char c : name)
        id += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    return id;
}

const core::Prediction* closest(const core::KernelResult& k) {
    const core::Prediction* best = nullptr;
    for (const auto& p : k.predictions)
        if (p.valid && p.error_pct && (!best || std::fabs(*p.error_pct) < std::fabs(*best->error_pct)))
            best = &p;
    return best;
}

std::vector<std::string> model_names(const core::Results& r) {
    std::vector<std::string> models;
    for (const auto& k : r.kernels)
        for (const auto& p : k.predictions)
            if (std::find(models.begin(), models.end(), p.model) == models.end())
                models.push_back(p.model);
    return models;
}

} // namespace roofcast::report::html_detail
