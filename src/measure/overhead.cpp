#include "measure/overhead.hpp"

#include <algorithm>
#include <omp.h>
#include <thread>

namespace roofcast::measure {

namespace {

// A value each parallel thread writes, so that the region is not empty to the optimiser.
void touch(std::vector<int>& slots, int t) {
    slots[static_cast<std::size_t>(t) * 16] = t;
}

} // namespace

std::vector<core::ThreadOverhead> measure_thread_overhead(int max_threads, const HarnessOptions& opt) {
    std::vector<core::ThreadOverhead> out;
    max_threads = std::max(1, max_threads);
    std::vector<int> slots(static_cast<std::size_t>(max_threads) * 16);
    for (int s = 1; s <= max_threads; ++s) {
        const Timing omp = time_repeated(
            [&](std::uint64_t reps) {
                for (std::uint64_t r = 0; r < reps; ++r) {
#pragma omp parallel num_threads(s)
                    touch(slots, omp_get_thread_num());
                }
            },
            opt);
        out.push_back({"omp_parallel", s, omp.seconds_per_call});
        const Timing thr = time_repeated(
            [&](std::uint64_t reps) {
                std::vector<std::thread> pool;
                pool.reserve(static_cast<std::size_t>(s));
                for (std::uint64_t r = 0; r < reps; ++r) {
                    for (int t = 0; t < s; ++t)
                        pool.emplace_back([&slots, t] { touch(slots, t); });
                    for (auto& th : pool)
                        th.join();
                    pool.clear();
                }
            },
            opt);
        out.push_back({"std_thread", s, thr.seconds_per_call});
    }
    return out;
}

} // namespace roofcast::measure
