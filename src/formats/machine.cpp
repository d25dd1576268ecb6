// roofcast's machine file (YAML, docs/formats.md): recognised by its 'compute' or 'levels' section.
#include "core/machine.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_machine(const Input& in) {
    return yaml_with_key(in, "levels") || yaml_with_key(in, "compute");
}

Document read_machine_document(const Input& in, std::vector<std::string>* unread) {
    // A fresh parse: the record of the keys read must be this reader's alone.
    const core::YamlField root = core::YamlField::load_text(in.text(), in.path());
    core::Machine m = core::machine_from_yaml(root);
    if (unread)
        *unread = root.unread_keys();
    return m;
}

} // namespace

const FormatReader& machine_format() {
    static const FormatReader f{"machine",     "machine file",        "data/machines/example-caches.yaml",
                                sniff_machine, read_machine_document, nullptr};
    return f;
}

} // namespace roofcast::model::formats
