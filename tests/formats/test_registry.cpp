// The format registry (src/formats): every registered format recognises its sample and no other format
// claims it, every format file has its registry line, and the commands' recognition rules hold.
#include "formats/format.hpp"
#include "test_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>

namespace roofcast::model::formats {
namespace {

using roofcast::test::input_error_of;
namespace fs = std::filesystem;

std::string names(const std::vector<const FormatReader*>& v) {
    std::string out;
    for (const auto* f : v)
        out += std::string(out.empty() ? "" : ", ") + std::string(f->name);
    return out.empty() ? "(none)" : out;
}

TEST(FormatRegistry, EverySampleIsClaimedByItsFormatAlone) {
    std::set<std::string_view> seen;
    ASSERT_FALSE(registry().empty());
    for (const auto& f : registry()) {
        SCOPED_TRACE(std::string(f.name));
        EXPECT_TRUE(seen.insert(f.name).second) << "two formats named " << f.name;
        ASSERT_FALSE(f.label.empty());
        if (!f.read) { // written only
            EXPECT_TRUE(f.write_profile || f.write_dataset) << "a format is read, written or both";
            EXPECT_EQ(f.sniff, nullptr);
            continue;
        }
        ASSERT_NE(f.sniff, nullptr);
        ASSERT_FALSE(f.sample.empty()) << "a format needs a sample file for this test";
        const std::string path = std::string(ROOFCAST_SOURCE_DIR) + "/" + std::string(f.sample);
        ASSERT_TRUE(fs::exists(path)) << path;
        const Input in = Input::open(path);
        const auto claimed = claims(in);
        ASSERT_EQ(claimed.size(), 1u) << f.sample << " is claimed by " << names(claimed);
        EXPECT_EQ(claimed[0], &f) << f.sample << " is claimed by " << names(claimed);
        EXPECT_EQ(detect(in), &f);
        EXPECT_EQ(find(f.name), &f);
        std::vector<std::string> unread;
        EXPECT_NO_THROW((void)f.read(in, &unread));
        EXPECT_TRUE(unread.empty()) << f.sample << ": unread key " << (unread.empty() ? "" : unread[0]);
        if (f.dataset) {
            EXPECT_FALSE(f.dataset(in, nullptr).series.empty());
        }
    }
}

// A format is one file and one registry line: a file here whose format is not registered (or named
// otherwise than its file) is a forgotten line.
TEST(FormatRegistry, EveryFormatFileIsRegistered) {
    const fs::path dir = fs::path(ROOFCAST_SOURCE_DIR) / "src/formats";
    const std::set<std::string> infrastructure = {"format.hpp", "input.cpp", "registry.cpp"};
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string file = e.path().filename().string();
        if (infrastructure.count(file) || e.path().extension() != ".cpp")
            continue;
        ++files;
        std::string name = e.path().stem().string();
        std::replace(name.begin(), name.end(), '_', '-');
        EXPECT_NE(find(name), nullptr)
            << file << " defines a format that registry.cpp does not list as '" << name << "'";
    }
    EXPECT_EQ(files, registry().size());
}

TEST(FormatRegistry, RecognitionRules) {
    // Roofcast's own JSON by its tag; Extra-P JSON by its measurements; text formats by extension or content.
    EXPECT_EQ(detect(Input::from_text(R"({"measurements": {}})", "a.json"))->name, "extrap-json");
    EXPECT_EQ(detect(Input::from_text("PARAMETER p\nPOINTS 1\n", "run.dat"))->name, "extrap-text");
    EXPECT_EQ(detect(Input::from_text("anything", "run.txt"))->name, "extrap-text");
    EXPECT_EQ(detect(Input::from_text("function,metric,p,value\n", "x"))->name, "csv");
    EXPECT_EQ(detect(Input::from_text("levels: []\n", "m.yaml"))->name, "machine");
    EXPECT_EQ(detect(Input::from_text("flops_per_iteration: 2\n", "k.yaml"))->name, "kernel");
    EXPECT_EQ(detect(Input::from_text("format: roofcast-profile\n", "p.yaml"))->name, "roofcast-profile");
    EXPECT_EQ(detect(Input::from_text(R"({"title": "other"})", "o.json")), nullptr);
    EXPECT_EQ(detect(Input::from_text("hello: world\n", "o.yaml")), nullptr);
    EXPECT_EQ(detect(Input::from_text(std::string("\x89PNG\0\0", 6), "i.png")), nullptr);
}

TEST(FormatRegistry, ScalingInputsOnly) {
    const std::string results = std::string(ROOFCAST_SOURCE_DIR) + "/tests/report/data/results.json";
    EXPECT_EQ(input_error_of([&] { (void)read_dataset(results); }),
              results + ": a results file, not a scaling input (expected roofcast profile, Extra-P JSON, "
                        "likwid-perfctr marker CSV, callgrind output, Extra-P text, CSV profile, TAU profile "
                        "directory, CUBE4 "
                        "profile, Score-P experiment directory)");
    const std::string csv = std::string(ROOFCAST_SOURCE_DIR) + "/data/profiles/two-param.csv";
    EXPECT_EQ(read_dataset(csv).parameters.size(), 2u);
}

} // namespace
} // namespace roofcast::model::formats
