#include "measure/profile/tau.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "measure/profile/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {

// "main => solve => dot" -> "main->solve->dot"
std::string call_path(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (std::size_t p; (p = name.find(" => ")) != std::string_view::npos; name.remove_prefix(p + 4))
        out.append(name.substr(0, p)).append("->");
    out.append(name);
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

} // namespace

TauFile parse_tau_profile(const std::string& text, const std::string& file) {
    TauFile out;
    text::Lines lines(text, file);
    const auto next_line = [&](std::string_view& line) { return lines.next(line); };
    std::string_view line;
    if (!next_line(line))
        throw core::InputError(file, "line 1", "expected '<n> templated_functions' (empty file)");
    std::string_view head = line;
    const auto count_word = text::next_word(head);
    const std::string kind(text::next_word(head));
    double n = 0;
    if (!text::parse_number(count_word, n) || n < 0 || kind.rfind("templated_functions", 0) != 0)
        throw core::InputError(file, "line 1", "expected '<n> templated_functions[_MULTI_<METRIC>]'");
    if (n > static_cast<double>(k_tau_max_functions))
        throw core::InputError(file, "line 1",
                               fmt::format("expected at most {} functions", k_tau_max_functions));
    const std::string multi = "templated_functions_MULTI_";
    out.metric = kind.rfind(multi, 0) == 0 ? kind.substr(multi.size()) : "TIME";
    if (out.metric.empty())
        throw core::InputError(file, "line 1", "expected a metric name after templated_functions_MULTI_");
    if (!next_line(line) || line.rfind("# Name Calls Subrs Excl Incl", 0) != 0)
        throw core::InputError(file, "line 2",
                               "expected the header '# Name Calls Subrs Excl Incl ProfileCalls'");
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        const std::string field = fmt::format("line {}", lines.number() + 1);
        if (!next_line(line))
            throw core::InputError(
                file, field,
                fmt::format("expected {} function lines, found {}", static_cast<std::size_t>(n), i));
        // The name is double-quoted and may contain spaces (signatures, "[{file} {line}]", " => ").
        if (line.empty() || line[0] != '"')
            throw core::InputError(file, field, "expected a quoted function name");
        const auto close = line.find('"', 1);
        if (close == std::string_view::npos)
            throw core::InputError(file, field, "expected the closing quote of the function name");
        TauFunction f;
        f.name = call_path(line.substr(1, close - 1));
        std::string_view rest = line.substr(close + 1);
        double subrs = 0;
        if (!text::parse_number(text::next_word(rest), f.calls) ||
            !text::parse_number(text::next_word(rest), subrs) ||
            !text::parse_number(text::next_word(rest), f.exclusive) ||
            !text::parse_number(text::next_word(rest), f.inclusive))
            throw core::InputError(file, field, "expected numbers: Calls Subrs Excl Incl");
        out.functions.push_back(std::move(f));
    }
    return out; // aggregates and user events follow; not imported
}

std::vector<TauProfileFile> tau_profile_files(const std::string& dir) {
    // Every look at the directory takes an error code: a symlink loop, a vanished entry or a directory
    // without permission is one error line naming the path, never a raw filesystem_error.
    const auto fail = [&](const fs::path& where, const std::error_code& ec) {
        throw core::InputError(where.string(), "",
                               fmt::format("cannot read the TAU directory: {}", ec.message()));
    };
    std::error_code ec;
    const auto st = fs::status(dir, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        fail(dir, ec);
    if (!fs::is_directory(st))
        throw core::InputError(dir, "", "expected a TAU profile directory (profile.N.C.T files)");
    std::vector<TauProfileFile> out;
    auto scan = [&](const fs::path& d, const std::string& metric_hint) {
        fs::directory_iterator it(d, ec);
        if (ec)
            fail(d, ec);
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            const fs::path path = it->path();
            const std::string name = path.filename().string();
            if (name.rfind("profile.", 0) != 0)
                continue;
            std::error_code kind_ec;
            const bool regular = it->is_regular_file(kind_ec);
            if (kind_ec && kind_ec != std::errc::no_such_file_or_directory)
                fail(path, kind_ec);
            if (!regular)
                continue;
            if (out.size() + 1 > k_tau_max_files)
                throw core::InputError(dir, "",
                                       fmt::format("expected at most {} profile files", k_tau_max_files));
            out.push_back({path, name, metric_hint});
        }
        if (ec)
            fail(d, ec);
    };
    scan(dir, "");
    std::vector<fs::path> multi;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (it->path().filename().string().rfind("MULTI__", 0) != 0)
            continue;
        std::error_code kind_ec;
        const bool is_dir = it->is_directory(kind_ec);
        if (kind_ec && kind_ec != std::errc::no_such_file_or_directory)
            fail(it->path(), kind_ec);
        if (is_dir)
            multi.push_back(it->path());
    }
    if (ec)
        fail(dir, ec);
    for (const auto& d : multi)
        scan(d, d.filename().string().substr(7));
    return out;
}

core::Profile import_tau_directory(const std::string& dir) {
    // metric -> list of (file, name)
    std::map<std::string, std::vector<std::pair<fs::path, std::string>>> by_metric;
    for (auto& f : tau_profile_files(dir))
        by_metric[f.metric_hint].emplace_back(std::move(f.path), std::move(f.name));
    if (by_metric.empty())
        throw core::InputError(dir, "", "no TAU profile.N.C.T files here or in MULTI__*/ subdirectories");

    // function -> metric -> rank -> (sum over threads or max)
    std::map<std::string, std::map<std::string, std::map<int, double>>> values;
    std::set<int> nodes;
    std::map<int, double> top_inclusive_s; // per rank, the largest inclusive time (the whole run)
    std::vector<std::string> order;
    for (const auto& [hint, list] : by_metric)
        for (const auto& [path, name] : list) {
            // profile.<node>.<context>.<thread>
            int node = 0, context = 0, thread = 0;
            if (std::sscanf(name.c_str(), "profile.%d.%d.%d", &node, &context, &thread) != 3 || node < 0 ||
                node >= static_cast<int>(core::k_profile_max_ranks))
                throw core::InputError(path.string(), "",
                                       "expected a file name profile.<node>.<context>.<thread>");
            const TauFile tf = parse_tau_profile(core::read_file(path, k_tau_max_file_bytes), path.string());
            const std::string metric = tf.metric == "TIME" ? "time" : tf.metric;
            nodes.insert(node);
            for (const auto& f : tf.functions) {
                auto& slot = values[f.name];
                if (slot.empty())
                    order.push_back(f.name);
                auto& v = slot[metric][node];
                if (metric == "time") {
                    v = std::max(v, f.exclusive * 1e-6);
                    top_inclusive_s[node] = std::max(top_inclusive_s[node], f.inclusive * 1e-6);
                } else {
                    v += f.exclusive;
                }
            }
        }
    core::Profile p;
    p.backend = "tau";
    p.backend_reason = "imported from " + dir;
    p.ranks = static_cast<int>(nodes.size());
    p.parameters = {{"ranks", static_cast<double>(p.ranks)}};
    p.cores = p.ranks;
    p.exit_status = 0;
    double wall = 0;
    for (const auto& [n, s] : top_inclusive_s)
        wall = std::max(wall, s);
    if (wall > 0)
        p.wall_seconds = wall;
    else
        p.cores.reset(); // no TIME metric: the run's cost is unknown
    const std::vector<int> ranks(nodes.begin(), nodes.end());
    std::size_t partial = 0;
    for (const auto& name : order) {
        core::ProfileFunction f;
        f.name = name;
        bool missing = false;
        for (const auto& [metric, by_rank] : values[name]) {
            core::ProfileMetric m;
            m.origin = core::MetricOrigin::counted; // TAU's timers and PAPI counters
            m.aggregate = metric == "time" ? "max" : "sum";
            m.unit = metric == "time" ? "seconds" : "count";
            std::vector<double> row;
            for (int r : ranks) {
                const auto it = by_rank.find(r);
                missing = missing || it == by_rank.end();
                row.push_back(it == by_rank.end() ? 0.0 : it->second);
            }
            m.per_rank.push_back(std::move(row));
            f.metrics[metric] = std::move(m);
        }
        partial += missing ? 1 : 0;
        p.functions.push_back(std::move(f));
    }
    if (partial > 0)
        p.warnings.push_back(
            fmt::format("{} function(s) are missing on some ranks: kept, with 0 there", partial));
    return p;
}

} // namespace roofcast::measure::profile
