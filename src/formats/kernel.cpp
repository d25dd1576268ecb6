// roofcast's kernel file (YAML, docs/formats.md): recognised by its 'flops_per_iteration'.
#include "model/kernel.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_kernel(const Input& in) {
    return yaml_with_key(in, "flops_per_iteration") && !yaml_with_key(in, "levels") &&
           !yaml_with_key(in, "compute");
}

} // namespace

extern constinit const FormatReader kernel_format{"kernel", "kernel file", "data/kernels/triad.yaml",
                                                  sniff_kernel, yaml_document<kernel_from_yaml>};

} // namespace roofcast::model::formats
