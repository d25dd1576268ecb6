// Accuracy where neighbours share the host (docs/noise.md, "Accuracy on a shared host"): whether they did
// while the suite ran, and each model's predictions judged against the measurement's interval instead of its
// point. On a dedicated core a kernel's time repeats to a few per cent and its point is the measurement; on a
// shared one the run's own epochs and rounds span what the neighbours left it, and a prediction inside that
// span is as right as the measurement can tell.
#pragma once

#include "core/results.hpp"
#include "model/accuracy.hpp"

#include <optional>
#include <vector>

namespace roofcast::model {

// Steal time above 1 % of the run: the hypervisor gave the vCPUs to another guest for a measurable share of
// it.
inline constexpr double k_shared_steal = 0.01;
// A reference probe (the same loop before every kernel of every round) whose epochs moved by a fifth or more:
// on a dedicated core such a loop repeats within a few per cent, as likwid-bench's repetitions do.
inline constexpr double k_shared_probe_moved = 1.2;

// Whether the host was shared: steal (nullopt where /proc/stat could not be read), the run's reference probes
// and the machine's compute ceilings whose samples fall in two groups.
core::HostSharing judge_host(std::optional<double> steal_fraction,
                             const std::optional<core::HostNoise>& noise, const core::Machine& machine);

// How far prediction p of kernel k lies beyond k's measured interval (its verdict's [lo, hi] fraction of the
// bound, carried to p's time), as a fraction of the interval's nearer end in rate; 0 inside. nullopt without
// a verdict or a time.
std::optional<double> beyond_interval(const core::KernelResult& k, const core::Prediction& p);

// Fills each summary's interval figures from the validation kernels (the kernels accuracy_summary scores).
void add_interval_accuracy(std::vector<core::AccuracySummary>& accuracy,
                           const std::vector<core::KernelResult>& scored);

} // namespace roofcast::model
