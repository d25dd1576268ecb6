// The roofcast profile file (version 2): round trip, version-1 compatibility and rejected input.
#include "core/error.hpp"
#include "core/profile.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace roofcast::core {
namespace {

Profile sample() {
    Profile p;
    p.parameters = {{"ranks", 2}};
    p.backend = "cachegrind";
    p.backend_reason = "requested";
    p.ranks = 2;
    p.wall_seconds = 1.5;
    p.cores = 2;
    p.exit_status = 0;
    p.command = {"./app", "--n", "10"};
    p.settings["caches"] = "D1 49152 B";
    p.warnings = {"a warning"};
    ProfileFunction f{"main->dot", "region", {}};
    ProfileMetric m;
    m.origin = MetricOrigin::simulated;
    m.aggregate = "sum";
    m.unit = "count";
    m.per_rank = {{1, 2}, {3, 4}};
    f.metrics["L1_DCM"] = m;
    p.functions.push_back(f);
    return p;
}

TEST(Profile, RoundTripsThroughJson) {
    const Profile p = sample();
    const Profile q = profile_from_json(profile_to_json(p), "mem");
    EXPECT_EQ(q.format_version, 2);
    EXPECT_EQ(q.parameters, p.parameters);
    EXPECT_EQ(q.backend, "cachegrind");
    EXPECT_EQ(q.ranks, 2);
    EXPECT_EQ(*q.wall_seconds, 1.5);
    EXPECT_EQ(q.command, p.command);
    EXPECT_EQ(q.settings, p.settings);
    EXPECT_EQ(q.warnings, p.warnings);
    ASSERT_EQ(q.functions.size(), 1u);
    const auto& m = q.functions[0].metrics.at("L1_DCM");
    EXPECT_EQ(m.origin, MetricOrigin::simulated);
    EXPECT_EQ(m.per_rank, (std::vector<std::vector<double>>{{1, 2}, {3, 4}}));
    EXPECT_EQ(m.reduced(1), 7);
    EXPECT_EQ(m.reduced_mean(), 5);
}

TEST(Profile, ReadsVersionOneWithoutOrigins) {
    const auto j = nlohmann::json::parse(R"({"format":"roofcast-profile","format_version":1,
      "parameters":{"cores":8},"functions":[{"name":"f","metrics":{"time":{"repetitions":[1,3]}}}]})");
    const Profile p = profile_from_json(j, "v1");
    EXPECT_EQ(p.format_version, 1);
    EXPECT_EQ(p.functions[0].metrics.at("time").origin, MetricOrigin::counted);
    EXPECT_EQ(p.functions[0].metrics.at("time").reduced_mean(), 2);
}

TEST(Profile, RejectsBadFields) {
    auto j = profile_to_json(sample());
    auto bad = [&](auto edit) {
        auto k = j;
        edit(k);
        EXPECT_THROW(profile_from_json(k, "f"), InputError) << k.dump();
    };
    bad([](auto& k) { k["format_version"] = 3; });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["origin"] = "guessed"; });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"].erase("origin"); });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["aggregate"] = "median"; });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["per_rank"] = nlohmann::json::array(); });
    bad([](auto& k) { k["parameters"] = nlohmann::json::object(); });
    bad([](auto& k) { k["run"]["wall_seconds"] = -1; });
    bad([](auto& k) { k.erase("backend"); });
}

} // namespace
} // namespace roofcast::core
