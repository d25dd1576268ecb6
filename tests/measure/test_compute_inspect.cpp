// Hidden inspection runs, disabled by default (they time real kernels and print figures; they assert
// nothing about speed). Run with:
//   test_measure --gtest_also_run_disabled_tests --gtest_filter='ComputeInspect.*'
#include "measure/compute.hpp"
#include "measure/peak_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace roofcast;
using namespace roofcast::measure;

namespace {

// GFLOP/s and flops per cycle of the widest double FMA kernel against its accumulator count: the rate
// must rise until latency x throughput chains are in flight and stay flat after (no spills).
TEST(ComputeInspect, DISABLED_AccumulatorSweep) {
    for (const PeakKernel& k : accumulator_sweep_kernels()) {
        if (!k.available_on_this_cpu())
            GTEST_SKIP() << "the CPU lacks " << k.decl.target;
        const KernelCeiling kc = measure_peak_kernel(k, 1, false);
        const core::ComputeCeiling& c = kc.ceiling;
        std::printf("accumulators %2d: best %7.2f GFLOP/s (median %7.2f, spread %5.1f %%) at %.2f GHz; best "
                    "epoch %5.2f flops/cycle\n",
                    k.decl.accumulators, c.gflops.max, c.gflops.median, 100 * c.gflops.spread.value_or(0),
                    c.ghz.value_or(0), kc.best_flops_per_cycle);
    }
}

// The widest double FMA ceiling on 1 thread and on all cores, one line each (parsed by
// bench/compute-vs-likwid.sh): best and median GFLOP/s, the clock seen, and the best epoch's flops per
// core-cycle with its fraction of the theoretical peak.
TEST(ComputeInspect, DISABLED_WidestFma) {
    ComputeOptions o;
    o.quick = std::getenv("ROOFCAST_FULL") == nullptr;
    o.isas = {available_isas().back()};
    o.precisions = {"double"};
    o.ops = {"fma"};
    const ComputeResult r = measure_compute(o);
    for (std::size_t i = 0; i < r.ceilings.size(); ++i) {
        const core::ComputeCeiling& c = r.ceilings[i];
        const double lanes = find_peak_kernel(c.isa, c.precision, "fma")->decl.lanes;
        std::printf("roofcast %s %s fma threads=%d best=%.2f median=%.2f spread=%.3f ghz=%.3f "
                    "flops_per_cycle=%.3f of_theoretical=%.4f\n",
                    c.precision.c_str(), c.isa.c_str(), c.threads, c.gflops.max, c.gflops.median,
                    c.gflops.spread.value_or(0), c.ghz.value_or(0), r.best_flops_per_cycle[i],
                    r.best_flops_per_cycle[i] / (2 * lanes * r.fma_units));
    }
}

TEST(ComputeInspect, DISABLED_FullRun) {
    ComputeOptions o;
    o.quick = std::getenv("ROOFCAST_FULL") == nullptr;
    const ComputeResult r = measure_compute(o);
    for (const core::ComputeCeiling& c : r.ceilings)
        std::printf("%-6s %-6s %-6s %2d thr: best %8.2f median %8.2f GFLOP/s spread %5.1f %%%s at %.2f GHz\n",
                    c.precision.c_str(), c.isa.c_str(), c.op.c_str(), c.threads, c.gflops.max,
                    c.gflops.median, 100 * c.gflops.spread.value_or(0), c.gflops.noisy ? " (noisy)" : "",
                    c.ghz.value_or(0));
    std::printf("clock %.3f GHz [%.3f, %.3f] n=%zu drift=%d tsc %.3f GHz, fma units %d, cores %d\n",
                r.clock_ghz.median, r.clock_ghz.min, r.clock_ghz.max, r.clock_ghz.n, r.clock_drift, r.tsc_ghz,
                r.fma_units, r.cores);
    for (const auto& [prec, g] : r.peak_gflops)
        std::printf("theoretical peak %s: %.1f GFLOP/s\n", prec.c_str(), g);
    for (const std::string& n : r.notes)
        std::printf("note: %s\n", n.c_str());
}

} // namespace
