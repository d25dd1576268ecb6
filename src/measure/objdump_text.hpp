// The reading of `objdump -d --no-show-raw-insn -C` text (AT&T syntax, x86-64) that the static loop
// inspection (disasm.cpp) and the per-instruction work (instruction_work.cpp) share: one row as an
// instruction, a symbol header, which operands are memory, and what the destination of an instruction does
// with a memory operand. Internal to the measure layer; nothing here throws on any text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::measure::objdump_text {

bool starts_with(std::string_view s, std::string_view p);
bool ends_with(std::string_view s, std::string_view p);
std::string_view trim(std::string_view s);

// A hexadecimal number of at most 16 digits (an address), nothing else.
std::optional<std::uint64_t> parse_hex(std::string_view s);

struct Instruction {
    std::uint64_t address = 0;
    std::string mnemonic;              // without prefixes (rep, lock, notrack, segment overrides, ...)
    std::vector<std::string> operands; // AT&T order: the destination is the last
    std::string annotation;            // objdump's "<symbol+0x1a>" after the operands, without the brackets
    bool rep = false;                  // a rep/repz/repe/repnz/repne prefix was among the prefixes
};

// One row "  4011f0:\tvfmadd231pd (%rax,%rdx,8),%ymm1,%ymm0" (raw bytes, when shown, sit in a middle
// tab-separated column and are skipped); nullopt for anything else.
std::optional<Instruction> parse_instruction(std::string_view line);

// "0000000000401136 <name>:" -> name.
std::optional<std::string> parse_header(std::string_view line);

// Every line of a listing in order: `on_function(name)` for a symbol header, `on_row(line)` for any other
// line (an instruction row, or anything objdump prints between them; the caller parses what it needs).
template <class OnFunction, class OnRow>
void walk_listing(std::string_view text, OnFunction on_function, OnRow on_row) {
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        if (auto name = parse_header(line))
            on_function(std::move(*name));
        else
            on_row(line);
    }
}

bool is_branch(std::string_view mnemonic);

// The operand without its AVX-512 decorations: "%zmm1{%k1}{z}" -> "%zmm1", "(%rax){1to8}" -> "(%rax)".
std::string_view strip_decorations(std::string_view op);

// Whether an operand addresses memory: "(…)", a segment:offset ("%fs:0x28"), or an absolute address (a number
// without '$'; for a branch, a number is its target, not memory).
bool is_memory_operand(std::string_view op, bool branch);

enum class Access { load, store, both };

// What an instruction does with a memory operand in the destination (last) position.
Access destination_access(std::string_view mnemonic, std::size_t operand_count);

// lea, nop, prefetch, clflush, endbr: a memory operand that is not a load or store of the program.
bool excluded_from_memory_counts(std::string_view mnemonic);

} // namespace roofcast::measure::objdump_text
