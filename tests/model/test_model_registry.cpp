// The model registry: every model file registered once under its name, each model complete (formula,
// caption, analysis, explanation), and the summary order by summary_rank (docs/extending.md).
#include "model/model.hpp"
#include "model/predict.hpp"
#include "model_inputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

using namespace roofcast;

namespace {

TEST(ModelRegistry, EveryModelFileIsRegisteredOnceUnderItsName) {
    // A model is one file src/model/model_<name>.cpp (underscores for the name's dashes) and one registry
    // line.
    namespace fs = std::filesystem;
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(fs::path(ROOFCAST_SOURCE_DIR) / "src/model")) {
        std::string n = e.path().stem().string();
        if (n.rfind("model_", 0) != 0 || e.path().extension() != ".cpp" || n == "model_common" ||
            n == "model_registry")
            continue;
        n = n.substr(6);
        std::replace(n.begin(), n.end(), '_', '-');
        files.insert(n);
    }
    std::set<std::string> names;
    std::set<int> ranks;
    for (const model::Model* m : model::model_registry()) {
        EXPECT_TRUE(names.insert(std::string(m->name)).second) << m->name << " twice";
        EXPECT_TRUE(ranks.insert(m->summary_rank).second) << m->name << ": summary_rank shared";
        EXPECT_FALSE(m->formula.empty()) << m->name;
        EXPECT_FALSE(m->caption.empty()) << m->name;
        EXPECT_NE(m->analyse, nullptr) << m->name;
        EXPECT_NE(m->explain, nullptr) << m->name;
        EXPECT_EQ(model::find_model(m->name), m);
    }
    EXPECT_EQ(names, files);
    EXPECT_EQ(model::find_model("ecm"), nullptr);
}

TEST(ModelRegistry, SummaryOrderFollowsTheRanks) {
    const auto order = model::summary_order();
    ASSERT_EQ(order.size(), model::model_registry().size());
    for (std::size_t i = 1; i < order.size(); ++i)
        EXPECT_LT(order[i - 1]->summary_rank, order[i]->summary_rank);
}

TEST(ModelRegistry, EachModelExplainsItsOwnAnalysis) {
    // 43 flop per iteration over {MEM: 5, L2: 21, L1: 18} arrays of doubles on the published machine.
    const auto a = model::analyse(
        test::kernel_from("format_version: 1\nname: counts\nflops_per_iteration: 43\nelement_bytes: 8\n"
                          "arrays: {MEM: 5, L2: 21, L1_short: 12, L1_long: 6}\n"),
        test::machine_from(test::k_published_machine), {});
    ASSERT_EQ(a.models.size(), model::model_registry().size());
    for (const auto& d : a.models) {
        const model::Model* m = model::find_model(d.prediction.model);
        ASSERT_NE(m, nullptr);
        const std::string text = m->explain(d, a.flops_per_iteration);
        ASSERT_FALSE(text.empty()) << m->name;
        EXPECT_EQ(text.back(), '\n') << m->name;
        for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1)
            EXPECT_EQ(text.compare(at, 2, "  "), 0)
                << m->name << ": a line not indented: " << text.substr(at);
        // Each explanation shows the figure it arrives at, to the four digits the tables print.
        EXPECT_NE(text.find(model::explain_number(d.prediction.gflops)), std::string::npos)
            << m->name << text;
    }
}

} // namespace
