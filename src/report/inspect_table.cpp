#include "report/inspect_table.hpp"

#include <fmt/format.h>

namespace roofcast::report {

namespace {

int count_at(const std::map<int, int>& by_width, int width) {
    const auto it = by_width.find(width);
    return it == by_width.end() ? 0 : it->second;
}

std::string width_text(int bits) {
    return bits == 0 ? "scalar" : fmt::format("{}-bit", bits);
}

} // namespace

std::string loop_precision(const measure::LoopInspection& l) {
    if (l.single_precision == 0 && l.double_precision == 0)
        return "none";
    if (l.single_precision == l.double_precision)
        return "mixed";
    return l.single_precision > l.double_precision ? "single" : "double";
}

std::string format_inspection_table(const measure::CodeInspection& r) {
    std::string out = fmt::format("{}: functions starting with '{}': {} matching, {} innermost loop{}\n",
                                  r.binary, r.symbol, r.functions.size() + r.functions_not_inspected,
                                  r.loops.size(), r.loops.size() == 1 ? "" : "s");
    if (r.functions_not_inspected > 0)
        out += fmt::format(
            "only the first {} functions were inspected ({} more left out): a longer SYMBOL narrows "
            "the match\n",
            r.functions.size(), r.functions_not_inspected);
    if (!r.unavailable.empty())
        return out + fmt::format("not inspected: {}\n", r.unavailable);
    if (r.loops.empty()) {
        out += "no loop in the matching functions:\n";
        for (const std::string& f : r.functions)
            out += fmt::format("  {}\n", f);
        return out;
    }
    out +=
        "static counts: instructions in one pass of each loop body, as compiled (not how often they run)\n\n";
    out += fmt::format("{:>3}  {:<21} {:>5}  {:>23}  {:>15}  {:>10}  {:>11}  {:>7}  {:>7}  {:<6}  {:>10}\n",
                       "#", "address range", "instr", "FP scalar/128/256/512", "fma/add/mul/div",
                       "fma chains", "loads/stores", "gathers", "widest", "prec", "flops/pass");
    for (std::size_t i = 0; i < r.loops.size(); ++i) {
        const measure::LoopInspection& l = r.loops[i];
        const std::string precision = loop_precision(l);
        const std::string fp =
            fmt::format("{}/{}/{}/{}", count_at(l.fp_by_width, 0), count_at(l.fp_by_width, 128),
                        count_at(l.fp_by_width, 256), count_at(l.fp_by_width, 512));
        const std::string kinds = fmt::format("{}/{}/{}/{}", l.fma, l.add, l.mul, l.div);
        out +=
            fmt::format("{:>3}  {:<21} {:>5}  {:>23}  {:>15}  {:>10}  {:>11}  {:>7}  {:>7}  {:<6}  {:>10}\n",
                        i + 1, fmt::format("{:#x}-{:#x}", l.begin, l.end), l.instructions, fp, kinds,
                        l.fma_chains, fmt::format("{}/{}", l.loads, l.stores), l.gathers,
                        l.fp_arithmetic() == 0 ? "-" : width_text(l.vector_bits()), precision,
                        fmt::format("{:g}", l.flops_per_pass(precision == "single")));
    }
    bool extra = false;
    for (std::size_t i = 0; i < r.loops.size(); ++i)
        if (r.loops[i].sqrt + r.loops[i].other_fp > 0) {
            if (!extra)
                out += "\n";
            extra = true;
            out += fmt::format("#{}: also {} sqrt (1 flop per lane) and {} other FP instruction(s) "
                               "(min/max/horizontal: no flops)\n",
                               i + 1, r.loops[i].sqrt, r.loops[i].other_fp);
        }
    out += "\nfunctions:\n";
    for (std::size_t i = 0; i < r.loops.size(); ++i)
        out += fmt::format("{:>3}  {}\n", i + 1, r.loops[i].function);
    return out;
}

nlohmann::json inspection_json(const measure::CodeInspection& r) {
    nlohmann::json j;
    j["binary"] = r.binary;
    j["symbol"] = r.symbol;
    j["unavailable"] = r.unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.unavailable);
    j["functions"] = r.functions;
    j["functions_not_inspected"] = r.functions_not_inspected;
    j["loops"] = nlohmann::json::array();
    for (const measure::LoopInspection& l : r.loops) {
        nlohmann::json w = nlohmann::json::object();
        for (const auto& [width, n] : l.fp_by_width)
            w[std::to_string(width)] = n;
        j["loops"].push_back(
            {{"function", l.function},
             {"begin", fmt::format("{:#x}", l.begin)},
             {"end", fmt::format("{:#x}", l.end)},
             {"instructions", l.instructions},
             {"fp_by_width", w},
             {"fma", l.fma},
             {"fma_chains", l.fma_chains},
             {"add", l.add},
             {"mul", l.mul},
             {"div", l.div},
             {"sqrt", l.sqrt},
             {"other_fp", l.other_fp},
             {"loads", l.loads},
             {"stores", l.stores},
             {"gathers", l.gathers},
             {"vector_bits", l.vector_bits()},
             {"precision", loop_precision(l)},
             {"flops_per_pass", {{"double", l.flops_per_pass(false)}, {"single", l.flops_per_pass(true)}}}});
    }
    return j;
}

} // namespace roofcast::report
