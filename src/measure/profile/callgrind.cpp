#include "measure/profile/callgrind.hpp"

#include "core/error.hpp"
#include "measure/profile/callgrind_syntax.hpp"
#include "measure/profile/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace roofcast::measure::profile {

namespace {

using namespace callgrind_syntax;

inline constexpr std::size_t k_none = std::numeric_limits<std::size_t>::max();

struct InstrKey {
    std::uint64_t address;
    std::int64_t line;
    std::size_t file;
    bool operator==(const InstrKey&) const = default;
};
struct InstrKeyHash {
    std::size_t operator()(const InstrKey& k) const {
        std::size_t h = std::hash<std::uint64_t>{}(k.address);
        h ^= std::hash<std::int64_t>{}(k.line) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= std::hash<std::size_t>{}(k.file) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        return h;
    }
};

// What a function's costs are merged by while reading (dropped once the file is read).
struct FunctionIndex {
    std::unordered_map<InstrKey, std::size_t, InstrKeyHash> instructions;
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::int64_t, std::int64_t, bool>, std::size_t> jumps;
    std::map<std::tuple<std::uint64_t, std::int64_t, std::size_t>, std::size_t> calls;
};

// The costs of one part, until the part ends.
struct Part {
    bool open = false; // an `events:` line was read in it
    bool body = false; // a cost line was read in it
    std::optional<std::vector<Sub>> positions;
    std::optional<std::vector<double>> summary, totals;
    std::vector<double> self;
};

// A `calls=`, `jump=` or `jcnd=` line waiting for the position line after it.
struct Pending {
    enum class Kind { none, call, jump } kind = Kind::none;
    std::string key; // "calls=", "jump=" or "jcnd=", for messages
    double count = 0, taken = 0;
    bool conditional = false;
    Position target;
    std::size_t callee = k_none;
};

class Parser {
public:
    Parser(const std::string& text, const std::string& label, const CallgrindLimits& limits)
        : m_lines(text, label, limits.line), m_label(label), m_limits(limits), m_object_ids(limits.functions),
          m_file_name_ids(limits.functions), m_function_ids(limits.functions) {
        m_out.files.emplace_back();
        m_file_ids.emplace("", 0);
    }
    CallgrindData run();

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw core::InputError(m_label, m_lines.field(), what);
    }
    void check(const std::string& error) const {
        if (!error.empty())
            fail(error);
    }
    void header(std::string_view key, std::string_view value);
    void spec(std::string_view key, std::string_view value);
    void cost_line(std::string_view line);
    void jump_line(std::string_view key, std::string_view value);
    void call_line(std::string_view value);
    void end_part();
    std::vector<double> counts(std::string_view s, const char* what);
    Position subpositions(std::string_view& s, const Position& base);
    std::string name(NameIds& ids, const char* key, std::string_view value);
    std::size_t file_index(const std::string& name);
    std::size_t function_index(const std::string& object, const std::string& name, std::size_t file);
    void settle_positions();
    std::size_t current_function();
    void add_self(std::size_t fn, const Position& at, const std::vector<double>& cost);
    void add_call(std::size_t fn, const Position& at, const std::vector<double>& cost);
    void add_jump(std::size_t fn, const Position& at);

    text::Lines m_lines;
    std::string m_label;
    CallgrindLimits m_limits;
    CallgrindData m_out;
    std::vector<Sub> m_positions; // of the first part; every part must have the same
    bool m_have_positions = false;
    Part m_part;
    bool m_every_part_totals = true;
    // Name compression: one id space for objects, one for files, one for functions.
    NameIds m_object_ids, m_file_name_ids, m_function_ids;
    std::map<std::string, std::size_t> m_file_ids;
    std::map<std::pair<std::string, std::string>, std::size_t> m_function_ids_by_key;
    std::vector<FunctionIndex> m_index; // parallel to m_out.functions
    std::size_t m_instructions = 0, m_arcs = 0;
    // The position specifications in force.
    std::string m_object, m_function;
    bool m_have_function = false;
    std::size_t m_fl = 0, m_line_file = 0;
    std::size_t m_current = k_none; // m_out.functions index of (m_object, m_function) once looked up
    std::optional<std::string> m_cob, m_cfn;
    std::optional<std::size_t> m_cfi;
    Position m_last;            // of the previous cost line: relative subpositions start from it
    std::vector<double> m_cost; // the counts of the cost line being read
    Pending m_pending;
};

std::vector<double> Parser::counts(std::string_view s, const char* what) {
    std::vector<double> out;
    check(read_counts(s, m_out.events.size(), what, out));
    return out;
}

// One subposition list (a cost line's start or a jump's or call's target), relative to `base`.
Position Parser::subpositions(std::string_view& s, const Position& base) {
    Position p;
    check(read_position(s, m_positions, base, p));
    return p;
}

std::string Parser::name(NameIds& ids, const char* key, std::string_view value) {
    std::string out;
    check(ids.resolve(key, value, out));
    return out;
}

std::size_t Parser::file_index(const std::string& name) {
    const auto it = m_file_ids.find(name);
    if (it != m_file_ids.end())
        return it->second;
    if (m_out.files.size() > m_limits.functions)
        fail(fmt::format("expected at most {} source files", m_limits.functions));
    m_out.files.push_back(name);
    m_file_ids.emplace(name, m_out.files.size() - 1);
    return m_out.files.size() - 1;
}

std::size_t Parser::function_index(const std::string& object, const std::string& name, std::size_t file) {
    const auto key = std::make_pair(object, name);
    const auto it = m_function_ids_by_key.find(key);
    if (it != m_function_ids_by_key.end())
        return it->second;
    if (m_out.functions.size() >= m_limits.functions)
        fail(fmt::format("expected at most {} functions", m_limits.functions));
    CallgrindFunction f;
    f.object = object;
    f.name = name;
    f.file = file;
    m_out.functions.push_back(std::move(f));
    m_index.emplace_back();
    m_function_ids_by_key.emplace(key, m_out.functions.size() - 1);
    return m_out.functions.size() - 1;
}

std::size_t Parser::current_function() {
    if (!m_have_function)
        fail("expected 'fn=' before the first cost line");
    if (m_current == k_none)
        m_current = function_index(m_object, m_function, m_fl);
    return m_current;
}

void Parser::add_self(std::size_t fn, const Position& at, const std::vector<double>& cost) {
    const InstrKey key =
        m_out.has_instructions ? InstrKey{at.instr, 0, 0} : InstrKey{0, at.line, m_line_file};
    auto& index = m_index[fn].instructions;
    auto& list = m_out.functions[fn].instructions;
    auto it = index.find(key);
    if (it == index.end()) {
        if (m_instructions >= m_limits.instructions)
            fail(fmt::format("expected at most {} instruction addresses", m_limits.instructions));
        ++m_instructions;
        list.push_back({m_out.has_instructions ? at.instr : 0, at.line, m_line_file,
                        std::vector<double>(cost.size(), 0.0)});
        it = index.emplace(key, list.size() - 1).first;
    }
    auto& events = list[it->second].events;
    for (std::size_t i = 0; i < cost.size(); ++i) {
        events[i] += cost[i];
        m_part.self[i] += cost[i];
    }
}

void Parser::add_call(std::size_t fn, const Position& at, const std::vector<double>& cost) {
    const auto key = std::make_tuple(at.instr, at.line, m_pending.callee);
    auto& index = m_index[fn].calls;
    auto& list = m_out.functions[fn].calls;
    const auto it = index.find(key);
    if (it != index.end()) {
        auto& c = list[it->second];
        c.count += m_pending.count;
        for (std::size_t i = 0; i < cost.size(); ++i)
            c.inclusive[i] += cost[i];
        return;
    }
    if (m_arcs >= m_limits.arcs)
        fail(fmt::format("expected at most {} jumps and calls", m_limits.arcs));
    ++m_arcs;
    list.push_back({at.instr, at.line, m_pending.callee, m_pending.count, cost});
    index.emplace(key, list.size() - 1);
}

void Parser::add_jump(std::size_t fn, const Position& at) {
    const bool by_address = m_out.has_instructions;
    const auto key = std::make_tuple(at.instr, m_pending.target.instr, by_address ? 0 : at.line,
                                     by_address ? 0 : m_pending.target.line, m_pending.conditional);
    auto& index = m_index[fn].jumps;
    auto& list = m_out.functions[fn].jumps;
    const auto it = index.find(key);
    if (it != index.end()) {
        list[it->second].executed += m_pending.count;
        list[it->second].taken += m_pending.taken;
        return;
    }
    if (m_arcs >= m_limits.arcs)
        fail(fmt::format("expected at most {} jumps and calls", m_limits.arcs));
    ++m_arcs;
    list.push_back({at.instr, m_pending.target.instr, at.line, m_pending.target.line, m_pending.count,
                    m_pending.taken, m_pending.conditional});
    index.emplace(key, list.size() - 1);
}

// The part's positions, settled at its first cost, call or jump line.
void Parser::settle_positions() {
    if (!m_part.open)
        fail("expected an 'events:' line before the first cost, call or jump line");
    if (!m_part.body) {
        const auto positions = m_part.positions.value_or(std::vector<Sub>{Sub::line});
        if (!m_have_positions) {
            m_positions = positions;
            m_have_positions = true;
            m_out.has_instructions = positions.front() == Sub::instr;
        } else if (positions != m_positions) {
            fail("expected the same 'positions:' in every part");
        }
        m_part.body = true;
    }
}

void Parser::cost_line(std::string_view line) {
    settle_positions();
    const Position at = subpositions(line, m_last);
    m_last = at;
    const bool has_counts = !blank(line);
    check(read_counts(line, m_out.events.size(), "a cost line", m_cost)); // m_cost: no allocation per line
    const std::size_t fn = current_function();
    const Pending::Kind kind = m_pending.kind;
    if (kind == Pending::Kind::call) {
        m_pending.kind = Pending::Kind::none;
        add_call(fn, at, m_cost); // inclusive cost of the call: not this function's self cost
        return;
    }
    if (kind == Pending::Kind::jump) {
        m_pending.kind = Pending::Kind::none;
        add_jump(fn, at);
    }
    if (has_counts)
        add_self(fn, at, m_cost);
}

void Parser::jump_line(std::string_view key, std::string_view value) {
    settle_positions();
    Pending p;
    p.key = std::string(key) + "=";
    p.conditional = key == "jcnd";
    const auto first = text::next_word(value);
    std::uint64_t a = 0, b = 0;
    bool ok = false;
    if (!p.conditional) {
        ok = parse_u64(first, a);
        b = a;
    } else if (const auto slash = first.find('/'); slash != std::string_view::npos) {
        // callgrind writes "jcnd=<followed>/<executions>" (dump.c, fprint_jcc)
        ok = parse_u64(first.substr(0, slash), b) && parse_u64(first.substr(slash + 1), a);
    } else {
        // the manual's grammar: "jcnd=" exe-count Space+ jump-count Space+ target
        ok = parse_u64(first, a) && parse_u64(text::next_word(value), b);
    }
    if (!ok)
        fail(p.conditional ? "expected 'jcnd=TAKEN/EXECUTED TARGET' (or 'jcnd=EXECUTED TAKEN TARGET') with "
                             "non-negative integer counts"
                           : "expected 'jump=COUNT TARGET' with a non-negative integer count");
    p.count = static_cast<double>(a);
    p.taken = static_cast<double>(b);
    p.target = subpositions(value, m_last); // relative to the previous cost line, which it does not move
    if (!blank(value))
        fail(fmt::format("expected nothing after the target of '{}'", p.key));
    p.kind = Pending::Kind::jump;
    m_pending = std::move(p);
}

void Parser::call_line(std::string_view value) {
    if (!m_cfn)
        fail("expected 'cfn=' before 'calls='");
    settle_positions();
    Pending p;
    p.key = "calls=";
    std::uint64_t n = 0;
    if (!parse_u64(text::next_word(value), n))
        fail("expected 'calls=COUNT TARGET' with a non-negative integer count");
    p.count = static_cast<double>(n);
    p.target = subpositions(value, m_last);
    if (!blank(value))
        fail("expected nothing after the target of 'calls='");
    // callgrind names the callee's object and file only where they differ from the caller's (dump.c).
    p.callee = function_index(m_cob.value_or(m_object), *m_cfn, m_cfi.value_or(m_line_file));
    p.kind = Pending::Kind::call;
    m_pending = std::move(p);
    m_cob.reset(); // callgrind names them again for every call
    m_cfi.reset();
    m_cfn.reset();
}

void Parser::spec(std::string_view key, std::string_view value) {
    if (key == "ob") {
        m_object = name(m_object_ids, "ob", value);
        m_current = k_none;
    } else if (key == "fl") {
        m_fl = m_line_file = file_index(name(m_file_name_ids, "fl", value));
    } else if (key == "fi" || key == "fe") {
        m_line_file = file_index(name(m_file_name_ids, key == "fi" ? "fi" : "fe", value));
    } else if (key == "fn") {
        const std::string n = name(m_function_ids, "fn", value);
        if (n.empty())
            fail("expected a function name after 'fn='");
        m_function = function_name(n);
        m_have_function = true;
        m_current = k_none;
        m_line_file = m_fl;
        m_cob.reset();
        m_cfi.reset();
        m_cfn.reset();
    } else if (key == "cob") {
        m_cob = name(m_object_ids, "cob", value);
    } else if (key == "cfi" || key == "cfl") {
        m_cfi = file_index(name(m_file_name_ids, key == "cfi" ? "cfi" : "cfl", value));
    } else if (key == "jfi") {
        (void)name(m_file_name_ids, "jfi", value);
    } else if (key == "cfn") {
        const std::string n = name(m_function_ids, "cfn", value);
        if (n.empty())
            fail("expected a function name after 'cfn='");
        m_cfn = function_name(n);
    } else if (key == "jfn" || key == "frfn") {
        (void)name(m_function_ids, key == "jfn" ? "jfn" : "frfn", value);
    } else if (key == "calls") {
        call_line(value);
    } else if (key == "jump" || key == "jcnd") {
        jump_line(key, value);
    }
    // Other keys (rec=, ln=, bb= of --dump-bbs) carry nothing read here.
}

void Parser::end_part() {
    if (!m_part.open)
        return;
    const auto& part_sum = m_part.summary ? *m_part.summary : m_part.totals ? *m_part.totals : m_part.self;
    for (std::size_t i = 0; i < part_sum.size(); ++i)
        m_out.summary[i] += part_sum[i];
    if (m_part.totals && m_every_part_totals)
        for (std::size_t i = 0; i < m_part.totals->size(); ++i)
            m_out.totals[i] += (*m_part.totals)[i];
    else
        m_every_part_totals = false;
    ++m_out.parts;
    m_part = Part{};
}

void Parser::header(std::string_view key, std::string_view value) {
    if (key == "part") {
        end_part();
    } else if (key == "events") {
        if (m_part.open)
            end_part(); // a new part that has no `part:` line
        std::vector<std::string> events;
        for (const auto w : text::words(value))
            events.emplace_back(w);
        if (events.empty() || events.size() > m_limits.events)
            fail(fmt::format("expected 1 to {} event names after 'events:'", m_limits.events));
        if (m_out.events.empty()) {
            m_out.events = std::move(events);
            m_out.summary.assign(m_out.events.size(), 0.0);
            m_out.totals.assign(m_out.events.size(), 0.0);
        } else if (events != m_out.events) {
            fail("expected the same 'events:' in every part");
        }
        m_part.open = true;
        m_part.self.assign(m_out.events.size(), 0.0);
    } else if (key == "positions") {
        if (m_part.body)
            fail("expected 'positions:' before the first cost line of its part");
        m_part.positions = parse_positions(value);
        if (!m_part.positions)
            fail("expected 'positions:' to list some of instr, bb and line, in that order");
    } else if (key == "summary" || key == "totals") {
        if (!m_part.open)
            fail(fmt::format("expected an 'events:' line before '{}:'", key));
        auto c = counts(value, key == "summary" ? "'summary:'" : "'totals:'");
        (key == "summary" ? m_part.summary : m_part.totals) = std::move(c);
    } else if (key == "cmd") {
        if (m_out.command.empty())
            m_out.command = text::trim(value);
    } else if (key == "version") {
        const std::string v = text::trim(value);
        if (v != "1" && v != "0")
            fail(fmt::format("expected 'version: 1' (the format this reads), not '{}'",
                             core::terminal_safe(v, 40)));
    }
    // creator:, pid:, thread:, desc:, event: and keys unknown here describe the run: not read.
}

CallgrindData Parser::run() {
    std::string_view line;
    while (m_lines.next(line)) {
        std::string_view t = line;
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
            t.remove_prefix(1);
        if (t.empty() || t[0] == '#')
            continue;
        const char c = t[0];
        const bool cost = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
        if (m_pending.kind != Pending::Kind::none && !cost)
            fail(fmt::format("expected the position line that '{}' needs after it", m_pending.key));
        if (cost) {
            cost_line(t);
            continue;
        }
        std::size_t k = 0;
        while (k < t.size() && ((t[k] >= 'a' && t[k] <= 'z') || (t[k] >= 'A' && t[k] <= 'Z')))
            ++k;
        if (k == 0 || k == t.size() || (t[k] != ':' && t[k] != '='))
            fail("expected a cost line, a 'key: value' header line or a 'key=value' position line");
        if (t[k] == ':')
            header(t.substr(0, k), t.substr(k + 1));
        else
            spec(t.substr(0, k), t.substr(k + 1));
    }
    if (m_pending.kind != Pending::Kind::none)
        fail(fmt::format("expected the position line that '{}' needs after it (the file ends)",
                         m_pending.key));
    if (m_out.events.empty())
        throw core::InputError(m_label, "events", "missing required 'events:' line (not a callgrind output)");
    end_part();
    if (!m_every_part_totals)
        m_out.totals.clear();
    for (auto& f : m_out.functions) {
        std::sort(f.instructions.begin(), f.instructions.end(), [](const auto& a, const auto& b) {
            return std::tie(a.address, a.line, a.file) < std::tie(b.address, b.line, b.file);
        });
        std::sort(f.jumps.begin(), f.jumps.end(), [](const auto& a, const auto& b) {
            return std::tie(a.from, a.to, a.from_line, a.to_line, a.conditional) <
                   std::tie(b.from, b.to, b.from_line, b.to_line, b.conditional);
        });
        std::sort(f.calls.begin(), f.calls.end(), [](const auto& a, const auto& b) {
            return std::tie(a.from, a.line, a.callee) < std::tie(b.from, b.line, b.callee);
        });
    }
    return std::move(m_out);
}

} // namespace

CallgrindData parse_callgrind(const std::string& text, const std::string& label,
                              const CallgrindLimits& limits) {
    return Parser(text, label, limits).run();
}

} // namespace roofcast::measure::profile
