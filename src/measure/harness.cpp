#include "measure/harness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace roofcast::measure {

Clock steady_clock() {
    return [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
}

Timing time_repeated(const std::function<void(std::uint64_t)>& body, const HarnessOptions& opt,
                     const Clock& clock) {
    for (int i = 0; i < opt.warmup_calls; ++i)
        body(1);
    // Calibration: grow the repetition count geometrically until one epoch is long enough,
    // then extrapolate to the target with a 20 % margin (as google/benchmark does).
    std::uint64_t reps = std::max<std::uint64_t>(1, opt.fixed_repetitions);
    while (opt.fixed_repetitions == 0) {
        const double t0 = clock();
        body(reps);
        const double dt = clock() - t0;
        if (dt >= opt.min_epoch_seconds || reps >= opt.max_repetitions)
            break;
        const double factor = dt > 0 ? std::clamp(1.2 * opt.min_epoch_seconds / dt, 2.0, 100.0) : 10.0;
        reps = std::min<std::uint64_t>(
            opt.max_repetitions, static_cast<std::uint64_t>(std::ceil(static_cast<double>(reps) * factor)));
    }
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(opt.epochs));
    auto epoch = [&] {
        const double t0 = clock();
        body(reps);
        const double dt = clock() - t0;
        samples.push_back(dt / static_cast<double>(reps));
        return dt;
    };
    for (int e = 0; e < std::max(1, opt.epochs); ++e)
        epoch();
    Timing t;
    if (opt.settle_best > 1) {
        double extra_seconds = 0;
        const auto cap = static_cast<std::size_t>(std::max(opt.max_epochs, opt.epochs));
        while (!best_agree(samples, opt.settle_best, opt.settle_tolerance) && samples.size() < cap &&
               extra_seconds < opt.max_settle_seconds)
            extra_seconds += epoch();
        t.settled = best_agree(samples, opt.settle_best, opt.settle_tolerance);
    }
    t.repetitions = reps;
    t.seconds_per_call = *core::summarize(std::move(samples));
    return t;
}

std::vector<double> fastest_interleaved(const std::vector<std::function<void()>>& candidates, int rounds,
                                        int warmup_calls, const Clock& clock) {
    for (int w = 0; w < warmup_calls; ++w)
        for (const auto& call : candidates)
            call();
    std::vector<double> best(candidates.size(), std::numeric_limits<double>::infinity());
    for (int r = 0; r < std::max(1, rounds); ++r)
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const double t0 = clock();
            candidates[i]();
            best[i] = std::min(best[i], clock() - t0);
        }
    return best;
}

bool best_agree(const std::vector<double>& times, int k, double tolerance) {
    if (k <= 1)
        return true;
    if (times.size() < static_cast<std::size_t>(k))
        return false;
    std::vector<double> v = times;
    std::partial_sort(v.begin(), v.begin() + k, v.end());
    return v[static_cast<std::size_t>(k) - 1] <= (1.0 + tolerance) * v.front();
}

} // namespace roofcast::measure
