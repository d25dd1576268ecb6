#include "model/model.hpp"

#include <algorithm>

namespace roofcast::model {

// Each model, defined in its own model_<name>.cpp.
extern const Model k_roofline_model, k_hierarchical_model, k_cache_aware_model, k_mixed_model;

const std::vector<const Model*>& model_registry() {
    // Table order. A new model: its declaration above and one entry here.
    static const std::vector<const Model*> k_models{&k_roofline_model, &k_hierarchical_model,
                                                    &k_cache_aware_model, &k_mixed_model};
    return k_models;
}

const Model* find_model(std::string_view name) {
    const auto& all = model_registry();
    const auto it = std::find_if(all.begin(), all.end(), [&](const Model* m) { return m->name == name; });
    return it == all.end() ? nullptr : *it;
}

std::vector<const Model*> summary_order() {
    std::vector<const Model*> ms = model_registry();
    std::stable_sort(ms.begin(), ms.end(),
                     [](const Model* a, const Model* b) { return a->summary_rank < b->summary_rank; });
    return ms;
}

const core::Prediction* summary_prediction(const core::KernelResult& k,
                                           bool (*usable)(const core::Prediction&)) {
    for (const Model* m : summary_order())
        for (const auto& p : k.predictions)
            if (p.model == m->name && (!usable || usable(p)))
                return &p;
    return nullptr;
}

const std::vector<std::string>& model_names() {
    static const std::vector<std::string> k_names = [] {
        std::vector<std::string> names;
        for (const Model* m : model_registry())
            names.emplace_back(m->name);
        return names;
    }();
    return k_names;
}

} // namespace roofcast::model
