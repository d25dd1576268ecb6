// Fuzz target: the kernel file (explicit bytes, array counts or loop nest), read, checked and its traffic
// derived on the shipped example machine, as `roofcast predict` does.
#include "core/doc.hpp"
#include "core/machine.hpp"
#include "fuzz_reader.hpp"
#include "model/kernel.hpp"

void read_input(const std::string& text) {
    using namespace roofcast;
    static const core::Machine machine =
        core::load_machine(ROOFCAST_SOURCE_DIR "/data/machines/example-caches.yaml");
    const auto spec = model::kernel_from_yaml(core::YamlField::load_text(text, "fuzz.yaml"));
    model::check_kernel(spec);
    (void)model::derive_traffic(spec, machine, 1);
}
