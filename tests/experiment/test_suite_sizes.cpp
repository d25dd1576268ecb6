// Memory-resident arrays of the suite: at least four times every cache the machine reports, and at least
// memory's own working set from the machine run (find_memory_plateau), where a victim last level served
// more than that.
#include "experiment/suite_catalogue.hpp"
#include "tiny_machine.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace roofcast;

namespace {

double iterations_of(const std::vector<model::SuiteKernel>& suite, const std::string& name) {
    for (const auto& k : suite)
        if (k.name == name)
            return k.spec.iterations.value_or(0.0);
    ADD_FAILURE() << "no kernel " << name;
    return 0;
}

// The catalogue's rounding: element counts are multiples of 64.
double elements(double bytes) {
    return std::ceil(bytes / 24.0 / 64.0) * 64.0;
}

} // namespace

// The application kernels that stream from memory carry an in-cache instance of their body (the diagnosis'
// in-cache time), which runs; the loops of the other suites carry none.
TEST(SuiteSizes, ApplicationKernelsHaveARunnableInCacheInstance) {
    const core::Machine m = test::tiny_machine();
    measure::suite::SuiteOptions o;
    o.threads = 1;
    o.harness.epochs = 1;
    o.harness.min_epoch_seconds = 1e-6;
    measure::suite::Workspace ws;
    const std::set<std::string> streaming{"jacobi-3d-7pt", "jacobi-3d-7pt-tuned", "himeno", "himeno-tuned",
                                          "spmv-csr",      "spmv-csr-tuned"};
    int with = 0;
    for (const auto& k : model::suite_catalogue(m, 1, "tiny.yaml")) {
        if (!streaming.count(k.name)) {
            EXPECT_FALSE(k.run_in_cache) << k.name;
            continue;
        }
        ASSERT_TRUE(k.run_in_cache) << k.name;
        EXPECT_GT(k.in_cache_iterations, 0) << k.name;
        EXPECT_LT(k.in_cache_iterations, k.spec.iterations.value_or(0)) << k.name;
        EXPECT_GT(k.run_in_cache(o, ws).seconds_per_call.min, 0) << k.name;
        ++with;
    }
    EXPECT_EQ(with, 6);
}

TEST(SuiteSizes, MemoryArraysFollowTheMachineRunsPlateau) {
    core::Machine m = test::tiny_machine();
    const double reported = 4096 + 32768 + 262144;
    const auto plain = model::suite_catalogue(m, 1, "tiny.yaml");
    EXPECT_DOUBLE_EQ(iterations_of(plain, "stream-copy"), elements(4 * reported));

    // The machine run found memory's plateau at 8 MiB: the STREAM arrays hold 8 MiB in all.
    core::BandwidthPoint p;
    p.kernel = "load";
    p.working_set_bytes = 8u << 20;
    m.levels.back().measurements.push_back(p);
    const auto wider = model::suite_catalogue(m, 1, "tiny.yaml");
    EXPECT_DOUBLE_EQ(iterations_of(wider, "stream-copy"), elements(8u << 20));
    EXPECT_GT(iterations_of(wider, "calib-MEM-2F"), iterations_of(plain, "calib-MEM-2F"));

    // A smaller one changes nothing.
    m.levels.back().measurements.back().working_set_bytes = 64u << 10;
    EXPECT_DOUBLE_EQ(iterations_of(model::suite_catalogue(m, 1, "tiny.yaml"), "stream-copy"),
                     elements(4 * reported));
}
