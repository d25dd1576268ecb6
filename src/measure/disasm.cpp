#include "measure/disasm.hpp"

#include "measure/objdump_text.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

namespace roofcast::measure {

using namespace objdump_text;

namespace {

struct Function {
    std::string name;
    std::vector<Instruction> code;
};

std::vector<Function> parse_functions(const std::string& text, std::string_view prefix) {
    std::vector<Function> out;
    bool in_match = false;
    walk_listing(
        text,
        [&](std::string name) {
            in_match = symbol_matches(name, prefix);
            if (in_match)
                out.push_back(Function{std::move(name), {}});
        },
        [&](std::string_view line) {
            if (!in_match)
                return;
            if (auto ins = parse_instruction(line))
                out.back().code.push_back(std::move(*ins));
        });
    // objdump prints in address order; text from elsewhere is made so, since the loop search bisects.
    auto by_address = [](const Instruction& a, const Instruction& b) { return a.address < b.address; };
    for (Function& f : out) {
        std::stable_sort(f.code.begin(), f.code.end(), by_address);
        f.code.erase(
            std::unique(f.code.begin(), f.code.end(),
                        [](const Instruction& a, const Instruction& b) { return a.address == b.address; }),
            f.code.end());
    }
    return out;
}

// ---- classification ----

enum class FpKind { none, fma, add, mul, div, sqrt, other };

struct FpClass {
    FpKind kind = FpKind::none;
    int width = 0; // 0 scalar, else the widest vector register among the operands
    bool single = false;
};

// FP arithmetic = add/sub/mul/div/sqrt/fma/min/max (and the few other arithmetic forms) on ps/pd/ss/sd,
// legacy SSE or VEX/EVEX ('v' prefix); fma covers vfmadd/vfmsub/vfnmadd/vfnmsub in the 132/213/231 forms,
// the addsub/subadd forms and AMD's four-operand FMA4 names.
FpClass classify_fp(const Instruction& ins) {
    std::string_view m = ins.mnemonic;
    if (starts_with(m, "v"))
        m.remove_prefix(1);
    if (m.size() < 3)
        return {};
    const std::string_view suffix = m.substr(m.size() - 2);
    if (suffix != "ps" && suffix != "pd" && suffix != "ss" && suffix != "sd")
        return {};
    std::string_view base = m.substr(0, m.size() - 2);
    FpClass c;
    c.single = suffix[1] == 's';
    if (starts_with(base, "fmadd") || starts_with(base, "fmsub") || starts_with(base, "fnmadd") ||
        starts_with(base, "fnmsub")) {
        std::string_view tail = base.substr(base[1] == 'n' ? 6 : 5);
        if (starts_with(tail, "sub") || starts_with(tail, "add"))
            tail.remove_prefix(3);
        if (tail.find_first_not_of("0123") != std::string_view::npos)
            return {};
        c.kind = FpKind::fma;
    } else if (base == "add" || base == "sub")
        c.kind = FpKind::add;
    else if (base == "mul")
        c.kind = FpKind::mul;
    else if (base == "div")
        c.kind = FpKind::div;
    else if (base == "sqrt")
        c.kind = FpKind::sqrt;
    else if (base == "min" || base == "max" || base == "addsub" || base == "hadd" || base == "hsub" ||
             starts_with(base, "rcp") || starts_with(base, "rsqrt"))
        c.kind = FpKind::other;
    else
        return {};
    if (suffix[0] == 's')
        return c; // scalar: width 0
    c.width = 128;
    for (const std::string& op : ins.operands) {
        if (op.find("%zmm") != std::string::npos)
            c.width = std::max(c.width, 512);
        else if (op.find("%ymm") != std::string::npos)
            c.width = std::max(c.width, 256);
    }
    return c;
}

// The vector register an operand names, one number for its xmm/ymm/zmm forms ("%zmm3{%k1}{z}" -> 3); -1
// for any other operand.
int vector_register(std::string_view op) {
    if (op.size() < 5 || op[0] != '%' || (op[1] != 'x' && op[1] != 'y' && op[1] != 'z') ||
        op.substr(2, 2) != "mm")
        return -1;
    int n = 0;
    std::size_t i = 4;
    for (; i < op.size() && i < 6 && op[i] >= '0' && op[i] <= '9'; ++i)
        n = n * 10 + (op[i] - '0');
    return i == 4 ? -1 : n;
}

// Whether an instruction writes its last vector operand (AT&T order: the destination last). The FP compares
// into flags and the vector tests only read it.
bool writes_last_operand(std::string_view m) {
    if (starts_with(m, "v"))
        m.remove_prefix(1);
    return !(starts_with(m, "ucomis") || starts_with(m, "comis") || starts_with(m, "ptest") ||
             starts_with(m, "testp"));
}

// `written`: the vector registers earlier instructions of this pass wrote (fma_chains).
void count(LoopInspection& loop, const Instruction& ins, std::set<int>& written) {
    ++loop.instructions;
    const int destination = ins.operands.empty() ? -1 : vector_register(ins.operands.back());
    const std::string& m = ins.mnemonic;
    if (m.find("gather") != std::string::npos || m.find("scatter") != std::string::npos)
        ++loop.gathers;
    if (!excluded_from_memory_counts(m) && !ins.operands.empty()) {
        const bool branch = is_branch(m) || starts_with(m, "call");
        bool load = false, store = false;
        for (std::size_t i = 0; i < ins.operands.size(); ++i) {
            if (!is_memory_operand(ins.operands[i], branch))
                continue;
            if (i + 1 < ins.operands.size()) {
                load = true;
                continue;
            }
            const Access a = destination_access(m, ins.operands.size());
            load = load || a != Access::store;
            store = store || a != Access::load;
        }
        loop.loads += load ? 1 : 0;
        loop.stores += store ? 1 : 0;
    }
    const FpClass c = classify_fp(ins);
    if (destination >= 0 && writes_last_operand(m)) {
        if (c.kind == FpKind::fma && !written.count(destination))
            ++loop.fma_chains;
        written.insert(destination);
    }
    if (c.kind == FpKind::none)
        return;
    ++loop.fp_by_width[c.width];
    ++(c.single ? loop.single_precision : loop.double_precision);
    int ops = 1;
    switch (c.kind) {
    case FpKind::fma:
        ++loop.fma;
        ops = 2;
        break;
    case FpKind::add:
        ++loop.add;
        break;
    case FpKind::mul:
        ++loop.mul;
        break;
    case FpKind::div:
        ++loop.div;
        break;
    case FpKind::sqrt:
        ++loop.sqrt;
        break;
    default:
        ++loop.other_fp;
        ops = 0;
        break;
    }
    if (ops > 0)
        loop.flop_ops_by_width[c.width] += ops;
}

// A call that never returns (the sanitizers' error reports, abort, throw helpers): gcc places unrelated code
// right after it, which must not be taken for the call's fall-through. Names as objdump annotates them.
bool calls_noreturn(const Instruction& ins) {
    if (!starts_with(ins.mnemonic, "call"))
        return false;
    const std::string_view callee = ins.annotation;
    static constexpr std::array<std::string_view, 14> k_noreturn = {
        "__asan_report_", "abort",          "exit",           "_exit",         "__stack_chk_fail",
        "__cxa_throw",    "__cxa_rethrow",  "_Unwind_Resume", "std::__throw_", "__assert_fail",
        "std::terminate", "__fortify_fail", "__chk_fail",     "__cxa_bad_"};
    if (starts_with(callee, "__ubsan_handle_"))
        return callee.find("_abort") != std::string_view::npos;
    return std::any_of(k_noreturn.begin(), k_noreturn.end(), [&](std::string_view p) {
        if (!starts_with(callee, p))
            return false;
        const char next = callee.size() > p.size() ? callee[p.size()] : '@';
        return p.back() == '_' || next == '@' || next == '+' || next == '(';
    });
}

std::optional<std::uint64_t> branch_target(const Instruction& ins) {
    if (!is_branch(ins.mnemonic) || ins.operands.size() != 1)
        return std::nullopt;
    return parse_hex(trim(ins.operands[0]));
}

// Whether the backward branch at code[last] closes a loop that starts at code[first]: control entering at
// the target reaches the branch by falling through or by jumps inside the range. A backward jump that
// only reuses an epilogue (gcc's layout: "jmp 1e1" to code that ends in ret) is not a loop.
bool closes_loop(const std::vector<Instruction>& code, std::size_t first, std::size_t last) {
    std::vector<bool> seen(last - first + 1, false);
    std::vector<std::size_t> todo{first};
    auto index_of = [&](std::uint64_t address) -> std::optional<std::size_t> {
        const auto it = std::lower_bound(code.begin() + static_cast<std::ptrdiff_t>(first),
                                         code.begin() + static_cast<std::ptrdiff_t>(last) + 1, address,
                                         [](const Instruction& i, std::uint64_t a) { return i.address < a; });
        if (it == code.begin() + static_cast<std::ptrdiff_t>(last) + 1 || it->address != address)
            return std::nullopt;
        return static_cast<std::size_t>(it - code.begin());
    };
    while (!todo.empty()) {
        const std::size_t i = todo.back();
        todo.pop_back();
        if (i > last || seen[i - first])
            continue;
        seen[i - first] = true;
        if (i == last)
            return true;
        const std::string& m = code[i].mnemonic;
        if (starts_with(m, "ret") || m == "ud2" || m == "hlt" || calls_noreturn(code[i]))
            continue;
        const bool unconditional = starts_with(m, "jmp");
        if (const auto target = branch_target(code[i])) {
            if (const auto t = index_of(*target))
                todo.push_back(*t);
        } else if (unconditional) {
            continue; // indirect jump
        }
        if (!unconditional)
            todo.push_back(i + 1);
    }
    return false;
}

// The innermost loops of one function: ranges [target, branch] of backward jumps whose target lies inside
// the function and that close a loop, keeping those that contain no other such range.
std::vector<LoopInspection> innermost_loops(const Function& f) {
    std::vector<LoopInspection> out;
    if (f.code.empty())
        return out;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (std::size_t i = 0; i < f.code.size(); ++i) {
        const auto target = branch_target(f.code[i]);
        if (!target || *target > f.code[i].address || *target < f.code.front().address)
            continue;
        const auto start =
            std::lower_bound(f.code.begin(), f.code.end(), *target,
                             [](const Instruction& x, std::uint64_t a) { return x.address < a; });
        if (start->address == *target &&
            closes_loop(f.code, static_cast<std::size_t>(start - f.code.begin()), i))
            ranges.emplace_back(*target, f.code[i].address);
    }
    std::sort(ranges.begin(), ranges.end());
    ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> innermost;
    for (const auto& r : ranges) {
        const bool contains_other = std::any_of(ranges.begin(), ranges.end(), [&](const auto& o) {
            return o != r && r.first <= o.first && o.second <= r.second;
        });
        if (contains_other)
            continue;
        // Overlapping ranges, neither inside the other, are one loop with two latches (a rotated loop whose
        // exit test branches back to either of two blocks): counted once, over their union. `ranges` is
        // sorted, so an overlap is always with the last range kept.
        if (!innermost.empty() && r.first <= innermost.back().second)
            innermost.back().second = std::max(innermost.back().second, r.second);
        else
            innermost.push_back(r);
    }
    for (const auto& r : innermost) {
        LoopInspection loop;
        loop.function = f.name;
        loop.begin = r.first;
        loop.end = r.second;
        auto it = std::lower_bound(f.code.begin(), f.code.end(), r.first,
                                   [](const Instruction& x, std::uint64_t a) { return x.address < a; });
        std::set<int> written;
        for (; it != f.code.end() && it->address <= r.second; ++it)
            count(loop, *it, written);
        out.push_back(std::move(loop));
    }
    return out;
}

} // namespace

int LoopInspection::vector_bits() const {
    int widest = 0;
    for (const auto& [width, n] : fp_by_width)
        if (n > 0)
            widest = std::max(widest, width);
    return widest;
}

double LoopInspection::flops_per_pass(bool single) const {
    double flops = 0;
    for (const auto& [width, ops] : flop_ops_by_width)
        flops += ops * (width == 0 ? 1.0 : width / (single ? 32.0 : 64.0));
    return flops;
}

int LoopInspection::fp_arithmetic() const {
    int n = 0;
    for (const auto& [width, count] : fp_by_width)
        n += count;
    return n;
}

bool symbol_matches(std::string_view demangled, std::string_view symbol_prefix) {
    if (symbol_prefix.empty())
        return false;
    if (starts_with(demangled, symbol_prefix))
        return true;
    // Function templates demangle with their return type first ("void ns::body<4, double>(...)").
    if (const auto at = demangled.find(symbol_prefix);
        at != std::string_view::npos && at > 0 && demangled[at - 1] == ' ' &&
        demangled.substr(0, at).find('(') == std::string_view::npos)
        return true;
    if (demangled.find("._omp_fn.") == std::string_view::npos)
        return false;
    for (auto at = demangled.find(symbol_prefix); at != std::string_view::npos;
         at = demangled.find(symbol_prefix, at + 1)) {
        const std::size_t after = at + symbol_prefix.size();
        const char before = at == 0 ? ' ' : demangled[at - 1];
        // A prefix ending in '(' names one function exactly ("run_matmul(" is not "run_matmul_packed").
        const bool call =
            symbol_prefix.back() == '(' || (after < demangled.size() && demangled[after] == '(');
        if (call && (before == '<' || before == ' ' || before == ',' || before == '('))
            return true;
    }
    return false;
}

CodeInspection parse_objdump(const std::string& objdump_text, const std::string& symbol_prefix) {
    CodeInspection r;
    r.symbol = symbol_prefix;
    for (const Function& f : parse_functions(objdump_text, symbol_prefix)) {
        r.functions.push_back(f.name);
        for (LoopInspection& loop : innermost_loops(f))
            r.loops.push_back(std::move(loop));
    }
    // The loop doing the most arithmetic per pass first (lanes x operations, as flops_per_pass counts them):
    // a vectorised loop ahead of its scalar remainder even where the compiler unrolled the remainder into
    // more instructions (the 7-point Jacobi's two-row loop: 14 512-bit instructions, 112 flops a pass,
    // beside a remainder of 28 scalar ones); ties put the wider loop first.
    std::stable_sort(r.loops.begin(), r.loops.end(), [](const LoopInspection& a, const LoopInspection& b) {
        const double fa = a.flops_per_pass(false), fb = b.flops_per_pass(false);
        if (fa != fb)
            return fa > fb;
        return a.vector_bits() > b.vector_bits();
    });
    return r;
}

} // namespace roofcast::measure
