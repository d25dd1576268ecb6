// Thread overhead: the time of an empty OpenMP parallel region and of creating and joining
// std::threads, for 1 ... 4x cores threads. All samples are kept (core::ThreadOverhead); the curve
// bends where the threads outnumber the physical cores.
#pragma once

#include "core/machine.hpp"
#include "measure/harness.hpp"

#include <vector>

namespace roofcast::measure {

// Thread counts 1, 2, ..., max_threads.
std::vector<core::ThreadOverhead> measure_thread_overhead(int max_threads, const HarnessOptions& opt);

} // namespace roofcast::measure
