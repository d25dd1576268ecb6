// Operand helpers shared by the two halves of instruction_work (FLOPs in instruction_work.cpp, bytes in
// instruction_bytes.cpp). Internal to the measure layer.
#pragma once

#include "measure/instruction_work.hpp"

#include <string_view>
#include <vector>

namespace roofcast::measure::instruction_detail {

// Bytes of a general-purpose register operand ("%rax" 8, "%r8d" 4, "%ax" 2, "%ah" 1); 0 for anything else.
int gpr_bytes(std::string_view op);

// Bytes of a vector register operand, decorations ignored ("%xmm3" 16, "%ymm0" 32, "%zmm1{%k1}" 64,
// "%mm2" 8); 0 for anything else.
int vector_bytes(std::string_view op);

// The widest vector register among the operands (register operands only, not the index register of a
// memory operand); 0 when there is none.
int widest_vector_bytes(const std::vector<std::string>& operands);

// Whether an operand carries an AVX-512 write mask other than k0 ("%zmm0{%k1}", "(%rdi){%k2}").
bool has_write_mask(const std::vector<std::string>& operands);

// Whether an operand addresses memory the instruction loads or stores: objdump_text::is_memory_operand,
// less the x87 registers ("%st(1)") and with the target of an indirect branch through memory ("*0x8(%rax)",
// "*0x601040") counted.
bool is_data_memory_operand(std::string_view op, bool branch);

// The mnemonic without the 'v' of its VEX/EVEX form ("vaddpd" -> "addpd"); other names as they are.
std::string_view without_vex(std::string_view mnemonic);

// Adds the loads and stores of one execution of `ins` to `work` (load_bytes, store_bytes, memory,
// width_unknown, masked, rep_*).
void add_memory_work(const DecodedInstruction& ins, InstructionWork& work);

} // namespace roofcast::measure::instruction_detail
