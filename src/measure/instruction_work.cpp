#include "measure/instruction_work.hpp"

#include "measure/instruction_work_detail.hpp"
#include "measure/objdump_text.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace roofcast::measure {

using namespace objdump_text;

namespace instruction_detail {

int gpr_bytes(std::string_view op) {
    op = strip_decorations(op);
    if (op.size() < 3 || op[0] != '%')
        return 0;
    op.remove_prefix(1);
    // %r8 .. %r15 with their d/w/b forms.
    if (op[0] == 'r' && op[1] >= '0' && op[1] <= '9') {
        std::size_t i = 1;
        while (i < op.size() && op[i] >= '0' && op[i] <= '9')
            ++i;
        const std::string_view tail = op.substr(i);
        if (tail.empty())
            return 8;
        if (tail == "d")
            return 4;
        if (tail == "w")
            return 2;
        if (tail == "b" || tail == "l")
            return 1;
        return 0;
    }
    static constexpr std::array<std::string_view, 8> k_legacy = {"ax", "bx", "cx", "dx",
                                                                 "si", "di", "bp", "sp"};
    for (std::string_view r : k_legacy) {
        if (op.size() == 3 && op.substr(1) == r)
            return op[0] == 'r' ? 8 : op[0] == 'e' ? 4 : 0;
        if (op == r)
            return 2;
    }
    static constexpr std::array<std::string_view, 12> k_bytes = {"al", "bl", "cl",  "dl",  "ah",  "bh",
                                                                 "ch", "dh", "sil", "dil", "bpl", "spl"};
    return std::find(k_bytes.begin(), k_bytes.end(), op) != k_bytes.end() ? 1 : 0;
}

int vector_bytes(std::string_view op) {
    op = strip_decorations(op);
    auto numbered = [&](std::string_view prefix) {
        return starts_with(op, prefix) && op.size() > prefix.size() &&
               op.substr(prefix.size()).find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (numbered("%xmm"))
        return 16;
    if (numbered("%ymm"))
        return 32;
    if (numbered("%zmm"))
        return 64;
    if (numbered("%mm"))
        return 8;
    return 0;
}

int widest_vector_bytes(const std::vector<std::string>& operands) {
    int widest = 0;
    for (const std::string& op : operands)
        widest = std::max(widest, vector_bytes(op));
    return widest;
}

bool has_write_mask(const std::vector<std::string>& operands) {
    for (const std::string& op : operands)
        for (auto at = op.find("{%k"); at != std::string::npos; at = op.find("{%k", at + 1))
            if (at + 3 < op.size() && op[at + 3] >= '1' && op[at + 3] <= '7')
                return true;
    return false;
}

bool is_data_memory_operand(std::string_view op, bool branch) {
    if (starts_with(op, "%st"))
        return false;
    if (starts_with(op, "*")) // an indirect branch: through memory unless through a register
        return is_memory_operand(op.substr(1), false);
    return is_memory_operand(op, branch);
}

std::string_view without_vex(std::string_view mnemonic) {
    return starts_with(mnemonic, "v") ? mnemonic.substr(1) : mnemonic;
}

} // namespace instruction_detail

namespace {

using namespace instruction_detail;

// A continuation row of raw bytes ("  40113d:\t00 00 00 00 ", printed when raw bytes are shown and an
// instruction is longer than a row): its "mnemonic" is a byte in hex. No x86 mnemonic is two hex digits.
bool is_raw_bytes_row(const Instruction& ins) {
    return ins.mnemonic.size() == 2 && parse_hex(ins.mnemonic).has_value();
}

// ---- FLOPs ----

// x87 arithmetic: one operation, with or without a memory operand's size suffix (fadds, fiaddl, fdivrl).
constexpr std::array<std::string_view, 19> k_x87_arithmetic = {
    "fadd",  "faddp", "fiadd", "fsub",  "fsubp", "fsubr",  "fsubrp", "fisub",  "fisubr", "fmul",
    "fmulp", "fimul", "fdiv",  "fdivp", "fdivr", "fdivrp", "fidiv",  "fidivr", "fsqrt"};
// x87 instructions that do many operations in microcode: no count.
constexpr std::array<std::string_view, 10> k_x87_uncounted = {"fsin",  "fcos",  "fsincos", "fptan", "fpatan",
                                                              "f2xm1", "fyl2x", "fyl2xp1", "fprem", "fprem1"};

template <std::size_t N> bool contains(const std::array<std::string_view, N>& set, std::string_view s) {
    return std::find(set.begin(), set.end(), s) != set.end();
}

bool is_x87(std::string_view m) {
    return m.size() > 1 && m[0] == 'f' && !starts_with(m, "fx") && m != "femms";
}

void add_x87_flops(const DecodedInstruction& ins, InstructionWork& w) {
    std::string_view m = ins.mnemonic;
    const bool has_memory = std::any_of(ins.operands.begin(), ins.operands.end(), [](const std::string& op) {
        return is_data_memory_operand(op, false);
    });
    if (has_memory && !contains(k_x87_arithmetic, m)) // the memory form's size suffix: s, l, t; ll (fi…)
        m = starts_with(m, "fi") && ends_with(m, "ll") ? m.substr(0, m.size() - 2)
                                                       : m.substr(0, m.size() - 1);
    if (contains(k_x87_arithmetic, m)) {
        w.fp_arithmetic = true;
        w.flops_dp += 1;
    } else if (contains(k_x87_uncounted, ins.mnemonic)) {
        w.fp_arithmetic = true;
        w.flops_unknown = true;
    }
}

// Operations per lane of an SSE/AVX arithmetic base name (the mnemonic without 'v' and its ps/pd/ss/sd
// suffix); nullopt for a name that is no arithmetic of the models.
std::optional<double> ops_per_lane(std::string_view base) {
    const bool fma = starts_with(base, "fmadd") || starts_with(base, "fmsub") ||
                     starts_with(base, "fnmadd") || starts_with(base, "fnmsub");
    if (fma) {
        std::string_view tail = base.substr(base[1] == 'n' ? 6 : 5);
        if (starts_with(tail, "sub") || starts_with(tail, "add")) // fmaddsub, fmsubadd
            tail.remove_prefix(3);
        // 132/213/231, or nothing (FMA4); anything else (fmaddc: complex FP16) is not these operations.
        if (tail.empty() || tail == "132" || tail == "213" || tail == "231")
            return 2.0;
        return std::nullopt;
    }
    static constexpr std::array<std::string_view, 8> k_one = {"add",  "sub",  "mul",  "div",
                                                              "sqrt", "hadd", "hsub", "addsub"};
    if (contains(k_one, base))
        return 1.0;
    if (base == "dp")
        return 2.0;
    return std::nullopt;
}

// FP instructions that are no arithmetic of the models (0 flops), by the start of their base name.
bool no_arithmetic(std::string_view base) {
    static constexpr std::array<std::string_view, 33> k_none = {
        "min",     "max",    "cmp",     "comi",    "ucomi",    "and",     "or",        "xor",     "blend",
        "shuf",    "unpck",  "mov",     "round",   "rndscale", "getexp",  "getmant",   "scalef",  "fixupimm",
        "range",   "reduce", "fpclass", "rcp",     "rsqrt",    "exp2",    "broadcast", "extract", "insert",
        "maskmov", "test",   "gather",  "scatter", "expand",   "compress"};
    return starts_with(base, "perm") || starts_with(base, "cvt") ||
           std::any_of(k_none.begin(), k_none.end(),
                       [&](std::string_view p) { return starts_with(base, p); });
}

void add_vector_flops(const DecodedInstruction& ins, InstructionWork& w) {
    const std::string_view b = without_vex(ins.mnemonic);
    const int register_bytes = widest_vector_bytes(ins.operands);
    if (b.size() < 3 || register_bytes == 0)
        return;
    const std::string_view suffix = b.substr(b.size() - 2);
    static constexpr std::array<std::string_view, 6> k_fp = {"ps", "pd", "ss", "sd", "ph", "sh"};
    if (!contains(k_fp, suffix))
        return;
    const std::string_view base = b.substr(0, b.size() - 2);
    // Integer SIMD names ending like FP ones (pabsd, pminsd, vpdpwssd): every FP name starting with p is a
    // permute.
    if (base.empty() || (base[0] == 'p' && !starts_with(base, "perm")) || no_arithmetic(base))
        return;
    const std::optional<double> ops = ops_per_lane(base);
    w.fp_arithmetic = true;
    w.masked = w.masked || has_write_mask(ins.operands);
    const bool packed = suffix[0] == 'p';
    if (packed)
        w.vector_bits = register_bytes * 8;
    if (!ops || suffix[1] == 'h') { // FP16/BF16, or an FP name these tables do not know
        w.flops_unknown = true;
        return;
    }
    const bool single = suffix[1] == 's';
    const double lanes = packed ? register_bytes / (single ? 4.0 : 8.0) : 1.0;
    (single ? w.flops_sp : w.flops_dp) += *ops * lanes;
}

} // namespace

std::vector<DecodedInstruction> parse_objdump_instructions(const std::string& objdump_text) {
    std::vector<DecodedInstruction> out;
    std::string function;
    walk_listing(
        objdump_text, [&](std::string name) { function = std::move(name); },
        [&](std::string_view line) {
            auto ins = parse_instruction(line);
            if (!ins || is_raw_bytes_row(*ins))
                return;
            out.push_back(DecodedInstruction{ins->address, function, std::move(ins->mnemonic),
                                             std::move(ins->operands), ins->rep});
        });
    std::stable_sort(out.begin(), out.end(), [](const DecodedInstruction& a, const DecodedInstruction& b) {
        return a.address < b.address;
    });
    return out;
}

InstructionWork instruction_work(const DecodedInstruction& ins) {
    InstructionWork w;
    if (is_x87(ins.mnemonic))
        add_x87_flops(ins, w);
    else
        add_vector_flops(ins, w);
    add_memory_work(ins, w);
    return w;
}

} // namespace roofcast::measure
