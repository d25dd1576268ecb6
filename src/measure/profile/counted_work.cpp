#include "measure/profile/counted_work.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <sstream>

namespace roofcast::measure::profile {

namespace {

constexpr std::size_t k_max_sources_per_loop = 8;

std::size_t event_index(const CallgrindData& data, const std::string& name) {
    const auto it = std::find(data.events.begin(), data.events.end(), name);
    return it == data.events.end() ? data.events.size() : static_cast<std::size_t>(it - data.events.begin());
}

double event(const CallgrindInstruction& ins, std::size_t index) {
    return index < ins.events.size() ? ins.events[index] : 0.0;
}

// The iterations of the rep-prefixed string instruction at `address`: valgrind runs one iteration per visit
// and jumps back to the instruction itself while %rcx is not zero, so the taken count of that jump to its own
// address (`jcnd=TAKEN/EXECUTED`, read with --collect-jumps=yes) is the iterations, and the instruction's
// count their sum with the executions (callgrind 3.19). nullopt where the output holds no such jump.
std::optional<double> rep_iterations(const CallgrindFunction& f, std::uint64_t address) {
    auto it = std::lower_bound(f.jumps.begin(), f.jumps.end(), address,
                               [](const CallgrindJump& j, std::uint64_t a) { return j.from < a; });
    std::optional<double> taken;
    for (; it != f.jumps.end() && it->from == address; ++it)
        if (it->to == address)
            taken = taken.value_or(0.0) + it->taken;
    return taken;
}

void add_instruction(CountedWork& w, const CallgrindData& data, const CallgrindInstruction& ins,
                     std::size_t ir, const InstructionWork* iw, const CallgrindFunction& f) {
    const double n = event(ins, ir);
    w.instructions += n;
    for (std::size_t e = 0; e < data.events.size(); ++e)
        if (e != ir && e < ins.events.size() && ins.events[e] != 0)
            w.events[data.events[e]] += ins.events[e];
    if (!iw) {
        w.unmatched += n;
        return;
    }
    w.flops_dp += n * iw->flops_dp;
    w.flops_sp += n * iw->flops_sp;
    w.bytes_loaded += n * iw->load_bytes;
    w.bytes_stored += n * iw->store_bytes;
    // A rep movs/stos/lods runs its %rcx iterations unless interrupted; repz/repnz cmps and scas also
    // stop on a comparison, in an iteration that does not jump back, so theirs stay unknown.
    const bool rep = (iw->rep_load_bytes > 0 || iw->rep_store_bytes > 0) && !iw->rep_conditional;
    const std::optional<double> iterations = rep ? rep_iterations(f, ins.address) : std::nullopt;
    if (iterations) {
        w.bytes_loaded += *iterations * iw->rep_load_bytes;
        w.bytes_stored += *iterations * iw->rep_store_bytes;
    } else if (iw->width_unknown) {
        w.unknown_width += n;
    }
    if (n > 0 && iw->fp_arithmetic)
        w.vector_bits = std::max(w.vector_bits, iw->vector_bits);
}

// The instructions of `f` with begin <= address <= end (f.instructions is sorted by address).
std::pair<std::size_t, std::size_t> address_range(const CallgrindFunction& f, std::uint64_t begin,
                                                  std::uint64_t end) {
    const auto lo =
        std::lower_bound(f.instructions.begin(), f.instructions.end(), begin,
                         [](const CallgrindInstruction& i, std::uint64_t a) { return i.address < a; });
    const auto hi =
        std::upper_bound(f.instructions.begin(), f.instructions.end(), end,
                         [](std::uint64_t a, const CallgrindInstruction& i) { return a < i.address; });
    return {static_cast<std::size_t>(lo - f.instructions.begin()),
            static_cast<std::size_t>(hi - f.instructions.begin())};
}

std::string file_name(const CallgrindData& data, std::size_t file) {
    if (file >= data.files.size() || data.files[file] == "???")
        return {};
    return data.files[file];
}

// Innermost loops of `f`: the backward jumps that ran and hold no other such jump strictly inside.
std::vector<CallgrindJump> innermost_back_edges(const CallgrindFunction& f) {
    std::vector<CallgrindJump> back;
    for (const CallgrindJump& j : f.jumps)
        if (j.to <= j.from && j.executed > 0)
            back.push_back(j);
    std::vector<CallgrindJump> inner;
    for (const CallgrindJump& a : back) {
        const bool holds_another = std::any_of(back.begin(), back.end(), [&](const CallgrindJump& b) {
            return &a != &b && b.to >= a.to && b.from <= a.from && (b.to != a.to || b.from != a.from);
        });
        const bool duplicate = std::any_of(inner.begin(), inner.end(), [&](const CallgrindJump& b) {
            return b.to == a.to && b.from == a.from;
        });
        if (!holds_another && !duplicate)
            inner.push_back(a);
    }
    std::sort(inner.begin(), inner.end(), [](const auto& a, const auto& b) { return a.to < b.to; });
    return inner;
}

CountedLoop count_loop(const CallgrindData& data, const CallgrindFunction& f, const CallgrindJump& j,
                       std::size_t ir, const WorkTable* table) {
    CountedLoop loop;
    loop.object = f.object;
    loop.function = f.name;
    loop.begin = j.to;
    loop.end = j.from;
    loop.iterations = j.executed;
    loop.entries = j.conditional ? j.executed - j.taken : 0;
    const auto [lo, hi] = address_range(f, j.to, j.from);
    std::map<std::string, double> sources;
    for (std::size_t k = lo; k < hi; ++k) {
        const CallgrindInstruction& ins = f.instructions[k];
        const InstructionWork* iw = nullptr;
        if (table)
            if (const auto it = table->find(ins.address); it != table->end())
                iw = &it->second;
        add_instruction(loop.work, data, ins, ir, iw, f);
        if (const std::string file = file_name(data, ins.file); !file.empty() && ins.line > 0)
            sources[fmt::format("{}:{}", file, ins.line)] += event(ins, ir);
        if (ins.address == j.from) {
            loop.file = file_name(data, ins.file);
            loop.line = ins.line;
        }
    }
    std::vector<std::pair<double, std::string>> by_count;
    for (const auto& [s, n] : sources)
        by_count.emplace_back(-n, s);
    std::sort(by_count.begin(), by_count.end());
    for (std::size_t k = 0; k < by_count.size() && k < k_max_sources_per_loop; ++k)
        loop.sources.push_back(by_count[k].second);
    return loop;
}

} // namespace

CountedProgram count_work(const CallgrindData& data, const std::map<std::string, WorkTable>& work) {
    CountedProgram out;
    out.files = data.files;
    const std::size_t ir = event_index(data, "Ir");
    for (const CallgrindFunction& f : data.functions) {
        const auto t = work.find(f.object);
        const WorkTable* table = t == work.end() ? nullptr : &t->second;
        CountedFunction cf;
        cf.object = f.object;
        cf.name = f.name;
        cf.file = file_name(data, f.file);
        for (const CallgrindInstruction& ins : f.instructions) {
            const InstructionWork* iw = nullptr;
            if (table)
                if (const auto it = table->find(ins.address); it != table->end())
                    iw = &it->second;
            add_instruction(cf.work, data, ins, ir, iw, f);
            add_instruction(cf.lines[{ins.file, ins.line}], data, ins, ir, iw, f);
        }
        out.executed += cf.work.instructions;
        out.unmatched += cf.work.unmatched;
        for (const CallgrindJump& j : innermost_back_edges(f))
            out.loops.push_back(count_loop(data, f, j, ir, table));
        out.functions.push_back(std::move(cf));
    }
    return out;
}

void add_simulated_events(CountedProgram& into, const CallgrindData& data, const std::string& prefix) {
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    for (std::size_t i = 0; i < into.functions.size(); ++i)
        index.emplace(std::make_pair(into.functions[i].object, into.functions[i].name), i);
    std::map<std::pair<std::string, std::string>, std::vector<CountedLoop*>> loops;
    for (CountedLoop& l : into.loops)
        loops[{l.object, l.function}].push_back(&l);
    const std::size_t ir = event_index(data, "Ir");
    for (const CallgrindFunction& f : data.functions) {
        const auto it = index.find({f.object, f.name});
        if (it == index.end())
            continue;
        CountedWork& w = into.functions[it->second].work;
        const auto lit = loops.find({f.object, f.name});
        for (const CallgrindInstruction& ins : f.instructions)
            for (std::size_t e = 0; e < data.events.size() && e < ins.events.size(); ++e) {
                if (e == ir || ins.events[e] == 0)
                    continue;
                const std::string name = prefix + data.events[e];
                w.events[name] += ins.events[e];
                into.functions[it->second].lines[{ins.file, ins.line}].events[name] += ins.events[e];
                if (lit != loops.end())
                    for (CountedLoop* l : lit->second)
                        if (ins.address >= l->begin && ins.address <= l->end)
                            l->work.events[name] += ins.events[e];
            }
    }
}

double simulated_level_bytes(const CountedWork& w, const std::string& prefix, double line_bytes) {
    double misses = 0;
    for (const char* e : {"DLmr", "DLmw", "DLdmr", "DLdmw"})
        if (const auto it = w.events.find(prefix + e); it != w.events.end())
            misses += it->second;
    return misses * line_bytes;
}

std::string callgrind_text(const CountedProgram& p,
                           const std::vector<std::pair<std::string, std::string>>& levels, double line_bytes,
                           const std::string& command) {
    std::string out = "# callgrind format\nversion: 1\ncreator: roofcast\n";
    out += "cmd: " + command + "\npositions: line\nevents: Ir Flops Flops_DP Flops_SP Bytes_L1";
    for (const auto& l : levels)
        out += " Bytes_" + l.second;
    out += "\n";
    const auto costs = [&](const CountedWork& w) {
        std::string c = fmt::format("{:.0f} {:.0f} {:.0f} {:.0f} {:.0f}", w.instructions, w.flops(),
                                    w.flops_dp, w.flops_sp, w.bytes_l1());
        for (const auto& l : levels)
            c += fmt::format(" {:.0f}", simulated_level_bytes(w, l.first, line_bytes));
        return c;
    };
    CountedWork total;
    std::string body;
    for (const CountedFunction& f : p.functions) {
        if (f.work.instructions <= 0)
            continue;
        // fl= names the function's own file, fi= the file of the lines that follow (inlined code).
        const auto name_of = [&](std::size_t file) { return file < p.files.size() ? p.files[file] : "???"; };
        const std::size_t own = f.lines.empty() ? 0 : f.lines.begin()->first.first;
        body +=
            fmt::format("ob={}\nfl={}\nfn={}\n", f.object.empty() ? "???" : f.object, name_of(own), f.name);
        std::size_t file = own;
        for (const auto& [where, w] : f.lines) {
            if (where.first != file) {
                file = where.first;
                body += fmt::format("fi={}\n", name_of(file));
            }
            body += fmt::format("{} {}\n", std::max<std::int64_t>(where.second, 0), costs(w));
        }
        total.instructions += f.work.instructions;
        total.flops_dp += f.work.flops_dp;
        total.flops_sp += f.work.flops_sp;
        total.bytes_loaded += f.work.bytes_loaded;
        total.bytes_stored += f.work.bytes_stored;
        for (const auto& [e, v] : f.work.events)
            total.events[e] += v;
        body += "\n";
    }
    return out + "summary: " + costs(total) + "\n\n" + body;
}

std::map<std::string, std::uint64_t> parse_symbol_addresses(const std::string& nm_text) {
    std::map<std::string, std::uint64_t> out;
    std::set<std::string> ambiguous;
    std::istringstream in(nm_text);
    std::string line;
    while (std::getline(in, line)) {
        // "<address> <type> <name>": the name may hold spaces (demangled C++).
        const auto a = line.find(' ');
        if (a == std::string::npos || a == 0 || a > 16 || a + 3 > line.size() || line[a + 2] != ' ')
            continue;
        const std::string hex = line.substr(0, a);
        if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            continue;
        const std::uint64_t address = std::stoull(hex, nullptr, 16);
        const std::string name = line.substr(a + 3);
        if (name.empty() || ambiguous.count(name))
            continue;
        const auto [it, added] = out.emplace(name, address);
        if (!added && it->second != address) {
            out.erase(it);
            ambiguous.insert(name);
        }
    }
    return out;
}

bool same_object(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    return a == b || (!a.empty() && !b.empty() && fs::path(a).filename() == fs::path(b).filename());
}

std::vector<SampledTime>
loop_sampled_time(const CountedProgram& p, const std::vector<PerfSamplePlace>& samples,
                  const std::map<std::string, std::map<std::string, std::uint64_t>>& symbols) {
    namespace fs = std::filesystem;
    std::vector<SampledTime> times(p.loops.size());
    for (const PerfSamplePlace& s : samples) {
        const std::map<std::string, std::uint64_t>* table = nullptr;
        for (const auto& [object, names] : symbols)
            if (same_object(object, s.dso)) {
                table = &names;
                break;
            }
        if (table == nullptr)
            continue;
        const auto sym = table->find(s.symbol);
        if (sym == table->end())
            continue;
        const std::uint64_t address = sym->second + s.offset;
        // Innermost loops do not nest; the narrowest holding the address is taken should two overlap.
        std::size_t best = p.loops.size();
        for (std::size_t i = 0; i < p.loops.size(); ++i) {
            const CountedLoop& l = p.loops[i];
            if (address < l.begin || address > l.end || !same_object(l.object, s.dso))
                continue;
            if (best == p.loops.size() || l.end - l.begin < p.loops[best].end - p.loops[best].begin)
                best = i;
        }
        if (best < p.loops.size()) {
            times[best].seconds += s.period * 1e-9;
            times[best].samples += s.samples;
        }
    }
    return times;
}

std::string counted_name_of(const CountedProgram& p,
                            const std::map<std::string, std::map<std::string, std::uint64_t>>& symbols,
                            const std::string& dso, const std::string& symbol) {
    for (const auto& [object, names] : symbols) {
        if (!same_object(object, dso))
            continue;
        const auto at = names.find(symbol);
        if (at == names.end())
            return symbol;
        const std::string* alias = nullptr;
        for (const CountedFunction& f : p.functions) {
            if (!same_object(f.object, object))
                continue;
            if (f.name == symbol)
                return symbol;
            const auto mine = names.find(f.name);
            if (!alias && mine != names.end() && mine->second == at->second)
                alias = &f.name;
        }
        return alias ? *alias : symbol;
    }
    return symbol;
}

namespace {
// Executed addresses further apart than this are disassembled by separate objdump calls: one call costs about
// as much as disassembling and reading a few KiB of code, so a wider gap of code that never ran is skipped.
constexpr std::uint64_t k_disassembly_gap_bytes = 4 * 1024;
// At most this many calls per object: beyond it, the narrowest gaps are disassembled through.
constexpr std::size_t k_max_disassembly_ranges = 64;
} // namespace

// The address ranges objdump reads for these executed addresses: split at every gap wider than
// k_disassembly_gap_bytes, the widest k_max_disassembly_ranges - 1 of them where there are more.
std::vector<std::pair<std::uint64_t, std::uint64_t>>
disassembly_ranges(std::vector<std::uint64_t> addresses) {
    if (addresses.empty())
        return {};
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
    std::vector<std::uint64_t> gaps; // widths of the gaps that would split
    for (std::size_t i = 1; i < addresses.size(); ++i)
        if (addresses[i] - addresses[i - 1] > k_disassembly_gap_bytes)
            gaps.push_back(addresses[i] - addresses[i - 1]);
    std::uint64_t split_above = k_disassembly_gap_bytes;
    if (gaps.size() >= k_max_disassembly_ranges) {
        std::nth_element(gaps.begin(), gaps.end() - k_max_disassembly_ranges, gaps.end());
        split_above = gaps[gaps.size() - k_max_disassembly_ranges]; // the widest 63 are strictly wider
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges{{addresses.front(), addresses.front()}};
    for (const std::uint64_t a : addresses) {
        if (a - ranges.back().second > split_above)
            ranges.emplace_back(a, a);
        ranges.back().second = a;
    }
    return ranges;
}

} // namespace roofcast::measure::profile
