#include "model/model.hpp"

#include "core/units.hpp"

#include <fmt/format.h>

namespace roofcast::model {

namespace {

// Hierarchical roofline (one roof per memory level, each with its own intensity; e.g. Yang, Kurth &
// Williams, "Hierarchical Roofline analysis for GPUs", CCPE 2020, Sect. 2):
// P = min(P_peak, min_level B_level * I_level).
ModelDetail hierarchical(const ModelContext& c) {
    ModelDetail d;
    d.prediction.model = "hierarchical";
    d.peak_gflops = c.peak;
    d.compute = compute_roof(c, false);
    for (const auto& lv : c.m.levels)
        d.prediction.terms.push_back(term_for(c, lv, false, true));
    finish(d, c);
    return d;
}

class Hierarchical final : public Model {
public:
    std::string_view name() const override { return "hierarchical"; }
    std::string_view formula() const override {
        return "P = min(P_peak, min over levels of B_level x I_level)";
    }
    std::string_view caption() const override { return "one roof per memory level"; }
    int summary_rank() const override { return 1; }
    ModelDetail analyse(const ModelContext& c) const override { return hierarchical(c); }
};

} // namespace

const Model& hierarchical_model() {
    static const Hierarchical k_model;
    return k_model;
}

} // namespace roofcast::model
