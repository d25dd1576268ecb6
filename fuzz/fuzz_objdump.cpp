// Fuzz target: measure::parse_objdump, the reader of `roofcast inspect` (objdump's disassembly text), with a
// prefix that every header in the fixtures matches and one that only OpenMP-outlined bodies match; and the
// per-instruction reading of the counted profile (parse_objdump_instructions, instruction_work).
#include "fuzz_reader.hpp"
#include "measure/disasm.hpp"
#include "measure/instruction_work.hpp"

void read_input(const std::string& text) {
    for (const char* prefix : {"d", "ns::run", "par"}) {
        const auto r = roofcast::measure::parse_objdump(text, prefix);
        for (const auto& l : r.loops)
            (void)(l.flops_per_pass(false) + l.vector_bits());
    }
    for (const auto& ins : roofcast::measure::parse_objdump_instructions(text)) {
        const auto w = roofcast::measure::instruction_work(ins);
        (void)(w.flops_dp + w.flops_sp + w.load_bytes + w.store_bytes + w.rep_load_bytes);
    }
}
