// Phases of `roofcast machine` that measure nothing themselves, run on a made-up run: the sweep's plan from a
// topology, and the closing roof visits and roof choice with the visits on a fake clock and fake rates.
#include "measure/machine_phases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::machine_phases {
namespace {

core::BandwidthPoint point(const std::string& kernel, int threads, std::vector<double> gbs) {
    core::BandwidthPoint p;
    p.kernel = kernel;
    p.threads = threads;
    p.working_set_bytes = 16 * 1024;
    p.gbs = *core::summarize(std::move(gbs));
    return p;
}

core::CacheInfo cache(const std::string& name, std::uint64_t bytes, int shared_by, int instances) {
    core::CacheInfo c;
    c.name = name;
    c.size_bytes = bytes;
    c.shared_by_cores = shared_by;
    c.instances = instances;
    return c;
}

// A two-core run: a private L1 and a shared L3, the roof kernel triad measured at one and two threads on
// every level. The visits return `visit_rates[level]` and take `visit_cost` seconds per level on `now`.
struct FakeRun {
    MachineOptions opt;
    MachineRun run{opt};
    double now = 50.0;
    double visit_cost = 0.01;
    std::vector<std::vector<double>> visit_rates;

    FakeRun(std::vector<double> l1_one, std::vector<double> l1_two, std::vector<std::vector<double>> rates)
        : visit_rates(std::move(rates)) {
        run.topo.cores = 2;
        run.topo.caches = {cache("L1", 32 * 1024, 1, 2), cache("L3", 1024 * 1024, 2, 1)};
        run.plan.roof_kernel = "triad";
        run.roof_threads = 2;
        for (const char* name : {"L1", "L3", "MEM"}) {
            core::Level l;
            l.name = name;
            run.m.levels.push_back(l);
        }
        run.m.levels[0].measurements = {point("triad", 1, l1_one), point("triad", 2, l1_two)};
        run.m.levels[1].measurements = {point("triad", 1, {30, 30, 30}), point("triad", 2, {40, 41, 42})};
        run.m.levels[2].measurements = {point("triad", 1, {9, 9, 9}), point("triad", 2, {10, 10.1, 10.2})};
        run.visits.emplace(
            run.m.levels.size(),
            [this](std::size_t level) {
                now += visit_cost;
                return visit_rates.at(level);
            },
            RoofVisitOptions{}, [this] { return now; });
    }
};

bool has_note(const core::Machine& m, const std::string& text) {
    return std::find(m.notes.begin(), m.notes.end(), text) != m.notes.end();
}

TEST(MachinePhases, PlanSweepNamesTheLevelsAndCapsTheSweep) {
    MachineOptions opt;
    MachineRun run(opt);
    run.topo.caches = {cache("L1", 32 * 1024, 1, 2), cache("L2", 512 * 1024, 1, 2), cache("L3", k_mib, 2, 1)};
    run.plan.threads = {1, 2};
    run.plan.sweep_kernels = {"load", "triad"};
    run.plan.level_kernels = {"load", "copy", "triad"};
    run.plan.sweep_factor = 2.0;
    run.plan.cap = 2 * k_mib; // below 4x the last level's 1 MiB
    plan_sweep(run);
    ASSERT_EQ(run.m.levels.size(), 4u);
    EXPECT_EQ(run.m.levels[0].name, "L1");
    EXPECT_EQ(run.m.levels[2].name, "L3");
    EXPECT_EQ(run.m.levels[3].name, "MEM");
    // 4 KiB doubling up to the cap: 4, 8, ..., 2048 KiB.
    ASSERT_EQ(run.sizes.size(), 10u);
    EXPECT_EQ(run.sizes.front(), 4096u);
    EXPECT_EQ(run.sizes.back(), 2 * k_mib);
    EXPECT_EQ(run.l1_per_thread, 32u * 1024);
    EXPECT_EQ(run.roof_threads, 2);
    EXPECT_DOUBLE_EQ(run.per_thread_count, 0.5);
    EXPECT_DOUBLE_EQ(run.sweep_jobs, 2.0 * 10);
    EXPECT_DOUBLE_EQ(run.level_jobs, 3.0 * 4);
    EXPECT_TRUE(has_note(run.m, "sweep capped at 2.00 MiB (4x the reported last-level cache is 4.00 MiB)"));
}

TEST(MachinePhases, TheRoofJoinsTheVisitsEpochsOverTheFakeClocksWindow) {
    FakeRun f({9.9, 10, 10.05}, {18, 19.5, 20}, {{20.2, 20.1}, {43, 44}, {10.1, 10.3}});
    close_visits(f.run);
    // One visit (the window's last) of three levels at 0.01 s each; L1 scales, so no extra visit.
    EXPECT_EQ(f.run.visits->visits(), 1u);
    EXPECT_TRUE(has_note(f.run.m, "roofs over the run's window: 1 visits to every level's triad at 2 threads "
                                  "over 0.0 s (0.03 s in visits)"));
    choose_roofs(f.run);
    const core::Level& l1 = f.run.m.levels[0];
    ASSERT_TRUE(l1.roof_choice && l1.bandwidth_gbs);
    // Rates 18, 19.5, 20 and the visit's 20.2, 20.1: the median of the best three is 20.1.
    EXPECT_DOUBLE_EQ(*l1.bandwidth_gbs, 20.1);
    EXPECT_EQ(l1.bandwidth_kernel, "triad");
    EXPECT_EQ(l1.roof_choice->epochs, 5u);
    EXPECT_EQ(l1.roof_choice->visits, 1u);
    EXPECT_NEAR(l1.roof_choice->window_seconds, 0.03, 1e-9);
    EXPECT_TRUE(l1.roof_choice->settled); // 20.2 / 20 is within 2 %
    // Private: 20.1 over 2 x one thread's 10 (median of its best three).
    ASSERT_TRUE(l1.roof_choice->thread_scaling);
    EXPECT_NEAR(*l1.roof_choice->thread_scaling, 20.1 / 20, 1e-12);
    // Shared L3: no thread scaling; its best three 44, 43, 42 do not agree within 2 %.
    const core::Level& l3 = f.run.m.levels[1];
    ASSERT_TRUE(l3.roof_choice && l3.bandwidth_gbs);
    EXPECT_DOUBLE_EQ(*l3.bandwidth_gbs, 43);
    EXPECT_FALSE(l3.roof_choice->thread_scaling);
    EXPECT_FALSE(l3.roof_choice->settled);
    EXPECT_TRUE(has_note(f.run.m,
                         "L3 roof (triad 2T): the best 3 of 5 epochs did not agree within 2 % before "
                         "the cap (epochs 40.0 - 44.0 GB/s): the host was busy; the roof is the median "
                         "of the best 3"));
}

TEST(MachinePhases, AShortPrivateRoofBringsExtraVisitsAndANote) {
    // Two threads at 12 GB/s against one thread's 10: 60 % of 2 x one thread, however often visited.
    FakeRun f({10, 10, 10}, {12, 12, 12}, {{12, 12}, {40, 40}, {10, 10}});
    close_visits(f.run);
    EXPECT_EQ(f.run.visits->visits(), 4u); // the last one and three extra
    EXPECT_TRUE(has_note(f.run.m, "3 extra visits after the window: a private roof was below 90 % of 2 x one "
                                  "thread"));
    EXPECT_TRUE(has_note(f.run.m, "roofs over the run's window: 4 visits to every level's triad at 2 threads "
                                  "over 0.1 s (0.12 s in visits)"));
    choose_roofs(f.run);
    const core::Level& l1 = f.run.m.levels[0];
    ASSERT_TRUE(l1.roof_choice && l1.roof_choice->thread_scaling);
    EXPECT_NEAR(*l1.roof_choice->thread_scaling, 0.6, 1e-12);
    EXPECT_EQ(l1.roof_choice->epochs, 3u + 4 * 2);
    EXPECT_TRUE(has_note(f.run.m,
                         "L1 roof (triad 2T): 12.0 GB/s is 60 % of 2 x one thread's 10.0 GB/s over the "
                         "run's window: the threads did not get a core each (a neighbour, or two "
                         "vCPUs on one core)"));
}

} // namespace
} // namespace roofcast::measure::machine_phases
