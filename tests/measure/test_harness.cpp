// Adaptive settling of the timing harness on synthetic sample streams: a fake clock advances by a
// scripted per-call time, so each epoch's sample is known exactly.
#include "measure/harness.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace roofcast::measure {
namespace {

// Each call to the body takes `per_call[i]` seconds of fake time, i = index of the body call (the
// warm-up and calibration calls use the first value; epochs then take the scripted values in order,
// the last one repeating).
struct Script {
    std::vector<double> epochs; // seconds per call of each timed epoch
    double now = 0;
    std::size_t epoch = 0;
    bool calibrating = true;
};

Timing run(Script& s, const HarnessOptions& h) {
    const Clock clock = [&s] { return s.now; };
    std::size_t body_calls = 0;
    // Warm-up (1 call of reps 1) and calibration; min_epoch_seconds = 0 makes calibration one call.
    const std::size_t untimed = static_cast<std::size_t>(h.warmup_calls) + 1;
    auto body = [&](std::uint64_t reps) {
        double per_call = s.epochs.front();
        if (body_calls >= untimed) {
            per_call = s.epochs[std::min(s.epoch, s.epochs.size() - 1)];
            ++s.epoch;
        }
        ++body_calls;
        s.now += per_call * static_cast<double>(reps);
    };
    return time_repeated(body, h, clock);
}

HarnessOptions adaptive() {
    HarnessOptions h;
    h.min_epoch_seconds = 0; // one calibration call, reps = 1
    h.epochs = 5;
    h.settle_best = 3;
    h.settle_tolerance = 0.02;
    h.max_epochs = 15;
    h.max_settle_seconds = 100;
    return h;
}

TEST(BestAgree, ComparesTheKFastest) {
    EXPECT_TRUE(best_agree({1.0, 1.01, 1.02, 5.0}, 3, 0.02));
    EXPECT_FALSE(best_agree({1.0, 1.01, 1.03, 5.0}, 3, 0.02));
    EXPECT_FALSE(best_agree({1.0, 1.0}, 3, 0.02)); // too few
    EXPECT_TRUE(best_agree({7.0}, 1, 0.0));
}

TEST(Harness, SteadyHostSettlesWithoutExtraEpochs) {
    Script s{{1.0, 1.005, 1.01, 1.0, 1.008}};
    const Timing t = run(s, adaptive());
    EXPECT_TRUE(t.settled);
    EXPECT_EQ(t.seconds_per_call.n, 5u);
}

TEST(Harness, NeighbourBurstIsWaitedOut) {
    // A burst slows epochs 1-6 by 2x; then the host is quiet again.
    Script s{{1.0, 2.0, 2.1, 1.9, 2.0, 2.2, 2.0, 1.0, 1.01}};
    const Timing t = run(s, adaptive());
    EXPECT_TRUE(t.settled);
    EXPECT_EQ(t.seconds_per_call.n, 9u); // stopped as soon as the best three agreed
    EXPECT_DOUBLE_EQ(t.seconds_per_call.min, 1.0);
    // Every sample is kept, burst included.
    EXPECT_DOUBLE_EQ(t.seconds_per_call.max, 2.2);
}

TEST(Harness, StolenVcpuNeverSettlesAndHitsTheEpochCap) {
    // Alternating: a stolen vCPU doubles every other epoch, and the fast ones drift 5 % apart.
    Script s{{1.0, 2.0, 1.05, 2.0, 1.10, 2.0, 1.15, 2.0, 1.20, 2.0, 1.25, 2.0, 1.30, 2.0, 1.35, 2.0, 1.4}};
    const Timing t = run(s, adaptive());
    EXPECT_FALSE(t.settled);
    EXPECT_EQ(t.seconds_per_call.n, 15u);
}

TEST(Harness, TimeCapBoundsTheExtraEpochs) {
    Script s{{1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0}};
    HarnessOptions h = adaptive();
    h.max_settle_seconds = 3.0; // one extra epoch of 3.5 s crosses the cap
    const Timing t = run(s, h);
    EXPECT_FALSE(t.settled);
    EXPECT_EQ(t.seconds_per_call.n, 6u);
}

TEST(Harness, SettlingOffRunsExactlyTheEpochs) {
    Script s{{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}};
    HarnessOptions h = adaptive();
    h.settle_best = 0;
    const Timing t = run(s, h);
    EXPECT_TRUE(t.settled);
    EXPECT_EQ(t.seconds_per_call.n, 5u);
}

// Two candidates on a fake clock; a "burst" slows whatever runs during calls 4-5 of the timed sequence (the
// second round): each candidate's fastest call is its own quiet time, the calls alternate, and the warm-up
// calls are neither timed nor counted.
TEST(Harness, InterleavedCandidatesMeetTheSameMinutes) {
    double now = 0;
    std::vector<int> order;
    int timed_call = -2; // two warm-up calls (one per candidate) come first
    const Clock clock = [&] { return now; };
    auto candidate = [&](int id, double quiet) {
        return [&, id, quiet] {
            order.push_back(id);
            const bool burst = timed_call == 2 || timed_call == 3;
            now += burst ? 10 * quiet : quiet;
            ++timed_call;
        };
    };
    const std::vector<double> best =
        fastest_interleaved({candidate(0, 2e-3), candidate(1, 3e-3)}, 3, 1, clock);
    ASSERT_EQ(best.size(), 2u);
    EXPECT_DOUBLE_EQ(best[0], 2e-3);
    EXPECT_DOUBLE_EQ(best[1], 3e-3);
    EXPECT_EQ(order, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
    EXPECT_TRUE(fastest_interleaved({}, 3, 1, clock).empty());
    // rounds < 1 still times each candidate once
    order.clear();
    EXPECT_EQ(fastest_interleaved({candidate(0, 1.0)}, 0, 0, clock).size(), 1u);
    EXPECT_EQ(order, (std::vector<int>{0}));
}

} // namespace
} // namespace roofcast::measure

namespace roofcast::measure {
namespace {

TEST(Harness, FixedRepetitionsSkipCalibration) {
    // Every call takes 1 ms per repetition of fake time; the body records the repetitions it is asked for.
    double now = 0;
    std::vector<std::uint64_t> asked;
    const Clock clock = [&] { return now; };
    auto body = [&](std::uint64_t reps) {
        asked.push_back(reps);
        now += 1e-3 * static_cast<double>(reps);
    };
    HarnessOptions h;
    h.warmup_calls = 0;
    h.epochs = 2;
    h.min_epoch_seconds = 1.0; // would calibrate to >= 1000 repetitions
    h.fixed_repetitions = 7;
    const Timing t = time_repeated(body, h, clock);
    EXPECT_EQ(asked, (std::vector<std::uint64_t>{7, 7})); // no calibration call
    EXPECT_EQ(t.repetitions, 7u);
    EXPECT_NEAR(t.seconds_per_call.median, 1e-3, 1e-12);
}

} // namespace
} // namespace roofcast::measure
