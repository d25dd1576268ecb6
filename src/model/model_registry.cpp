#include "model/model.hpp"

#include <algorithm>

namespace roofcast::model {

// Each model's instance, defined in its own model_<name>.cpp.
const Model& roofline_model();
const Model& hierarchical_model();
const Model& cache_aware_model();
const Model& mixed_model();

const std::vector<const Model*>& model_registry() {
    // Table order. A new model: its declaration above and one entry here.
    static const std::vector<const Model*> k_models{&roofline_model(), &hierarchical_model(),
                                                    &cache_aware_model(), &mixed_model()};
    return k_models;
}

const Model* find_model(std::string_view name) {
    const auto& all = model_registry();
    const auto it = std::find_if(all.begin(), all.end(), [&](const Model* m) { return m->name() == name; });
    return it == all.end() ? nullptr : *it;
}

const std::vector<std::string>& model_names() {
    static const std::vector<std::string> k_names = [] {
        std::vector<std::string> names;
        for (const Model* m : model_registry())
            names.emplace_back(m->name());
        return names;
    }();
    return k_names;
}

} // namespace roofcast::model
