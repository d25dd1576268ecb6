// Shared by the kernel suite's runners (runners.cpp, runners_sparse_dense.cpp): timing a team of threads, one
// parallel region per epoch, and the reduction bodies' first touch. Included only by files of this directory,
// which are all compiled with the same flags (-march=native), so that the templates' instances agree.
#pragma once

#include "measure/harness.hpp"
#include "measure/stream.hpp"
#include "measure/suite/kernels.hpp"
#include "measure/suite/runners.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <omp.h>
#include <optional>
#include <vector>

namespace roofcast::measure::suite::detail {

// Times `call()`, which every thread of a team of `threads` runs once per call of the kernel (bodies
// end without a barrier, see kernels.hpp). One parallel region per epoch keeps fork/join out of the
// samples; its closing barrier ends the epoch.
template <class Call> Measurement time_team(const SuiteOptions& opt, Call&& call) {
    const int threads = std::max(1, opt.threads);
    pin_team(threads);
    std::vector<double> busy(static_cast<std::size_t>(threads));
    std::optional<double> imbalance;
    auto body = [&](std::uint64_t reps) {
#pragma omp parallel num_threads(threads)
        {
            const double t0 = omp_get_wtime();
            for (std::uint64_t r = 0; r < reps; ++r)
                call();
            busy[static_cast<std::size_t>(omp_get_thread_num())] = omp_get_wtime() - t0;
        }
        const double mean = std::accumulate(busy.begin(), busy.end(), 0.0) / static_cast<double>(threads);
        if (threads > 1 && mean > 0) {
            const double ratio = *std::max_element(busy.begin(), busy.end()) / mean;
            imbalance = imbalance ? std::min(*imbalance, ratio) : ratio;
        }
    };
    const Timing t = time_repeated(body, opt.harness);
    Measurement m;
    m.seconds_per_call = t.seconds_per_call;
    m.repetitions = t.repetitions;
    m.thread_imbalance = imbalance;
    return m;
}

// First touch in the reduction bodies' partition: blocks of k_reduction_block elements shared with
// the same static schedule, so each thread's blocks are the ones it will read. `init(i)` sets element i.
template <class Init> void touch_blocks(std::size_t n, int threads, Init&& init) {
    const std::size_t blocks = (n + k_reduction_block - 1) / k_reduction_block;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t blk = 0; blk < blocks; ++blk)
            for (std::size_t i = blk * k_reduction_block; i < std::min(n, (blk + 1) * k_reduction_block); ++i)
                init(i);
    }
}

} // namespace roofcast::measure::suite::detail
