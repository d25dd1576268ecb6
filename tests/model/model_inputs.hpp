// Kernel files read from YAML text, beside the shared helpers of test_inputs.hpp.
#pragma once

#include "model/kernel.hpp"
#include "test_inputs.hpp"

#include <string>

namespace roofcast::test {

inline model::KernelSpec kernel_from(const std::string& text) {
    return model::kernel_from_yaml(core::YamlField::load_text(text, "k.yaml"));
}

} // namespace roofcast::test
