#include "measure/objdump_text.hpp"

#include <algorithm>
#include <array>

namespace roofcast::measure::objdump_text {

namespace {

// Instruction prefixes objdump prints before the mnemonic.
bool is_prefix(std::string_view t) {
    static constexpr std::array<std::string_view, 22> k_prefixes = {
        "rep",    "repz",     "repnz",    "repe",  "repne",  "lock",  "notrack", "bnd",
        "data16", "data32",   "addr32",   "cs",    "ds",     "es",    "fs",      "gs",
        "ss",     "xacquire", "xrelease", "{vex}", "{evex}", "{vex3}"};
    return std::find(k_prefixes.begin(), k_prefixes.end(), t) != k_prefixes.end() || starts_with(t, "rex");
}

// Operands split at the commas outside parentheses and braces: "0x8(%rax,%rcx,8),%zmm1{%k1}{z}".
std::vector<std::string> split_operands(std::string_view s) {
    std::vector<std::string> out;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '(' || s[i] == '{')
            ++depth;
        else if ((s[i] == ')' || s[i] == '}') && depth > 0)
            --depth;
        else if (s[i] == ',' && depth == 0) {
            out.emplace_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (const auto last = trim(s.substr(start)); !last.empty())
        out.emplace_back(last);
    return out;
}

} // namespace

bool starts_with(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

bool ends_with(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
    if (starts_with(s, "0x"))
        s.remove_prefix(2);
    if (s.empty() || s.size() > 16)
        return std::nullopt;
    std::uint64_t v = 0;
    for (char c : s) {
        int d = 0;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return std::nullopt;
        v = v * 16 + static_cast<std::uint64_t>(d);
    }
    return v;
}

std::optional<Instruction> parse_instruction(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    const auto address = parse_hex(trim(line.substr(0, colon)));
    if (!address || line.substr(0, colon).find_first_not_of(" \t") == std::string_view::npos)
        return std::nullopt;
    std::string_view rest = line.substr(colon + 1);
    if (rest.empty() || rest[0] != '\t')
        return std::nullopt;
    rest = rest.substr(rest.rfind('\t') + 1);
    // The annotation objdump appends ("# 4020 <sym>", "<fn+0x1a>") never holds an operand, and demangled
    // names in it may hold '(' or ','.
    Instruction ins;
    ins.address = *address;
    if (const auto lt = rest.find('<'), gt = rest.rfind('>');
        lt != std::string_view::npos && gt != std::string_view::npos && gt > lt)
        ins.annotation = std::string(rest.substr(lt + 1, gt - lt - 1));
    rest = rest.substr(0, std::min(rest.find('#'), rest.find('<')));
    for (;;) {
        rest = trim(rest);
        const auto sp = rest.find_first_of(" \t");
        const std::string_view token = rest.substr(0, sp);
        if (token.empty())
            return std::nullopt;
        rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp);
        if (is_prefix(token) && !trim(rest).empty()) {
            ins.rep = ins.rep || starts_with(token, "rep");
            continue;
        }
        ins.mnemonic = std::string(token);
        break;
    }
    ins.operands = split_operands(trim(rest));
    return ins;
}

std::optional<std::string> parse_header(std::string_view line) {
    line = trim(line);
    const auto lt = line.find(" <");
    if (lt == std::string_view::npos || line.size() < lt + 4 || line.substr(line.size() - 2) != ">:")
        return std::nullopt;
    if (!parse_hex(line.substr(0, lt)))
        return std::nullopt;
    return std::string(line.substr(lt + 2, line.size() - lt - 4));
}

bool is_branch(std::string_view m) {
    return (m.size() > 1 && m[0] == 'j') || starts_with(m, "loop");
}

std::string_view strip_decorations(std::string_view op) {
    return op.substr(0, op.find('{'));
}

bool is_memory_operand(std::string_view op, bool branch) {
    op = strip_decorations(op);
    if (op.empty() || op[0] == '$') // {rn-sae}, an immediate
        return false;
    if (op.find('(') != std::string_view::npos)
        return true;
    if (op[0] == '%') // a register, or segment:offset ("%fs:0x28")
        return op.find(':') != std::string_view::npos;
    if (branch) // a direct target, not a memory operand
        return false;
    // An absolute address ("0x601040" or "-0x8"): a number without '$' is memory in AT&T syntax.
    return op[0] == '-' || (op[0] >= '0' && op[0] <= '9');
}

Access destination_access(std::string_view m, std::size_t operand_count) {
    if (m.size() > 1 && m[0] == 'f' && m[1] != 'x') { // x87: stores, or loads of their only operand
        return starts_with(m, "fst") || starts_with(m, "fist") || starts_with(m, "fnst") ||
                       starts_with(m, "fbstp")
                   ? Access::store
                   : Access::load;
    }
    std::string_view v = m;
    if (starts_with(v, "v"))
        v.remove_prefix(1);
    if (starts_with(v, "cmpxchg") || starts_with(v, "xchg") || starts_with(v, "xadd"))
        return Access::both;
    if (starts_with(v, "cmp") || starts_with(v, "test") || starts_with(v, "ucomi") ||
        starts_with(v, "comi") || starts_with(v, "ptest") || v == "bt" || v == "btl" || v == "btq" ||
        v == "btw")
        return Access::load;
    if (operand_count == 1) {
        if (starts_with(v, "push") || starts_with(v, "mul") || starts_with(v, "imul") ||
            starts_with(v, "div") || starts_with(v, "idiv") || starts_with(v, "call") ||
            starts_with(v, "jmp") || starts_with(v, "ldmxcsr"))
            return Access::load;
        if (starts_with(v, "pop") || starts_with(v, "set") || starts_with(v, "stmxcsr"))
            return Access::store;
        return Access::both; // inc, dec, neg, not, shifts by one
    }
    static constexpr std::array<std::string_view, 12> k_store_only = {
        "mov",      "pmov",    "extract",  "pextr", "cvt",       "scatter",
        "pscatter", "maskmov", "compress", "stos",  "pcompress", "st"};
    for (std::string_view p : k_store_only)
        if (starts_with(v, p))
            return Access::store;
    return Access::both; // read-modify-write: add %eax,(%rdx)
}

bool excluded_from_memory_counts(std::string_view m) {
    return starts_with(m, "lea") || starts_with(m, "nop") || starts_with(m, "prefetch") ||
           starts_with(m, "clflush") || starts_with(m, "endbr");
}

} // namespace roofcast::measure::objdump_text
