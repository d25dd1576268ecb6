// The summary table `roofcast run` prints: one row per kernel with its measured rate (median and
// spread), the best epoch with the min..max of the epochs, the prediction of its most detailed valid model,
// the error, and the bottleneck. The error is computed from the best epoch (experiment/bench.hpp,
// compare_kernel: the models bound what the machine attains), and the row prints that figure beside it, so
// that (prediction / best − 1) reproduces the error from the row alone. "Most detailed" follows a fixed order
// (mixed, hierarchical, cache-aware, roofline) decided before any measurement is seen, so the table never
// picks a model because it happened to be closest. The kernels a user came for come first: application
// kernels, then the validation kernels, the calibration loops last (folded into one line in the text).
#pragma once

#include "core/results.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::report {

// The prediction of `k` shown in the summary: the first valid one in model order, else the first one.
const core::Prediction* summary_prediction(const core::KernelResult& k);

// One kernel's rates in the unit its row is read in: GB/s at the farthest level that moves data for a
// kernel without flops (copy), else GFLOP/s. Shared by the summary and the report's Predictions table.
struct RowRates {
    bool by_bytes = false;
    std::optional<core::Summary> measured; // median, min, max; max is the best epoch
    // The best epoch: the rate every prediction's error_pct compares with.
    std::optional<double> best() const {
        return measured ? std::optional<double>(measured->max) : std::nullopt;
    }
    std::string text(double rate) const; // "17.8 GB/s", "850 MFLOP/s"
    std::string range_text() const; // "10.1..16.8 GB/s" (min..max of the epochs), "-" without a measurement
};
RowRates row_rates(const core::KernelResult& k);
// `p`'s predicted rate in the unit of `rates`; nullopt when it has no time.
std::optional<double> predicted_rate(const core::KernelResult& k, const core::Prediction& p,
                                     const RowRates& rates);

// The kernels in reading order: application kernels, then the other validation kernels (STREAM, the mixed
// family), then any other suite, the calibration loops last; run order within each group.
std::vector<const core::KernelResult*> reading_order(const core::Results& r);

std::string format_run_summary(const core::Results& r);

} // namespace roofcast::report
