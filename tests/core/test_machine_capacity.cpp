// The machine file's stream_capacity section and topology.tlb / huge_pages: round trip through YAML
// and JSON, one-line errors naming the field, old files without the sections, and the helpers
// (fraction_at, stream_capacity_of, tlb_reach) on hand-computed values.
#include "core/error.hpp"
#include "core/machine.hpp"
#include "test_inputs.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace roofcast::core;

namespace {

using roofcast::test::machine_from;

std::string capacity_error_of(const std::string& text) {
    return roofcast::test::input_error_of([&] { machine_from(text); });
}

const std::string k_head = "format_version: 1\nname: x\ncompute: {peak_gflops: {double: 1}}\n"
                           "levels: [{name: MEM, bandwidth_gbs: 1}]\n";

StreamCapacity capacity_of(std::vector<std::pair<int, double>> pts) {
    StreamCapacity s;
    s.level = "MEM";
    s.access = "read";
    for (const auto& [streams, gbs] : pts)
        s.points.push_back({streams, *summarize({gbs})});
    return s;
}

} // namespace

TEST(MachineStreamCapacity, OldFilesLoadWithoutTheSections) {
    const Machine m = machine_from(roofcast::test::k_published_machine);
    EXPECT_TRUE(m.stream_capacity.empty());
    EXPECT_EQ(m.stream_capacity_of("MEM", "read"), nullptr);
    EXPECT_EQ(machine_to_yaml(m).find("stream_capacity"), std::string::npos);
}

TEST(MachineStreamCapacity, RoundTripYamlAndJson) {
    Machine m = machine_from(roofcast::test::k_published_machine);
    Topology t;
    t.cpu_model = "Test CPU";
    t.cores = 2;
    t.tlb = {{"L1d", 72, 4096, std::nullopt}, {"L2", 3072, 4096, 12}, {"L2", 1024, 2u << 20, 12}};
    t.huge_pages = "madvise";
    m.topology = t;
    StreamCapacity s = capacity_of({{1, 20.0}, {2, 30.0}, {8, 28.0}});
    s.points[0].gbs = *summarize({19.0, 20.0, 21.5});
    s.threads = 2;
    s.working_set_bytes = 1073741824;
    s.capacity = 8;
    m.stream_capacity.push_back(s);
    StreamCapacity w = capacity_of({{1, 10.0}, {4, 9.0}});
    w.level = "L3";
    w.access = "write";
    w.working_set_bytes = 8u << 20;
    m.stream_capacity.push_back(w);

    const std::string yaml = machine_to_yaml(m);
    const Machine r = machine_from(yaml);
    EXPECT_EQ(machine_to_yaml(r), yaml);
    ASSERT_EQ(r.stream_capacity.size(), 2u);
    const StreamCapacity* mem = r.stream_capacity_of("MEM", "read");
    ASSERT_NE(mem, nullptr);
    EXPECT_EQ(mem->threads, 2);
    EXPECT_EQ(mem->working_set_bytes, 1073741824u);
    EXPECT_EQ(mem->capacity, 8);
    ASSERT_EQ(mem->points.size(), 3u);
    EXPECT_EQ(mem->points[0].gbs.samples.size(), 3u);
    EXPECT_DOUBLE_EQ(mem->points[0].gbs.median, 20.0);
    EXPECT_EQ(r.stream_capacity_of("L3", "write")->capacity, std::nullopt);
    EXPECT_EQ(r.stream_capacity_of("L3", "read"), nullptr);
    ASSERT_EQ(r.topology->tlb.size(), 3u);
    EXPECT_EQ(r.topology->tlb[0].associativity, std::nullopt);
    EXPECT_EQ(r.topology->tlb[2].page_bytes, 2u << 20);
    EXPECT_EQ(r.topology->huge_pages, "madvise");

    const auto j = machine_to_json(r);
    EXPECT_EQ(j["stream_capacity"][0]["points"][1]["streams"].get<double>(), 2.0);
    EXPECT_EQ(j["topology"]["tlb"][1]["entries"].get<double>(), 3072.0);
    EXPECT_EQ(machine_to_yaml(machine_from_json(j, "results.json")), yaml);
}

TEST(MachineStreamCapacity, BadValuesNameTheField) {
    const std::string ok_point = "{streams: 1, gbs: 10}";
    auto section = [&](const std::string& entry) { return k_head + "stream_capacity:\n  - " + entry + "\n"; };
    auto entry = [](const std::string& access, const std::string& points) {
        return "{level: MEM, access: " + access + ", threads: 2, working_set_bytes: 1GiB, points: [" +
               points + "]}";
    };
    EXPECT_EQ(machine_from(section(entry("read", ok_point))).stream_capacity.size(), 1u);
    auto expect = [&](const std::string& text, const std::string& field, const std::string& what) {
        const std::string e = capacity_error_of(text);
        EXPECT_NE(e.find("m.yaml"), std::string::npos) << e;
        EXPECT_NE(e.find(field), std::string::npos) << e;
        EXPECT_NE(e.find(what), std::string::npos) << e;
    };
    expect(section(entry("copy", ok_point)), "stream_capacity[0].access", "read, write");
    expect(section(entry("read", "{streams: 0, gbs: 10}")), "stream_capacity[0].points[0].streams",
           "streams >= 1");
    expect(section(entry("read", "{streams: 2, gbs: 0}")), "stream_capacity[0].points[0].gbs", "positive");
    expect(section(entry("read", "{streams: 2, gbs: -4}")), "stream_capacity[0].points[0].gbs", "positive");
    expect(section(entry("read", "{streams: 2, gbs: 1}, {streams: 2, gbs: 1}")),
           "stream_capacity[0].points[1].streams", "increasing");
    expect(section(entry("read", "")), "stream_capacity[0].points", "at least one point");
    expect(section("{level: MEM, access: read, threads: 0, working_set_bytes: 1GiB, points: [" + ok_point +
                   "]}"),
           "stream_capacity[0].threads", ">= 1");
    expect(section("{level: MEM, access: read, threads: 1, working_set_bytes: 1GiB, capacity: 0, points: [" +
                   ok_point + "]}"),
           "stream_capacity[0].capacity", ">= 1");
    expect(k_head + "stream_capacity:\n  - " + entry("read", ok_point) + "\n  - " + entry("read", ok_point) +
               "\n",
           "stream_capacity[1].access", "duplicate");
    const std::string topo = "topology: {cores: 2, ";
    expect(k_head + topo + "tlb: [{level: L3, entries: 4}]}\n", "topology.tlb[0].level", "L1d, L2");
    expect(k_head + topo + "tlb: [{level: L2, entries: 0}]}\n", "topology.tlb[0].entries", ">= 1");
    expect(k_head + topo + "tlb: [{level: L2, entries: 8, page_bytes: 3000}]}\n",
           "topology.tlb[0].page_bytes", "power of two");
    expect(k_head + topo + "huge_pages: sometimes}\n", "topology.huge_pages", "always, madvise, never");
}

TEST(MachineStreamCapacity, FractionAtInterpolatesRelativeToTheBestPoint) {
    EXPECT_EQ(StreamCapacity{}.fraction_at(4), std::nullopt);
    const StreamCapacity s = capacity_of({{1, 20.0}, {2, 40.0}, {4, 40.0}, {8, 30.0}});
    EXPECT_DOUBLE_EQ(*s.fraction_at(1), 0.5);
    EXPECT_DOUBLE_EQ(*s.fraction_at(2), 1.0);
    EXPECT_DOUBLE_EQ(*s.fraction_at(6), 0.875); // halfway between 40 and 30 GB/s
    EXPECT_DOUBLE_EQ(*s.fraction_at(8), 0.75);
    EXPECT_DOUBLE_EQ(*s.fraction_at(64), 0.75); // beyond the last point: its value
    EXPECT_DOUBLE_EQ(*s.fraction_at(0), 0.5);   // below the first: its value
}

TEST(MachineStreamCapacity, UpperFractionTakesThePointsRangesInTheCountsFavour) {
    EXPECT_EQ(StreamCapacity{}.upper_fraction_at(4), std::nullopt);
    // Medians 36, 34, 44 GB/s at 1, 4 and 16 streams; ranges 33-40, 32-42 and 40-50 GB/s.
    StreamCapacity s;
    s.level = "MEM";
    s.access = "read";
    s.points = {{1, *summarize({33.0, 36.0, 40.0})},
                {4, *summarize({32.0, 34.0, 42.0})},
                {16, *summarize({40.0, 44.0, 50.0})}};
    EXPECT_DOUBLE_EQ(*s.fraction_at(4), 34.0 / 44.0);       // below 85 % by the medians
    EXPECT_DOUBLE_EQ(*s.upper_fraction_at(4), 42.0 / 40.0); // but the ranges overlap the best's
    EXPECT_DOUBLE_EQ(*s.upper_fraction_at(10), (42.0 + 0.5 * (50.0 - 42.0)) / 40.0);
    EXPECT_DOUBLE_EQ(*s.upper_fraction_at(1), 40.0 / 40.0);
    // Tight ranges: the shortfall stays.
    const StreamCapacity t = capacity_of({{1, 20.0}, {2, 40.0}});
    EXPECT_DOUBLE_EQ(*t.upper_fraction_at(1), 0.5);
}

TEST(MachineTopology, TlbReachOfTheLargestLevel) {
    Topology t;
    EXPECT_EQ(t.tlb_reach(), std::nullopt);
    t.tlb = {{"L1d", 72, 4096, std::nullopt}, {"L2", 3072, 4096, 12}, {"L2", 1024, 2u << 20, 12}};
    EXPECT_EQ(t.tlb_reach(), std::uint64_t{3072} * 4096);
    EXPECT_EQ(t.tlb_reach(2u << 20), std::uint64_t{1024} * (2u << 20));
    EXPECT_EQ(t.tlb_reach(1u << 30), std::nullopt);
}
