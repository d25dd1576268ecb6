#include "model/model.hpp"

#include "core/units.hpp"

#include <fmt/format.h>

namespace roofcast::model {

namespace {

// Hierarchical roofline (one roof per memory level, each with its own intensity; e.g. Yang, Kurth &
// Williams, "Hierarchical Roofline analysis for GPUs", CCPE 2020, Sect. 2):
// P = min(P_peak, min_level B_level * I_level).
ModelDetail hierarchical(const ModelContext& c) {
    ModelDetail d = start_detail(c, "hierarchical", false);
    for (const auto& lv : c.m.levels)
        d.prediction.terms.push_back(term_for(c, lv, false, true));
    finish(d, c);
    return d;
}

} // namespace

extern const Model k_hierarchical_model{"hierarchical",
                                        "P = min(P_peak, min over levels of B_level x I_level)",
                                        "one roof per memory level",
                                        1,
                                        hierarchical,
                                        explain_roofs};

} // namespace roofcast::model
