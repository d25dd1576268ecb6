#include "core/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace roofcast::core {

std::optional<double> quantile(std::vector<double> values, double q) {
    if (values.empty() || !(q >= 0.0 && q <= 1.0))
        return std::nullopt;
    std::sort(values.begin(), values.end());
    const double pos = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    const double frac = pos - static_cast<double>(lo);
    return values[lo] + (values[hi] - values[lo]) * frac;
}

std::optional<double> median(std::vector<double> values) {
    return quantile(std::move(values), 0.5);
}

std::optional<double> mean(const std::vector<double>& values) {
    if (values.empty())
        return std::nullopt;
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::optional<double> best_k_median(std::vector<double> values, std::size_t k) {
    if (values.empty() || k == 0)
        return std::nullopt;
    k = std::min(k, values.size());
    std::sort(values.begin(), values.end(), std::greater<>());
    values.resize(k);
    return median(std::move(values));
}

std::optional<SampleGroups> split_groups(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    const std::size_t least = std::max<std::size_t>(3, n / 5);
    if (n < 2 * least || !(samples.front() > 0))
        return std::nullopt;
    std::size_t cut = 0; // the lower group is samples[0 .. cut]
    double gap = 0;
    for (std::size_t i = least - 1; i + least < n; ++i)
        if (const double r = samples[i + 1] / samples[i]; r > gap) {
            gap = r;
            cut = i;
        }
    if (gap < k_group_gap)
        return std::nullopt;
    const std::vector<double> lower(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(cut) + 1);
    const std::vector<double> upper(samples.begin() + static_cast<std::ptrdiff_t>(cut) + 1, samples.end());
    return SampleGroups{*summarize(lower), *summarize(upper), gap};
}

std::optional<double> interquartile_spread(const std::vector<double>& samples) {
    const auto med = median(samples);
    if (!med || *med == 0.0)
        return std::nullopt;
    return (*quantile(samples, 0.75) - *quantile(samples, 0.25)) / std::fabs(*med);
}

double outlier_floor(const std::vector<double>& spreads, double minimum, std::size_t min_rows) {
    if (spreads.size() < std::max<std::size_t>(1, min_rows))
        return minimum;
    const double q1 = *quantile(spreads, 0.25), q3 = *quantile(spreads, 0.75);
    return std::max(minimum, q3 + 1.5 * (q3 - q1));
}

std::optional<double> interquartile_spread_of(const Summary& s) {
    return s.samples.size() >= 2 ? interquartile_spread(s.samples) : std::nullopt;
}

double t_quantile_975(std::size_t dof) {
    // Table for small dof; Cornish–Fisher expansion beyond (Abramowitz & Stegun, Eq. 26.7.5).
    static const std::array<double, 30> table = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (dof == 0)
        return std::numeric_limits<double>::infinity();
    if (dof <= table.size())
        return table[dof - 1];
    const double z = 1.959964;
    const double v = static_cast<double>(dof);
    return z + (z * z * z + z) / (4.0 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96.0 * v * v);
}

namespace {

// P(X <= n) for X Poisson with mean mu, summed in log space (terms past exp(-745) vanish, not the sum).
double poisson_cdf(double n, double mu) {
    if (mu <= 0)
        return 1.0;
    double sum = 0;
    for (double k = 0; k <= n; ++k)
        sum += std::exp(-mu + k * std::log(mu) - std::lgamma(k + 1));
    return std::min(1.0, sum);
}

// The mu in [lo, hi] at which the decreasing `cdf(mu)` equals p (bisection).
template <class Cdf> double solve_decreasing(Cdf cdf, double p, double lo, double hi) {
    for (int it = 0; it < 100; ++it) {
        const double mid = 0.5 * (lo + hi);
        (cdf(mid) > p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// Wilson and Hilferty's quantile of chi-square with k degrees of freedom at the normal deviate z (Johnson,
// Kotz & Balakrishnan, Continuous Univariate Distributions 1, 2nd ed., Eq. 18.24).
double chi2_quantile(double k, double z) {
    const double c = 2.0 / (9.0 * k);
    const double t = 1.0 - c + z * std::sqrt(c);
    return k * t * t * t;
}

} // namespace

std::pair<double, double> poisson_interval_95(double n) {
    if (!(n >= 0) || !std::isfinite(n))
        return {0.0, 0.0};
    constexpr double z = 1.959964;
    if (n > 1000)
        return {0.5 * chi2_quantile(2 * n, -z), 0.5 * chi2_quantile(2 * n + 2, z)};
    const double k = std::floor(n);
    const double top = k + 10.0 * std::sqrt(k + 1.0) + 10.0; // P(X <= k) is far below 2.5 % there
    const double hi = solve_decreasing([k](double mu) { return poisson_cdf(k, mu); }, 0.025, 0.0, top);
    if (k == 0)
        return {0.0, hi};
    // P(X >= k) = 2.5 %, i.e. P(X <= k - 1) = 97.5 %.
    const double lo = solve_decreasing([k](double mu) { return poisson_cdf(k - 1, mu); }, 0.975, 0.0, top);
    return {lo, hi};
}

std::optional<Summary> summarize(std::vector<double> samples, double noisy_threshold) {
    if (samples.empty())
        return std::nullopt;
    for (double v : samples)
        if (!std::isfinite(v))
            throw std::invalid_argument("summarize: non-finite sample");
    Summary s;
    s.samples = samples;
    std::sort(samples.begin(), samples.end());
    s.n = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    s.median = *quantile(samples, 0.5);
    if (s.median != 0.0)
        s.spread = (s.max - s.min) / std::fabs(s.median);
    s.noisy = s.spread && *s.spread > noisy_threshold;
    return s;
}

Summary scaled(const Summary& s, double factor) {
    std::vector<double> v = s.samples;
    for (double& x : v)
        x *= factor;
    return *summarize(std::move(v));
}

Summary rate_from_times(const Summary& times, double work) {
    std::vector<double> v = times.samples;
    for (double& x : v)
        x = work / x;
    return *summarize(std::move(v));
}

} // namespace roofcast::core
