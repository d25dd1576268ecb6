// The host's noise during a run in words (experiment/noise.hpp, docs/noise.md): one run-level summary of how
// much the host moved under each reference probe and what roofcast did about it, and the reason a row carries
// the NOISY flag.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"

#include <string>

namespace roofcast::report {

// "host noise: memory probe calib-MEM-2F 31.2-50.3 GB/s over 222 epochs (interquartile spread 9.1 %), floor
// 12.0 %; core probe ...; 5 of 73 rows above their probe's floor (NOISY)", then what roofcast did.
// Empty when the run had no probes.
std::string host_noise_text(const core::Results& r);
// "host: shared (steal time 3.1 % of the run; the memory probe moved 2.31x): each model's predictions are
// judged against the measurement's interval" or the dedicated form; empty for results without the judgement.
std::string host_sharing_text(const core::Results& r);
// One model's accuracy against the measured intervals: "31 of 41 inside the measured interval, 38 (93 %)
// inside or at most 10 % beyond, at most 34.2 % beyond"; empty without intervals.
std::string interval_accuracy_text(const core::AccuracySummary& a);
// Whether the run's accuracy is judged against the intervals (a shared host with interval figures).
bool judged_by_interval(const core::Results& r);
// "14.2 %": the interquartile spread the row's NOISY flag is judged by.
std::string row_spread_text(const core::RowNoise& n);
// "interquartile spread 14.2 % above the memory probe's floor 9.0 %"; empty for a row without noise data.
std::string row_noise_text(const core::KernelResult& k);
// The machine file's rows (core/machine_noise.hpp): "noise: NOISY rows by kind: core 3 of 74 (floor
// 7.2 %); memory ...", then the rule. Empty when no row has samples.
std::string machine_noise_text(const core::Machine& m);
// "14.2 %": the interquartile spread of one measured figure's samples; empty without samples.
std::string summary_spread_text(const core::Summary& s);
// A row measured alone (core::flag_row_alone): "median of 27, iqr 6.1 % (range 53.2 %), NOISY (iqr above
// 5 %)".
std::string row_alone_text(const core::Summary& s);

} // namespace roofcast::report
