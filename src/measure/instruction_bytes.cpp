// The loads and stores of one execution of an instruction (instruction_work.hpp says what counts). Each
// width follows the operand sizes of the Intel SDM, vol. 2 (instruction reference), for the AT&T names
// objdump prints.
#include "measure/instruction_work_detail.hpp"
#include "measure/objdump_text.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

namespace roofcast::measure::instruction_detail {

using namespace objdump_text;

namespace {

using Width = std::optional<double>;

template <std::size_t N> bool contains(const std::array<std::string_view, N>& set, std::string_view s) {
    return std::find(set.begin(), set.end(), s) != set.end();
}

// b/w/l/q (AT&T) and b/w/d/q (SIMD element) letters as bytes; 0 for any other letter.
int size_letter(char c) {
    switch (c) {
    case 'b':
        return 1;
    case 'w':
        return 2;
    case 'l':
    case 'd':
        return 4;
    case 'q':
        return 8;
    default:
        return 0;
    }
}

void add(InstructionWork& w, Access access, double bytes) {
    if (access != Access::store)
        w.load_bytes += bytes;
    if (access != Access::load)
        w.store_bytes += bytes;
}

// ---- general-purpose ----

// Names whose memory operand has the size of their register operand or of their size suffix.
constexpr std::array<std::string_view, 59> k_sized_by_register = {
    "mov",     "movabs", "add",  "adc",  "sub",  "sbb",   "and",    "or",     "xor",     "cmp",
    "test",    "inc",    "dec",  "neg",  "not",  "mul",   "imul",   "div",    "idiv",    "xchg",
    "cmpxchg", "xadd",   "bt",   "bts",  "btr",  "btc",   "bsf",    "bsr",    "lzcnt",   "tzcnt",
    "popcnt",  "movbe",  "adcx", "adox", "andn", "bextr", "bzhi",   "pdep",   "pext",    "sarx",
    "shlx",    "shrx",   "rorx", "mulx", "blsi", "blsr",  "blsmsk", "movnti", "movdiri", "shl",
    "shr",     "sal",    "sar",  "rol",  "ror",  "rcl",   "rcr",    "shld",   "shrd"};

bool is_shift(std::string_view m) {
    static constexpr std::array<std::string_view, 10> k_shifts = {"shl", "shr", "sal", "sar",  "rol",
                                                                  "ror", "rcl", "rcr", "shld", "shrd"};
    return std::any_of(k_shifts.begin(), k_shifts.end(),
                       [&](std::string_view s) { return starts_with(m, s); });
}

// The size of the register operands, the count register of a shift (%cl) left out; 0 without one.
int register_operand_bytes(const DecodedInstruction& ins) {
    int bytes = 0;
    for (std::size_t i = 0; i < ins.operands.size(); ++i) {
        if (i == 0 && ins.operands[i] == "%cl" && is_shift(ins.mnemonic))
            continue;
        bytes = std::max(bytes, gpr_bytes(ins.operands[i]));
    }
    return bytes;
}

Width gpr_width(const DecodedInstruction& ins) {
    const std::string_view m = ins.mnemonic;
    const int reg = register_operand_bytes(ins);
    auto known = [](int bytes) { return bytes > 0 ? Width(bytes) : std::nullopt; };
    // String instructions: movsb/cmpsw ... by their suffix (movsd/cmpsd without an xmm operand are the
    // dword forms), lods/stos/scas by their register.
    if ((starts_with(m, "movs") || starts_with(m, "cmps")) && m.size() == 5)
        return known(size_letter(m[4]));
    if (starts_with(m, "lods") || starts_with(m, "stos") || starts_with(m, "scas"))
        return known(m.size() == 5 ? size_letter(m[4]) : reg);
    if (m == "xlat" || m == "xlatb")
        return 1.0;
    // movzbl, movsbw, movswq, movslq ...: the source's size.
    if (m.size() == 6 && (starts_with(m, "movz") || starts_with(m, "movs")) && size_letter(m[4]) &&
        size_letter(m[5]) > size_letter(m[4]))
        return size_letter(m[4]);
    if (starts_with(m, "crc32") && m.size() == 6 && size_letter(m[5]))
        return size_letter(m[5]);
    if (m == "cmpxchg8b")
        return 8.0;
    if (m == "cmpxchg16b")
        return 16.0;
    if (starts_with(m, "set") && ins.operands.size() == 1)
        return 1.0;
    if (starts_with(m, "cmov"))
        return known(reg);
    // An indirect jump or call through memory loads a 64-bit target; push/pop of a memory operand.
    if (m == "jmp" || m == "jmpq" || m == "call" || m == "callq")
        return 8.0;
    if (m == "push" || m == "pushq" || m == "pop" || m == "popq")
        return 8.0;
    if (m == "pushw" || m == "popw")
        return 2.0;
    if (contains(k_sized_by_register, m))
        return known(reg);
    const std::string_view base = m.substr(0, m.size() - 1);
    if (!m.empty() && size_letter(m.back()) && m.back() != 'd' && contains(k_sized_by_register, base))
        return size_letter(m.back());
    return std::nullopt;
}

// ---- x87 ----

Width x87_width(std::string_view m) {
    if (m == "fldcw" || m == "fnstcw" || m == "fstcw" || m == "fnstsw" || m == "fstsw")
        return 2.0;
    if (m == "fbld" || m == "fbstp")
        return 10.0;
    static constexpr std::array<std::string_view, 11> k_float = {
        "fld", "fst", "fstp", "fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr", "fcom", "fcomp"};
    static constexpr std::array<std::string_view, 12> k_integer = {"fild",  "fist",   "fistp",  "fisttp",
                                                                   "fiadd", "fisub",  "fisubr", "fimul",
                                                                   "fidiv", "fidivr", "ficom",  "ficomp"};
    if (m.size() > 3 && ends_with(m, "ll") && contains(k_integer, m.substr(0, m.size() - 2)))
        return 8.0;
    if (m.size() < 2)
        return std::nullopt;
    const std::string_view base = m.substr(0, m.size() - 1);
    const char suffix = m.back();
    if (contains(k_integer, base))
        return suffix == 's' ? Width(2) : suffix == 'l' ? Width(4) : suffix == 'q' ? Width(8) : std::nullopt;
    if (contains(k_float, base))
        return suffix == 's' ? Width(4) : suffix == 'l' ? Width(8) : suffix == 't' ? Width(10) : std::nullopt;
    return std::nullopt; // fldenv, fnstenv, frstor, fnsave: their layout depends on the mode
}

// ---- SSE / AVX / AVX-512 ----

// Element bytes of a conversion operand type; `scalar` for ss/sd/sh, `integer` for si/usi (a GPR).
struct ConvType {
    int bytes = 0;
    bool scalar = false, integer = false;
};

std::optional<ConvType> conv_type(std::string_view t) {
    static constexpr std::array<std::pair<std::string_view, ConvType>, 15> k_types = {{
        {"ps", {4}},
        {"pd", {8}},
        {"ph", {2}},
        {"dq", {4}},
        {"udq", {4}},
        {"qq", {8}},
        {"uqq", {8}},
        {"pi", {4}},
        {"w", {2}},
        {"uw", {2}},
        {"ss", {4, true}},
        {"sd", {8, true}},
        {"sh", {2, true}},
        {"si", {0, false, true}},
        {"usi", {0, false, true}},
    }};
    for (const auto& [name, type] : k_types)
        if (t == name)
            return type;
    return std::nullopt;
}

// [v]cvt[t]SRC2DST[x|y|z|l|q]: the width of its memory operand `i` (the source, or the destination of a
// narrowing store such as vcvtps2ph).
Width conversion_width(const DecodedInstruction& ins, std::size_t i) {
    const bool legacy = !starts_with(ins.mnemonic, "v");
    std::string_view rest = without_vex(ins.mnemonic).substr(3);
    if (starts_with(rest, "t"))
        rest.remove_prefix(1);
    const auto two = rest.find('2');
    if (two == std::string_view::npos)
        return std::nullopt; // vcvtne2ps2bf16 and the like
    const auto src = conv_type(rest.substr(0, two));
    std::string_view dst_name = rest.substr(two + 1);
    char size_suffix = 0;
    auto dst = conv_type(dst_name);
    if (!dst && !dst_name.empty()) {
        size_suffix = dst_name.back();
        dst = conv_type(dst_name.substr(0, dst_name.size() - 1));
    }
    if (!src || !dst)
        return std::nullopt;
    const std::string& op = ins.operands[i];
    if (op.find("{1to") != std::string::npos)
        return src->bytes > 0 ? Width(src->bytes) : std::nullopt;
    if (src->scalar)
        return src->bytes;
    if (src->integer)
        return size_suffix == 'l' ? Width(4) : size_suffix == 'q' ? Width(8) : std::nullopt;
    if (dst->integer || dst->scalar)
        return std::nullopt;
    const int s = src->bytes, d = dst->bytes;
    if (i + 1 == ins.operands.size()) { // a store: the source register's lanes at the destination's size
        for (const std::string& o : ins.operands)
            if (const int reg = vector_bytes(o))
                return static_cast<double>(reg / s * d);
        return std::nullopt;
    }
    if (size_suffix == 'x' || size_suffix == 'y' || size_suffix == 'z')
        return size_suffix == 'x' ? 16.0 : size_suffix == 'y' ? 32.0 : 64.0;
    const int dest = vector_bytes(ins.operands.back());
    if (dest == 0)
        return std::nullopt;
    if (s <= d) // widening (cvtps2pd: half the destination's bytes) or the same size
        return static_cast<double>(dest / d * s);
    // Narrowing: the legacy forms read one xmm (cvtpd2ps: 2 doubles into the low half); the EVEX forms
    // without a suffix fill a ymm from a zmm.
    return legacy ? 16.0 : static_cast<double>(dest * s / d);
}

// pmovzx/pmovsx (widening loads) and the AVX-512 down-converts vpmov[s|us]qd ... (narrowing stores).
Width pmov_width(const DecodedInstruction& ins, std::string_view b) {
    if (starts_with(b, "pmovzx") || starts_with(b, "pmovsx")) {
        const std::string_view t = b.substr(6);
        if (t.size() != 2 || !size_letter(t[0]) || size_letter(t[1]) <= size_letter(t[0]))
            return std::nullopt;
        return static_cast<double>(vector_bytes(ins.operands.back()) / size_letter(t[1]) * size_letter(t[0]));
    }
    std::string_view t = b.substr(4);
    if (starts_with(t, "us"))
        t.remove_prefix(2);
    else if (starts_with(t, "s"))
        t.remove_prefix(1);
    if (t.size() != 2 || !size_letter(t[1]) || size_letter(t[0]) <= size_letter(t[1]))
        return std::nullopt;
    return static_cast<double>(vector_bytes(ins.operands.front()) / size_letter(t[0]) * size_letter(t[1]));
}

// Names with a fixed memory width, whatever their registers.
Width fixed_vector_width(std::string_view b) {
    static constexpr std::array<std::pair<std::string_view, int>, 36> k_fixed = {{
        {"movd", 4},        {"movq", 8},        {"movw", 2},           {"movss", 4},
        {"movsd", 8},       {"movsh", 2},       {"movhpd", 8},         {"movlpd", 8},
        {"movhps", 8},      {"movlps", 8},      {"movntss", 4},        {"movntsd", 8},
        {"insertps", 4},    {"extractps", 4},   {"pinsrb", 1},         {"pextrb", 1},
        {"pinsrw", 2},      {"pextrw", 2},      {"pinsrd", 4},         {"pextrd", 4},
        {"pinsrq", 8},      {"pextrq", 8},      {"ldmxcsr", 4},        {"stmxcsr", 4},
        {"broadcastss", 4}, {"broadcastsd", 8}, {"broadcastf128", 16}, {"broadcasti128", 16},
        {"pbroadcastb", 1}, {"pbroadcastw", 2}, {"pbroadcastd", 4},    {"pbroadcastq", 8},
        {"insertf128", 16}, {"inserti128", 16}, {"extractf128", 16},   {"extracti128", 16},
    }};
    for (const auto& [name, bytes] : k_fixed)
        if (b == name)
            return bytes;
    // The MMX conversions: two 32-bit lanes in an mm register, two doubles in an xmm.
    if (b == "cvtpi2ps" || b == "cvtpi2pd" || b == "cvtps2pi" || b == "cvttps2pi")
        return 8.0;
    if (b == "cvtpd2pi" || b == "cvttpd2pi")
        return 16.0;
    // vbroadcastf32x2 / vinserti64x4 / vextractf32x4 ...: the lanes x element the name gives.
    if (starts_with(b, "broadcast") || starts_with(b, "insert") || starts_with(b, "extract")) {
        for (const auto& [tag, bytes] : std::array<std::pair<std::string_view, int>, 5>{
                 {{"32x2", 8}, {"32x4", 16}, {"64x2", 16}, {"32x8", 32}, {"64x4", 32}}})
            if (ends_with(b, tag))
                return bytes;
    }
    return std::nullopt;
}

Width vector_width(const DecodedInstruction& ins, std::size_t i) {
    const std::string_view b = without_vex(ins.mnemonic);
    const int widest = widest_vector_bytes(ins.operands);
    const std::string& op = ins.operands[i];
    if (starts_with(b, "cvt") && !fixed_vector_width(b))
        return conversion_width(ins, i);
    if (const auto at = op.find("{1to"); at != std::string::npos) { // one element, broadcast
        const int n = std::atoi(op.c_str() + at + 4);
        if (n > 0 && widest > 0)
            return static_cast<double>(widest / n);
        return std::nullopt;
    }
    if (const Width fixed = fixed_vector_width(b))
        return fixed;
    if (b == "movddup")
        return widest == 16 ? 8.0 : static_cast<double>(widest);
    if (starts_with(b, "pmov"))
        return pmov_width(ins, b);
    // Shifts by a count in memory read a 128-bit count (64-bit on MMX); by an immediate, the data.
    static constexpr std::array<std::string_view, 9> k_shift_by_count = {
        "psllw", "pslld", "psllq", "psrlw", "psrld", "psrlq", "psraw", "psrad", "psraq"};
    if (contains(k_shift_by_count, b) && i == 0)
        return widest == 8 ? 8.0 : 16.0;
    if (starts_with(b, "punpckl") && widest == 8) // MMX: the low halves, 32 bits
        return 4.0;
    if (starts_with(b, "compress") || starts_with(b, "expand") || starts_with(b, "pcompress") ||
        starts_with(b, "pexpand")) // as many elements as the mask has bits
        return has_write_mask(ins.operands) ? std::nullopt : Width(widest);
    if (starts_with(b, "4f") || starts_with(b, "p4dp") || starts_with(b, "tile"))
        return std::nullopt; // 4FMAPS/4VNNIW blocks, AMX tiles
    if (b.size() > 2 && b[0] != 'p' && (ends_with(b, "ss") || ends_with(b, "sd") || ends_with(b, "sh")))
        return ends_with(b, "ss") ? 4.0 : ends_with(b, "sd") ? 8.0 : 2.0; // scalar FP
    if (widest == 0 && b.size() > 3 && (b.back() == 'x' || b.back() == 'y' || b.back() == 'z'))
        return b.back() == 'x' ? 16.0 : b.back() == 'y' ? 32.0 : 64.0; // vfpclasspdz $1,(%rax),%k1
    return widest > 0 ? Width(widest) : std::nullopt;
}

bool is_vector_instruction(const DecodedInstruction& ins) {
    const std::string_view b = without_vex(ins.mnemonic);
    return widest_vector_bytes(ins.operands) > 0 || starts_with(b, "cvt") || b == "ldmxcsr" ||
           b == "stmxcsr" || starts_with(b, "fpclass") || starts_with(ins.mnemonic, "v");
}

// ---- what the instruction does with a memory operand ----

Access access(const DecodedInstruction& ins, std::size_t i) {
    const std::string_view m = ins.mnemonic;
    if (i + 1 < ins.operands.size())
        return Access::load; // a source (AT&T: the destination is last)
    if (starts_with(m, "kmov") || starts_with(m, "fxsave") || starts_with(m, "xsave") ||
        m.find("maskmov") != std::string_view::npos)
        return Access::store;
    if (starts_with(m, "fxrstor") || starts_with(m, "xrstor") || m == "xlat" || m == "xlatb")
        return Access::load;
    return destination_access(m, ins.operands.size());
}

// ---- implicit accesses: the stack, maskmovdqu, the string instructions under rep ----

// push/pop/call/ret/leave/enter: the stack slot they write or read. True when `m` is one of them.
bool add_stack_work(const DecodedInstruction& ins, InstructionWork& w) {
    const std::string_view m = ins.mnemonic;
    const bool word = m == "pushw" || m == "popw" || m == "pushfw" || m == "popfw" ||
                      (ins.operands.size() == 1 && gpr_bytes(ins.operands[0]) == 2);
    const double slot = word ? 2.0 : 8.0;
    if (m == "push" || m == "pushq" || m == "pushw" || starts_with(m, "pushf"))
        w.store_bytes += slot;
    else if (m == "pop" || m == "popq" || m == "popw" || starts_with(m, "popf"))
        w.load_bytes += slot;
    else if (m == "call" || m == "callq")
        w.store_bytes += 8; // the return address
    else if (m == "ret" || m == "retq" || m == "leave" || m == "leaveq")
        w.load_bytes += 8; // the return address; leave pops %rbp
    else if (m == "enter" || m == "enterq") {
        // enter $N,$0 pushes %rbp; a nesting level copies that many frame pointers more.
        if (ins.operands.size() == 2 && (ins.operands[1] == "$0x0" || ins.operands[1] == "$0"))
            w.store_bytes += 8;
        else
            w.width_unknown = true;
    } else if (m == "lret" || m == "lretq" || starts_with(m, "iret") || m == "lcall" || m == "ljmp")
        w.width_unknown = true; // far transfers: the segment selector's layout
    else
        return false;
    return true;
}

bool is_string_instruction(std::string_view m) {
    for (std::string_view s : {"movs", "cmps", "stos", "lods", "scas", "ins", "outs"})
        if (starts_with(m, s) && m.size() <= s.size() + 1)
            return true;
    return false;
}

// One iteration of a rep-prefixed string instruction.
void add_rep_string(const DecodedInstruction& ins, InstructionWork& w) {
    w.width_unknown = true;
    const std::string_view m = ins.mnemonic;
    const Width element = gpr_width(ins);
    if (!element)
        return;
    if (starts_with(m, "movs")) {
        w.rep_load_bytes = *element;
        w.rep_store_bytes = *element;
    } else if (starts_with(m, "cmps")) {
        w.rep_load_bytes = 2 * *element;
        w.rep_conditional = true;
    } else if (starts_with(m, "stos") || starts_with(m, "ins")) {
        w.rep_store_bytes = *element;
    } else {
        w.rep_load_bytes = *element; // lods, scas, outs
        w.rep_conditional = starts_with(m, "scas");
    }
}

// vgather*/vpgather*/vscatter*/vpscatter*: lanes x element, the lanes the fewer of the data register's
// and the index register's. True when `ins` is one of them.
bool add_gather_scatter(const DecodedInstruction& ins, InstructionWork& w) {
    std::string_view b = without_vex(ins.mnemonic);
    if (starts_with(b, "p"))
        b.remove_prefix(1);
    const bool gather = starts_with(b, "gather"), scatter = starts_with(b, "scatter");
    if (!gather && !scatter)
        return false;
    w.masked = true;
    const std::string_view t = b.substr(gather ? 6 : 7); // dps, dpd, qps, qpd, dd, dq, qd, qq
    const int index_element = t.empty() ? 0 : size_letter(t[0]);
    const std::string_view data = t.empty() ? t : t.substr(1);
    const int element = data == "ps" || data == "d" ? 4 : data == "pd" || data == "q" ? 8 : 0;
    const auto memory = std::find_if(ins.operands.begin(), ins.operands.end(),
                                     [](const std::string& op) { return is_data_memory_operand(op, false); });
    if (index_element == 0 || element == 0 || memory == ins.operands.end() || ins.operands.size() < 2) {
        w.width_unknown = true;
        return true;
    }
    // "(%rax,%ymm1,8)": the index register is the second item inside the parentheses.
    const std::string_view mem = strip_decorations(*memory);
    const auto open = mem.find('('), comma = mem.find(',', open == std::string_view::npos ? 0 : open);
    const auto end = comma == std::string_view::npos ? comma : mem.find_first_of(",)", comma + 1);
    const int index = open == std::string_view::npos || comma == std::string_view::npos
                          ? 0
                          : vector_bytes(mem.substr(comma + 1, end - comma - 1));
    const int data_register = vector_bytes(gather ? ins.operands.back() : ins.operands.front());
    if (index == 0 || data_register == 0) {
        w.width_unknown = true;
        return true;
    }
    const double bytes = std::min(data_register / element, index / index_element) * element;
    (gather ? w.load_bytes : w.store_bytes) += bytes;
    return true;
}

bool excluded(std::string_view m) {
    const std::string_view b = without_vex(m);
    if (starts_with(m, "leave")) // not lea: it pops %rbp
        return false;
    return excluded_from_memory_counts(m) || m == "clwb" || m == "cldemote" || m == "bndmk" || m == "bndcl" ||
           m == "bndcu" || m == "bndcn" ||
           ((starts_with(b, "gather") || starts_with(b, "scatter")) &&
            b.find("pf") != std::string_view::npos);
}

} // namespace

void add_memory_work(const DecodedInstruction& ins, InstructionWork& w) {
    const std::string_view m = ins.mnemonic;
    if (m == "(bad)") {
        w.width_unknown = true;
        return;
    }
    if (excluded(m))
        return;
    w.masked = w.masked || has_write_mask(ins.operands);
    if (m == "maskmovdqu" || m == "vmaskmovdqu" || m == "maskmovq") { // stores to (%rdi), byte-masked
        w.masked = true;
        w.store_bytes += m == "maskmovq" ? 8 : 16;
    } else if (ins.rep && is_string_instruction(m)) {
        add_rep_string(ins, w);
    } else if (!add_gather_scatter(ins, w)) {
        add_stack_work(ins, w);
        if (m.find("maskmov") != std::string_view::npos)
            w.masked = true;
        // A branch's number operand is its target (xbegin's too: the abort handler), not memory.
        const bool branch = is_branch(m) || starts_with(m, "call") || m == "xbegin";
        const bool x87 = m.size() > 1 && m[0] == 'f' && !starts_with(m, "fx") && m != "femms";
        for (std::size_t i = 0; i < ins.operands.size(); ++i) {
            if (!is_data_memory_operand(ins.operands[i], branch))
                continue;
            Width width;
            if (x87)
                width = x87_width(m);
            else if (starts_with(m, "kmov") && m.size() == 5)
                width = size_letter(m[4]) ? Width(size_letter(m[4])) : std::nullopt;
            else if (starts_with(m, "fxsave") || starts_with(m, "fxrstor"))
                width = 512.0;
            else if (is_vector_instruction(ins))
                width = vector_width(ins, i);
            else
                width = gpr_width(ins);
            if (!width) {
                w.width_unknown = true;
                continue;
            }
            add(w, access(ins, i), *width);
        }
    }
    w.memory = w.load_bytes + w.store_bytes > 0;
}

} // namespace roofcast::measure::instruction_detail
