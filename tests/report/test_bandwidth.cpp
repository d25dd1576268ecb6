#include "fixtures.hpp"
#include "report/bandwidth.hpp"
#include "xml.hpp"

#include <gtest/gtest.h>

using namespace roofcast;
using test::parse_xml;

TEST(BandwidthChart, FixtureStructure) {
    const auto doc = report::bandwidth_chart(test::fixture_machine());
    const auto root = parse_xml(doc.standalone());
    // Sweep: load (1 and 2 threads) and triad (1 thread), 4 KiB .. 256 MiB doubling = 17 points each.
    EXPECT_EQ(root->by_class("sweep-curve").size(), 3u);
    EXPECT_EQ(root->by_class("sweep-point").size(), 51u);
    EXPECT_EQ(root->by_class("noisy").size(), 1u); // load, 2 threads, 16 MiB: interquartile spread 16 %
    // Reported sizes of L1, L2, L3 and the L3 usable size from the sweep.
    EXPECT_EQ(root->by_class("cache-size").size(), 4u);
    EXPECT_EQ(root->by_class("cache-label").size(), 4u);
    // One shaded band and one plateau roof per level (L1, L2, L3, MEM).
    EXPECT_EQ(root->by_class("plateau").size(), 4u);
    EXPECT_EQ(root->by_class("plateau-roof").size(), 4u);
    EXPECT_TRUE(doc.notes().empty());
    // The L3 band ends at the usable 16 MiB, not the reported 54 MiB.
    const auto bands = root->by_class("plateau");
    EXPECT_NE(bands[2]->by_name("title")[0]->text.find("to 16 MiB"), std::string::npos);
}

TEST(BandwidthChart, SizeTicksAreWholeBinaryUnits) {
    EXPECT_EQ(report::size_tick(512), "512 B");
    EXPECT_EQ(report::size_tick(48 * 1024), "48 KiB");
    EXPECT_EQ(report::size_tick(16.0 * 1024 * 1024), "16 MiB");
    EXPECT_EQ(report::size_tick(1.25 * 1024 * 1024), "1.25 MiB");
}

TEST(BandwidthChart, NoSweepAndBadPointsAreNoted) {
    auto m = test::fixture_machine();
    m.sweep.clear();
    auto doc = report::bandwidth_chart(m);
    auto root = parse_xml(doc.standalone());
    EXPECT_EQ(root->by_class("sweep-curve").size(), 0u);
    ASSERT_EQ(doc.notes().size(), 1u);
    EXPECT_NE(doc.notes()[0].find("no bandwidth sweep"), std::string::npos);

    m = test::fixture_machine();
    m.sweep[0].gbs.median = 0;
    m.sweep[1].working_set_bytes = 0;
    doc = report::bandwidth_chart(m);
    root = parse_xml(doc.standalone());
    EXPECT_EQ(root->by_class("sweep-point").size(), 49u);
    ASSERT_EQ(doc.notes().size(), 1u);
    EXPECT_NE(doc.notes()[0].find("2 sweep points omitted"), std::string::npos);
}

TEST(BandwidthChart, MachineWithoutTopologyUsesLevelSizes) {
    auto m = test::fixture_machine();
    m.topology.reset();
    const auto root = parse_xml(report::bandwidth_chart(m).standalone());
    // Levels L1, L2, L3 carry size_bytes in the fixture; MEM has none.
    EXPECT_EQ(root->by_class("cache-size").size(), 3u);
}
