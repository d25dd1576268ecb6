#include "analysis/scale/fit_detail.hpp"

#include <algorithm>
#include <cmath>

namespace roofcast::model::scale::detail {

namespace {

// Best PMNF term (or constant) by residual sum of squares on a subset: the segment model of the
// piecewise family (all candidates have two coefficients, so RSS ranks them fairly).
Model best_segment(const Basis& basis, const double* y, const int* idx, int m, double* rss_out) {
    Model best = constant_model(mean_of(y, idx, m));
    double best_rss = 0.0;
    for (int k = 0; k < m; ++k)
        best_rss += (y[idx[k]] - best.coef[0]) * (y[idx[k]] - best.coef[0]);
    for (const auto& c : basis.candidates()) {
        if (c.family != Family::pmnf)
            continue;
        const double* b = basis.column(c);
        const Line l = fit_line(b, y, idx, m, c.family);
        if (!l.ok)
            continue;
        double rss = 0.0;
        for (int k = 0; k < m; ++k) {
            const double d = y[idx[k]] - (l.c0 + l.c1 * b[idx[k]]);
            rss += d * d;
        }
        if (rss < best_rss * (1.0 - 1e-9) - 1e-300) {
            best_rss = rss;
            best = line_model(c, l);
        }
    }
    *rss_out = best_rss;
    return best;
}

} // namespace

// Piecewise model on a subset: every admissible split into `segments` runs of >= 3 points, each
// segment its best PMNF term; the split with the lowest total RSS wins.
std::optional<Model> fit_piecewise(const Basis& basis, const double* y, const int* idx, int m) {
    constexpr int k_min_seg = 3;
    const int max_segments = m >= 9 ? 3 : (m >= 6 ? 2 : 1);
    if (max_segments < 2)
        return std::nullopt;
    const auto& x = basis.x();
    std::optional<Model> best;
    double best_rss = k_inf;
    auto consider = [&](const std::vector<int>& cuts) {
        Model pw;
        pw.family = Family::piecewise;
        double total = 0.0;
        int start = 0;
        for (std::size_t s = 0; s <= cuts.size(); ++s) {
            const int end = s < cuts.size() ? cuts[s] : m;
            double rss = 0.0;
            pw.segments.push_back(best_segment(basis, y, idx + start, end - start, &rss));
            total += rss;
            if (s < cuts.size()) {
                const double a = x[static_cast<std::size_t>(idx[end - 1])];
                const double b = x[static_cast<std::size_t>(idx[end])];
                pw.breaks.push_back(a > 0.0 ? std::sqrt(a * b) : 0.5 * (a + b));
            }
            start = end;
        }
        if (total < best_rss) {
            best_rss = total;
            best = std::move(pw);
        }
    };
    for (int c1 = k_min_seg; c1 <= m - k_min_seg; ++c1) {
        consider({c1});
        if (max_segments >= 3)
            for (int c2 = c1 + k_min_seg; c2 <= m - k_min_seg; ++c2)
                consider({c1, c2});
    }
    return best;
}

} // namespace roofcast::model::scale::detail
