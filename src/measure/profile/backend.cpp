#include "measure/profile/backend.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/process.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string_view>
#include <unistd.h>

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {
// Tool outputs larger than this are refused rather than read into memory.
constexpr std::uintmax_t k_max_tool_output = std::uintmax_t{1} << 30;
} // namespace

void Gather::add(const std::string& name, const std::string& kind, const std::string& metric,
                 core::MetricOrigin origin, const std::string& aggregate, const std::string& unit, int rep,
                 int rank, double value) {
    auto [it, inserted] = m_index.try_emplace(name, m_functions.size());
    if (inserted) {
        m_functions.push_back(core::ProfileFunction{name, kind, {}});
        m_seen.emplace_back();
    }
    auto& f = m_functions[it->second];
    auto [mit, minserted] = f.metrics.try_emplace(metric);
    if (minserted) {
        mit->second.origin = origin;
        mit->second.aggregate = aggregate;
        mit->second.unit = unit;
        mit->second.per_rank.assign(m_reps, std::vector<double>(m_ranks, 0.0));
    }
    mit->second.per_rank.at(rep).at(rank) += value;
    m_seen[it->second].insert(rank);
}

std::vector<core::ProfileFunction> Gather::take(std::vector<std::string>& warnings) {
    std::vector<std::string> partial;
    for (std::size_t i = 0; i < m_functions.size(); ++i)
        if (static_cast<int>(m_seen[i].size()) != m_ranks)
            partial.push_back(m_functions[i].name);
    if (!partial.empty())
        warnings.push_back(fmt::format(
            "ranks report different function sets: {} function(s) appear on only some ranks (kept, 0 on "
            "the others), e.g. '{}'",
            partial.size(), partial.front()));
    return std::move(m_functions);
}

std::string ProfileBackend::explain_failure(const RunContext&, std::size_t, const fs::path&) const {
    return {};
}

std::string read_tool_output(const fs::path& p) {
    std::error_code ec;
    if (const auto size = fs::file_size(p, ec); !ec && size > k_max_tool_output)
        throw core::Error(fmt::format("{}: {} bytes of tool output, more than the {} roofcast reads",
                                      p.string(), size, k_max_tool_output));
    try {
        return core::read_file(p);
    } catch (const core::Error&) {
        return {};
    }
}

std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\r'))
        t.pop_back();
    const auto nl = t.find_last_of('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::vector<ValgrindLog> valgrind_logs(const fs::path& dir, const std::string& prefix, int rank) {
    const std::string plain = fmt::format("{}.{}.log", prefix, rank);
    const std::string per_process = fmt::format("{}.{}.", prefix, rank);
    std::vector<ValgrindLog> logs;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool own_pid = name.size() > per_process.size() + 4 && name.starts_with(per_process) &&
                             name.ends_with(".log") &&
                             std::all_of(name.begin() + static_cast<std::ptrdiff_t>(per_process.size()),
                                         name.end() - 4, [](char ch) { return ch >= '0' && ch <= '9'; });
        if (name != plain && !own_pid)
            continue;
        ValgrindLog log;
        log.text = read_tool_output(it->path());
        // "==1234== Command: prog args" and "==1234== Parent PID: 1200" (valgrind's preamble).
        std::string_view rest = log.text;
        while (!rest.empty()) {
            const auto nl = rest.find('\n');
            const std::string_view line = rest.substr(0, nl);
            rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
            const auto mark = line.find("== ");
            if (!line.starts_with("==") || mark == std::string_view::npos)
                continue;
            const std::string_view body = line.substr(mark + 3);
            if (log.pid == 0)
                log.pid = std::atol(std::string(line.substr(2, mark - 2)).c_str());
            if (body.starts_with("Command: ") && log.command.empty())
                log.command = std::string(body.substr(9));
            else if (body.starts_with("Parent PID: ") && log.parent == 0)
                log.parent = std::atol(std::string(body.substr(12)).c_str());
            if (!log.command.empty() && log.parent != 0)
                break;
        }
        logs.push_back(std::move(log));
    }
    // The children first, in the order they started; the process no other log's process started, last.
    const auto traced = [&logs](long pid) {
        return std::any_of(logs.begin(), logs.end(), [pid](const ValgrindLog& l) { return l.pid == pid; });
    };
    std::stable_sort(logs.begin(), logs.end(), [&](const ValgrindLog& a, const ValgrindLog& b) {
        const bool a_root = !traced(a.parent), b_root = !traced(b.parent);
        return a_root != b_root ? b_root : a.pid < b.pid;
    });
    return logs;
}

std::pair<int, std::string> capture_tool(const std::vector<std::string>& args) {
    core::CaptureOptions o;
    o.max_bytes = std::size_t{1} << 20;
    o.timeout_s = 30;
    const core::CapturedOutput out = core::capture_program(args, o);
    return {out.status, out.output};
}

std::string glibc_cache_tunables(const std::string& list_tunables) {
    // Lines "glibc.cpu.x86_non_temporal_threshold: 0xf000000 (min: 0x4040, max: …)" (glibc 2.33 and later).
    static constexpr std::array<std::string_view, 5> k_keys{
        "glibc.cpu.x86_non_temporal_threshold", "glibc.cpu.x86_rep_movsb_threshold",
        "glibc.cpu.x86_rep_stosb_threshold", "glibc.cpu.x86_shared_cache_size",
        "glibc.cpu.x86_data_cache_size"};
    std::vector<std::string> out;
    std::string_view rest = list_tunables;
    while (!rest.empty()) {
        const auto nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
        const auto colon = line.find(": ");
        if (colon == std::string_view::npos ||
            std::find(k_keys.begin(), k_keys.end(), line.substr(0, colon)) == k_keys.end())
            continue;
        const std::string_view value = line.substr(colon + 2, line.find(' ', colon + 2) - (colon + 2));
        if (value.size() > 2 && value.substr(0, 2) == "0x" &&
            value.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos)
            out.push_back(fmt::format("{}={}", line.substr(0, colon), value));
    }
    return fmt::format("{}", fmt::join(out, ":"));
}

std::string native_glibc_cache_tunables(const std::string& tunables) {
    const std::string loader = "/lib64/ld-linux-x86-64.so.2";
    if (::access(loader.c_str(), X_OK) != 0)
        return {};
    const auto [rc, out] = capture_tool({"env", "GLIBC_TUNABLES=" + tunables, loader, "--list-tunables"});
    return rc == 0 ? glibc_cache_tunables(out) : std::string();
}

bool perf_event_works(const std::string& perf, const std::string& event) {
    // perf stat writes its counts to stderr: -o sends them to stdout's file instead.
    const auto [rc, out] =
        capture_tool({perf, "stat", "-x,", "-o", "/dev/stdout", "-e", event, "--", "true"});
    return rc == 0 && out.find("<not supported>") == std::string::npos &&
           out.find("<not counted>") == std::string::npos && out.find(event) != std::string::npos;
}

std::string perf_record_options(const std::string& perf) {
    // perf record (5.1 and later) starts a side-band thread for BPF program events that polls with a
    // one-second timeout and is joined at exit: every recording then lasts at least about a second, whatever
    // the program. roofcast never samples BPF programs, so the thread is switched off where this perf knows
    // the option (`perf record -h` lists its options on stderr and exits non-zero). Nor are build ids
    // collected (-B): at exit perf reads every object the program mapped to record them, a few tenths of a
    // second, and they only matter when the binaries change before `perf report` runs, which here follows
    // within the same profile.
    const auto [rc, usage] = capture_tool({"/bin/sh", "-c", "exec \"$0\" record -h 2>&1", perf});
    (void)rc;
    return std::string(usage.find("--no-buildid") != std::string::npos ? "-B " : "") +
           (usage.find("--no-bpf-event") != std::string::npos ? "--no-bpf-event " : "");
}

} // namespace roofcast::measure::profile
