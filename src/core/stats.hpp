// Robust summary statistics of repeated measurements. Every measured number in roofcast is kept
// as its samples plus this summary (median, min, max, n, relative spread); a summary whose relative
// spread exceeds the noise threshold is flagged, never hidden. Undefined statistics are nullopt.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace roofcast::core {

inline constexpr double k_noisy_spread = 0.05; // relative spread above which a row is flagged

// Below 1 % interquartile spread no row is flagged NOISY (the bench's rows, experiment/noise.hpp; the machine
// file's rows, core/machine_noise.hpp): timer and frequency jitter of epochs of a few milliseconds, not the
// host.
inline constexpr double k_noise_floor_min = 0.01;

struct Summary {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
    std::size_t n = 0;
    // (max - min) / median; nullopt when the median is zero.
    std::optional<double> spread;
    bool noisy = false;
    std::vector<double> samples;
};

// A summary written as its statistics rather than its samples: median, min and max (each defaulting to the
// median) read by `number`, n (default 1) by `count` from 1 to 2^30, both from the fields of `f` (a file's
// reader: operator[], has(), fail()); the spread and the noise flag derived as from samples.
template <class Field, class Number, class Count>
Summary summary_of_statistics(const Field& f, Number&& number, Count&& count) {
    Summary s;
    s.median = number(f["median"]);
    s.min = f.has("min") ? number(f["min"]) : s.median;
    s.max = f.has("max") ? number(f["max"]) : s.median;
    if (s.min > s.median || s.max < s.median)
        f.fail("expected min <= median <= max");
    s.n = static_cast<std::size_t>(f.has("n") ? count(f["n"], std::int64_t{1} << 30) : 1);
    if (s.median != 0)
        s.spread = (s.max - s.min) / std::fabs(s.median);
    s.noisy = s.spread && *s.spread > k_noisy_spread;
    return s;
}

std::optional<double> median(std::vector<double> values);
std::optional<double> mean(const std::vector<double>& values);
// Linear-interpolated quantile, q in [0,1].
std::optional<double> quantile(std::vector<double> values, double q);

// Median of the k largest values (rates: the best epochs), the attainable bound a roof reports:
// a neighbour can only slow epochs, so the top values are the least disturbed, and taking the median of
// k of them rather than the single maximum keeps one lucky epoch from setting the roof.
// nullopt for an empty vector or k == 0; k larger than the count uses every value.
std::optional<double> best_k_median(std::vector<double> values, std::size_t k);

// Interquartile spread: (Q3 - Q1) / |median|, quantiles interpolated as quantile() does. Epochs disturbed
// for less than a quarter of a row's samples (a hiccup of one or two epochs) leave it unchanged; a burst
// over a whole round of three (a third of nine epochs) or a drift between rounds moves it (Tukey's fourths,
// Exploratory Data Analysis, 1977, ch. 2). nullopt for no samples or a zero median.
std::optional<double> interquartile_spread(const std::vector<double>& samples);
// The same over a summary's samples; nullopt when it keeps fewer than two (an entered figure).
std::optional<double> interquartile_spread_of(const Summary& s);

// The spread above which a row is an outlier among its peers' spreads: Tukey's upper fence
// Q3 + 1.5 (Q3 - Q1) of `spreads` (Exploratory Data Analysis, 1977, ch. 2), never below `minimum`; with
// fewer than `min_rows` spreads, `minimum` alone. The one rule behind the machine file's and the threads
// results' NOISY flags (docs/noise.md).
double outlier_floor(const std::vector<double>& spreads, double minimum, std::size_t min_rows);

// The 97.5 % quantile of Student's t distribution with `dof` degrees of freedom (two-sided 95 %
// intervals); infinity for dof 0.
double t_quantile_975(std::size_t dof);

// The 95 % interval of a Poisson mean from one count n (Garwood, "Fiducial limits for the Poisson
// distribution", Biometrika 28, 1936): the means mu_lo and mu_hi at which P(X >= n) and P(X <= n) are 2.5 %
// (mu_lo = 0 for n = 0). Sampling profilers' counts: a function's n samples put its time within
// [t mu_lo / n, t mu_hi / n]. Exact (bisection on the Poisson distribution) up to n = 1000, Wilson and
// Hilferty's chi-square approximation beyond. {0, 0} for a negative or non-finite n.
std::pair<double, double> poisson_interval_95(double n);

// Samples that fall in two groups separated by a gap (a roof measured while a neighbour took the host part
// of the time): sorted, the largest ratio between neighbours v[i+1] / v[i] among the cuts that leave at least
// max(3, n / 5) samples on each side. When that ratio reaches k_group_gap the samples are two groups, the
// lower and the upper, each with its median, range and count; otherwise nullopt. A 30 % gap between
// consecutive samples is several times the interquartile spread of a steady roof (k_noisy_spread, 5 %), so
// one group's own scatter does not split it.
inline constexpr double k_group_gap = 1.3;
struct SampleGroups {
    Summary lower, upper;
    double gap = 0; // the upper group's smallest over the lower group's largest
};
std::optional<SampleGroups> split_groups(std::vector<double> samples);

// Summarize samples; nullopt for an empty vector. Non-finite samples are an error (std::invalid_argument).
std::optional<Summary> summarize(std::vector<double> samples, double noisy_threshold = k_noisy_spread);

// A summary of every sample multiplied by a constant (requires samples).
Summary scaled(const Summary& s, double factor);
// Convert a summary of times t into a summary of rates work/t (requires samples).
Summary rate_from_times(const Summary& times, double work);

} // namespace roofcast::core
