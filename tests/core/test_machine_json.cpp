// machine_to_json writes the machine's one tree (core/machine_write.cpp) as JSON; it must carry what the form
// carried when it was the YAML text converted back (the reference below, kept here as the specification): the
// same keys, the same value types (every number a float), and the same numbers up to the YAML text's 6
// significant digits.
#include "core/machine.hpp"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <yaml-cpp/yaml.h>

namespace roofcast::core {
namespace {

using nlohmann::json;

// The former machine_to_json: the YAML document read back, every scalar that parses whole as a number
// taken as a double.
json via_yaml(const Machine& m) {
    const YAML::Node n = YAML::Load(machine_to_yaml(m));
    std::function<json(const YAML::Node&)> conv = [&](const YAML::Node& y) -> json {
        if (y.IsMap()) {
            json j = json::object();
            for (const auto& kv : y)
                j[kv.first.as<std::string>()] = conv(kv.second);
            return j;
        }
        if (y.IsSequence()) {
            json j = json::array();
            for (const auto& e : y)
                j.push_back(conv(e));
            return j;
        }
        if (y.IsNull())
            return nullptr;
        const std::string& s = y.Scalar();
        if (s == "true" || s == "false")
            return s == "true";
        try {
            std::size_t used = 0;
            const double d = std::stod(s, &used);
            if (used == s.size())
                return d;
        } catch (const std::logic_error&) {
        }
        return s;
    };
    return conv(n);
}

// Same keys, same types, numbers within the YAML emitter's 6 significant digits.
void expect_same(const json& old_form, const json& new_form, const std::string& where) {
    ASSERT_EQ(old_form.type_name(), std::string(new_form.type_name())) << where;
    ASSERT_EQ(old_form.is_number_float(), new_form.is_number_float()) << where;
    if (old_form.is_object()) {
        ASSERT_EQ(old_form.size(), new_form.size())
            << where << ": " << old_form.dump() << " vs " << new_form.dump();
        for (const auto& [k, v] : old_form.items()) {
            ASSERT_TRUE(new_form.contains(k)) << where << "." << k;
            expect_same(v, new_form.at(k), where + "." + k);
        }
    } else if (old_form.is_array()) {
        ASSERT_EQ(old_form.size(), new_form.size()) << where;
        for (std::size_t i = 0; i < old_form.size(); ++i)
            expect_same(old_form[i], new_form[i], where + "[" + std::to_string(i) + "]");
    } else if (old_form.is_number()) {
        const double a = old_form.get<double>(), b = new_form.get<double>();
        EXPECT_LE(std::fabs(a - b), 5e-6 * std::fabs(b)) << where << ": " << a << " vs " << b;
    } else {
        EXPECT_EQ(old_form, new_form) << where;
    }
}

class MachineJson : public ::testing::TestWithParam<std::string> {};

TEST_P(MachineJson, BuiltFromTheDataAsTheYamlFormWas) {
    const Machine m = load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/" + GetParam());
    const json built = machine_to_json(m);
    expect_same(via_yaml(m), built, "machine");
    // And the form reads back to the same machine.
    EXPECT_EQ(machine_to_yaml(machine_from_json(built, "test")), machine_to_yaml(m));
}

INSTANTIATE_TEST_SUITE_P(ShippedFiles, MachineJson,
                         ::testing::Values("data/machines/example-caches.yaml",
                                           "data/machines/example-published.yaml",
                                           "tests/report/data/machine.yaml"));

TEST(MachineJson, EveryOptionalPartOfAMeasuredMachine) {
    Machine m = load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/tests/report/data/machine.yaml");
    MpiFigures f;
    f.source = Provenance::measured;
    f.placement = "2 ranks on one node";
    f.library = "Open MPI 4.1.4";
    f.latency_s = Summary{};
    f.latency_s->median = f.latency_s->min = f.latency_s->max = 1.25e-6;
    f.latency_s->n = 3;
    f.alpha_s = 1.1e-6;
    f.beta_gbs = 9.5;
    f.points.push_back({64, *f.latency_s});
    m.mpi = f;
    m.tsc_ghz = 2.5;
    m.overlap_exponent = 2.0;
    m.notes.push_back("a note");
    m.measurement_revision = 8;
    m.topology->vendor = "GenuineIntel";
    m.topology->family = 6;
    m.topology->model_number = 143;
    m.topology->stepping = 8;
    expect_same(via_yaml(m), machine_to_json(m), "machine");
}

} // namespace
} // namespace roofcast::core
