// Fuzz target: measure::parse_objdump, the reader of `roofcast inspect` (objdump's disassembly text), with a
// prefix that every header in the fixtures matches and one that only OpenMP-outlined bodies match.
#include "fuzz_reader.hpp"
#include "measure/disasm.hpp"

void read_input(const std::string& text) {
    for (const char* prefix : {"d", "ns::run", "par"}) {
        const auto r = roofcast::measure::parse_objdump(text, prefix);
        for (const auto& l : r.loops)
            (void)(l.flops_per_pass(false) + l.vector_bits());
    }
}
