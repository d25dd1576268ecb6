// roofcast's machine file (YAML, docs/formats.md): recognised by its 'compute' or 'levels' section.
#include "core/machine.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_machine(const Input& in) {
    return yaml_with_key(in, "levels") || yaml_with_key(in, "compute");
}

} // namespace

extern constinit const FormatReader machine_format{"machine", "machine file",
                                                   "data/machines/example-caches.yaml", sniff_machine,
                                                   yaml_document<core::machine_from_yaml>};

} // namespace roofcast::model::formats
