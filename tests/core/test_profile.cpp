// The roofcast profile file (version 2): round trip, version-1 compatibility and rejected input.
#include "core/error.hpp"
#include "core/profile.hpp"
#include "test_inputs.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>

namespace roofcast::core {
namespace {

Profile sample() {
    return test::full_profile();
}

TEST(Profile, RoundTripsThroughJson) {
    const Profile p = sample();
    const Profile q = profile_from_json(profile_to_json(p), "mem");
    EXPECT_EQ(q.format_version, 3);
    EXPECT_EQ(q.parameters, p.parameters);
    EXPECT_EQ(q.backend, "cachegrind");
    EXPECT_EQ(q.ranks, 2);
    EXPECT_EQ(*q.wall_seconds, 1.5);
    EXPECT_EQ(*q.cpu_seconds, 2.75);
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
    bad([](auto& k) { k["format_version"] = 4; });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["origin"] = "guessed"; });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"].erase("origin"); });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["aggregate"] = "median"; });
    bad([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["per_rank"] = nlohmann::json::array(); });
    bad([](auto& k) { k["parameters"] = nlohmann::json::object(); });
    bad([](auto& k) { k["run"]["wall_seconds"] = -1; });
    bad([](auto& k) { k.erase("backend"); });
}

// what() of reading `j` as a profile; "(no error)" when it is accepted.
std::string profile_error_of(const nlohmann::json& j) {
    try {
        (void)profile_from_json(j, "p.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Profile, NumericFieldsHaveRanges) {
    // docs/formats-profile.md, "Ranges": one line naming the file, the field and the range.
    const auto j = profile_to_json(sample());
    const auto with = [&](auto edit) {
        auto k = j;
        edit(k);
        return profile_error_of(k);
    };
    EXPECT_EQ(with([](auto& k) { k["run"]["wall_seconds"] = 2e7; }),
              "p.json: field 'run.wall_seconds': expected a positive number at most 1e+07, got 20000000");
    EXPECT_EQ(with([](auto& k) { k["run"]["cores"] = 0; }),
              "p.json: field 'run.cores': expected a positive number at most 1.07374e+09, got 0");
    EXPECT_EQ(with([](auto& k) { k["run"]["cpu_seconds"] = -1; }),
              "p.json: field 'run.cpu_seconds': expected a non-negative number at most 1.07374e+16, got -1");
    EXPECT_EQ(with([](auto& k) { k["run"]["repetitions"] = 1001; }),
              "p.json: field 'run.repetitions': expected a whole number from 1 to 1000, got 1001");
    EXPECT_EQ(with([](auto& k) { k["run"]["exit_status"] = 256; }),
              "p.json: field 'run.exit_status': expected a whole number from 0 to 255, got 256");
    EXPECT_EQ(with([](auto& k) { k["parameters"]["ranks"] = 1e300; }),
              "p.json: field 'parameters.ranks': expected a finite number of magnitude at most 2^63 = "
              "9.22337e+18, got 1e+300");
    EXPECT_EQ(
        with([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["per_rank"][1][0] = -3; }),
        "p.json: field 'functions[0].metrics.L1_DCM.per_rank[1]': expected a number from 0 to 1e+30 (or "
        "\"nan\"), got -3");
    EXPECT_EQ(
        with([](auto& k) {
            k["functions"][0]["metrics"]["L1_DCM"]["repetitions"] = nlohmann::json::array({1});
        }),
        "p.json: field 'functions[0].metrics.L1_DCM': expected either 'repetitions' or 'per_rank', not both");
    EXPECT_EQ(with([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["aggregate"] = 3; }),
              "p.json: field 'functions[0].metrics.L1_DCM.aggregate': expected a string");
    // NaN is a value that was not measured: read, then dropped by the readers that reduce the ranks.
    EXPECT_EQ(with([](auto& k) { k["functions"][0]["metrics"]["L1_DCM"]["per_rank"][1][0] = "nan"; }),
              "(no error)");
}

TEST(Profile, KeysTheFormatDoesNotReadAreNamedWithTheirPath) {
    auto j = profile_to_json(sample());
    std::vector<std::string> unread{"stale"};
    (void)profile_from_json(j, "p.json", &unread);
    EXPECT_EQ(unread, std::vector<std::string>{}) << "what roofcast writes is all part of the format";
    j["functions"][0]["knd"] = "region";
    j["functions"][0]["metrics"]["L1_DCM"]["orign"] = "counted";
    j["run"]["walltime"] = 3;
    (void)profile_from_json(j, "p.json", &unread);
    EXPECT_EQ(unread, (std::vector<std::string>{"functions[0].knd", "functions[0].metrics.L1_DCM.orign",
                                                "run.walltime"}));
    // Version 1 has no backend: a version-1 file that carries one is told so.
    auto v1 = nlohmann::json::parse(R"({"format": "roofcast-profile", "format_version": 1, "backend": "time",
        "parameters": {"cores": 8}, "functions": [{"name": "f", "metrics": {"time": {"repetitions": [1]}}}]})");
    (void)profile_from_json(v1, "p.json", &unread);
    EXPECT_EQ(unread, std::vector<std::string>{"backend"});
}

// What roofcast writes, its reader accepts: values out of range become NaN with one warning per metric,
// times out of range are left out, counts a profile cannot hold are refused before anything is written.
TEST(ProfileWrite, OutOfRangeValuesBecomeNotMeasuredWithOneWarningPerMetric) {
    Profile p = sample();
    auto& m = p.functions[0].metrics.at("L1_DCM");
    m.per_rank = {{1e300, 2}, {std::numeric_limits<double>::infinity(), -4}};
    ProfileFunction g{std::string(1000, 'g'), "region", {{"flops", m}}};
    p.functions.push_back(g);
    p.wall_seconds = std::numeric_limits<double>::infinity();
    const auto added = fit_profile_to_format(p);
    ASSERT_EQ(added.size(), 3u);
    EXPECT_NE(added[0].find("wall time inf s"), std::string::npos) << added[0];
    EXPECT_NE(added[1].find("3 value(s) of 'L1_DCM' in 1 function"), std::string::npos) << added[1];
    EXPECT_NE(added[1].find("first: 1e+300 in 'main->dot'"), std::string::npos) << added[1];
    EXPECT_LT(added[2].size(), 400u) << "a long name is cut in the warning";
    EXPECT_TRUE(std::isnan(p.functions[0].metrics.at("L1_DCM").per_rank[0][0]));
    EXPECT_EQ(p.functions[0].metrics.at("L1_DCM").per_rank[0][1], 2);
    EXPECT_FALSE(p.wall_seconds);
    const Profile q = profile_from_text(profile_file_text(p, "out.json"), "out.json");
    EXPECT_EQ(q.functions.size(), 2u);
}

TEST(ProfileWrite, CountsAProfileCannotHoldAreRefused) {
    Profile p = sample();
    p.threads = 2000000000;
    p.cores = 2.0 * p.threads;
    EXPECT_THROW(fit_profile_to_format(p), Error);
    p = sample();
    p.cores = 2e9;
    EXPECT_THROW(fit_profile_to_format(p), Error);
    p = sample();
    p.parameters = {{"n", 1e300}};
    EXPECT_THROW(fit_profile_to_format(p), Error);
    p = sample();
    p.functions.resize(k_profile_max_functions + 1, p.functions[0]);
    EXPECT_THROW(fit_profile_to_format(p), Error);
}

TEST(ProfileWrite, NamesThatAreNotUtf8AreWrittenAsValidJson) {
    Profile p = sample();
    p.functions[0].name = "f\xff\xfe\x1b[31m";
    const std::string text = profile_file_text(p, "out.json");
    EXPECT_EQ(profile_from_text(text, "out.json").functions[0].name, "f\xEF\xBF\xBD\xEF\xBF\xBD\x1b[31m");
    p.functions[0].metrics.at("L1_DCM").per_rank[0][0] = -1; // not fitted first: refused, not written
    EXPECT_THROW(profile_file_text(p, "out.json"), Error);
}

} // namespace
} // namespace roofcast::core
