#include "cli/threads_option.hpp"

#include "core/error.hpp"
#include "measure/affinity.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <thread>

namespace roofcast::cli {

namespace {

[[noreturn]] void bad(const std::string& value, int limit, bool oversubscribe) {
    const std::string shown = value.size() > 40 ? value.substr(0, 40) + "..." : value;
    const std::string bound =
        limit <= 0      ? std::string("")
        : oversubscribe ? fmt::format(" to {}", limit)
                        : fmt::format(" to {} ({} x the hardware threads; --oversubscribe allows more)",
                                      limit, k_oversubscribe_factor);
    throw core::InputError(
        "", "--threads",
        fmt::format("expected 0 (every core) or a thread count from 1{}, got '{}'", bound, shown));
}

int parse_one(const std::string& item, const std::string& whole, int every_core, int limit, bool over) {
    int v = -1;
    const char* end = item.data() + item.size();
    const auto r = std::from_chars(item.data(), end, v);
    if (item.empty() || r.ec != std::errc() || r.ptr != end || v < 0)
        bad(whole, limit, over);
    if (v == 0)
        v = std::max(1, every_core);
    if (limit > 0 && v > limit)
        bad(whole, limit, over);
    return v;
}

} // namespace

void add_threads_option(CLI::App* cmd, ThreadsOption& opt, const std::string& what, bool list,
                        bool measured) {
    const std::string help =
        what + (list ? ": thread counts, comma-separated (e.g. 1,2,0); " : ": a thread count; ") +
        "0 = every core" +
        (measured ? fmt::format("; at most {} x the hardware threads unless --oversubscribe",
                                k_oversubscribe_factor)
                  : std::string());
    cmd->add_option("--threads", opt.text, help);
    if (measured)
        cmd->add_flag("--oversubscribe", opt.oversubscribe,
                      fmt::format("allow more than {} threads per hardware thread (up to {} in all)",
                                  k_oversubscribe_factor, k_max_threads));
}

int host_cores() {
    return std::max(1, static_cast<int>(measure::core_cpus().size()));
}

int machine_cores(const core::Machine& m, bool run_here) {
    const int cores = m.topology && m.topology->cores > 0 ? m.topology->cores : 1;
    return run_here ? std::min(cores, host_hardware_threads()) : cores;
}

int host_hardware_threads() {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int thread_limit(bool oversubscribe, int hardware_threads) {
    if (hardware_threads <= 0)
        return oversubscribe ? k_max_threads : 0;
    return oversubscribe ? k_max_threads : std::min(k_max_threads, k_oversubscribe_factor * hardware_threads);
}

int resolve_thread_count(const ThreadsOption& opt, int every_core, int hardware_threads) {
    const int limit = thread_limit(opt.oversubscribe, hardware_threads);
    if (opt.text.empty())
        return std::max(1, every_core);
    if (opt.text.find(',') != std::string::npos)
        bad(opt.text, limit, opt.oversubscribe);
    return parse_one(opt.text, opt.text, every_core, limit, opt.oversubscribe);
}

std::vector<int> resolve_thread_counts(const ThreadsOption& opt, int every_core, int hardware_threads,
                                       const std::vector<int>& sweep_default) {
    const int limit = thread_limit(opt.oversubscribe, hardware_threads);
    std::vector<int> out;
    if (opt.text.empty()) {
        for (int v : sweep_default)
            out.push_back(v == 0 ? std::max(1, every_core) : v);
        return out;
    }
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = opt.text.find(',', start);
        const std::string item =
            opt.text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        out.push_back(parse_one(item, opt.text, every_core, limit, opt.oversubscribe));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace roofcast::cli
