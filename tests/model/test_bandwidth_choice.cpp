// The mixed model's calibrated memory bandwidth for a read-only workload: the calibrated (copy) figure
// times the machine file's ratio of its read-only and copy bandwidths; every other mix keeps the
// calibrated figure as it is.
#include "model/bandwidth.hpp"

#include <gtest/gtest.h>

using namespace roofcast;

namespace {

core::BandwidthPoint point(const std::string& kernel, double gbs, double moved) {
    core::BandwidthPoint p;
    p.kernel = kernel;
    p.threads = 2;
    p.working_set_bytes = 1 << 30;
    p.gbs = *core::summarize({gbs});
    p.moved_per_requested = moved;
    return p;
}

core::Level memory() {
    core::Level l;
    l.name = "MEM";
    l.effective_bandwidth_gbs = 60.0;
    // load 30 GB/s moved; copy 40 GB/s requested = 60 GB/s moved with its write-allocate.
    l.measurements = {point("load", 30.0, 1.0), point("copy", 40.0, 1.5)};
    return l;
}

model::BandwidthNeed need(double write_fraction) {
    model::BandwidthNeed n;
    n.threads = 2;
    n.write_fraction = write_fraction;
    n.prefer_effective = true;
    return n;
}

TEST(BandwidthChoice, ReadOnlyWorkloadScalesTheCalibratedCopyByTheMeasuredRatio) {
    const model::ChosenBandwidth b = model::choose_bandwidth(memory(), need(0.0));
    EXPECT_DOUBLE_EQ(b.gbs, 60.0 * 30.0 / 60.0);
    EXPECT_NE(b.source.find("read-only"), std::string::npos);
}

TEST(BandwidthChoice, MixesWithWritesKeepTheCalibratedFigure) {
    EXPECT_DOUBLE_EQ(model::choose_bandwidth(memory(), need(0.5)).gbs, 60.0);
    EXPECT_DOUBLE_EQ(model::choose_bandwidth(memory(), need(1.0 / 3.0)).gbs, 60.0);
    model::BandwidthNeed unknown = need(0.0);
    unknown.write_fraction.reset();
    EXPECT_DOUBLE_EQ(model::choose_bandwidth(memory(), unknown).gbs, 60.0);
}

TEST(BandwidthChoice, CachesAndMissingMeasurementsKeepTheCalibratedFigure) {
    core::Level l3 = memory();
    l3.name = "L3"; // caches are calibrated read-only already
    EXPECT_DOUBLE_EQ(model::choose_bandwidth(l3, need(0.0)).gbs, 60.0);
    core::Level bare = memory();
    bare.measurements.pop_back(); // no copy measured: nothing to take a ratio of
    EXPECT_DOUBLE_EQ(model::choose_bandwidth(bare, need(0.0)).gbs, 60.0);
}

} // namespace
