// roofcast's kernel file (YAML, docs/formats.md): recognised by its 'flops_per_iteration'.
#include "model/kernel.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_kernel(const Input& in) {
    return yaml_with_key(in, "flops_per_iteration") && !yaml_with_key(in, "levels") &&
           !yaml_with_key(in, "compute");
}

Document read_kernel_document(const Input& in, std::vector<std::string>* unread) {
    const core::YamlField root = core::YamlField::load_text(in.text(), in.path());
    KernelSpec k = kernel_from_yaml(root);
    if (unread)
        *unread = root.unread_keys();
    return k;
}

} // namespace

const FormatReader& kernel_format() {
    static const FormatReader f{"kernel",     "kernel file",        "data/kernels/triad.yaml",
                                sniff_kernel, read_kernel_document, nullptr};
    return f;
}

} // namespace roofcast::model::formats
