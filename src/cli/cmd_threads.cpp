#include "analysis/threads/analysis.hpp"
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "cli/launch_options.hpp"
#include "cli/threads_option.hpp"
#include "cli/threads_report.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine.hpp"
#include "measure/overhead.hpp"
#include "measure/thread_sweep.hpp"
#include "measure/topology.hpp"
#include "report/threads_table.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

namespace roofcast::cli {

namespace {

struct ThreadsOptions {
    std::string kernel = "norm2";
    std::string command;
    std::string time_regex;
    std::string sizes = "auto";
    std::string threads = "auto";
    std::string api = "omp";
    MachineArgs machine;
    std::string from;
    std::string output;
    std::vector<std::string> predict;
    double bytes_per_n = 8.0;
    int repetitions = 3;
    double timeout = 600; // seconds per run of --command; 0 = no limit
    int epochs = 5;
    int holdout = 0;
    bool json = false;
    bool oversubscribe = false;
    bool command_given = false; // --command '' is an empty command, not the built-in kernel
};

// A program's working set per unit of n: 2^50 bytes (a petabyte) is more than any machine holds.
constexpr double k_max_bytes_per_n = 1125899906842624.0;

std::vector<double> parse_list(const std::string& text, const char* field, double max) {
    std::vector<double> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, end - start);
        char* stop = nullptr;
        const double v = std::strtod(item.c_str(), &stop);
        if (item.empty() || stop != item.c_str() + item.size() || !std::isfinite(v) || v < 1 || v > max ||
            v != std::floor(v))
            throw core::InputError(
                "", field,
                fmt::format("expected 'auto' or a comma-separated list of positive integers up to {:g}, got "
                            "'{}'",
                            max, item));
        out.push_back(v);
        start = end + 1;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Cache capacities, core counts and memory bandwidth per thread count, from the machine file (given, or
// this host's: cli/host_machine.hpp; the effective last-level size where it has one), else, with
// --no-machine, from this machine's hwloc topology.
model::threads::Context make_context(const ThreadsOptions& o, const std::string& kernel, double bytes_per_n) {
    model::threads::Context c;
    c.kernel = kernel;
    c.bytes_per_n = bytes_per_n;
    std::optional<core::Topology> topo;
    std::optional<core::Machine> m;
    std::string machine_file;
    if (auto used = use_machine(o.machine, WithoutCache::measure)) {
        m = std::move(used->machine);
        machine_file = used->path;
        topo = m->topology;
        c.machine_source = "machine file " + machine_file;
    }
    if (!topo) {
        topo = measure::detect_topology();
        c.machine_source = m ? c.machine_source + " (no topology in it: cores from hwloc)"
                             : "no machine file: hwloc topology of this machine (cache sizes as reported)";
    }
    c.cores = std::max(1, topo->cores);
    c.hw_threads = std::max(c.cores, topo->hw_threads);
    for (const auto& k : topo->caches)
        c.caches.push_back({k.name, static_cast<double>(k.usable_bytes()), std::max(1, k.shared_by_cores)});
    if (m && c.caches.empty())
        for (const auto& l : m->levels)
            if (l.size_bytes && l.name != "MEM")
                c.caches.push_back({l.name, static_cast<double>(*l.size_bytes)});
    if (m) {
        const core::Level* mem = m->level("MEM");
        const std::string want = kernel == "triad" ? "triad" : "load";
        if (mem) {
            for (const std::string& k :
                 {want, std::string("triad"), std::string("load"), std::string("copy")}) {
                std::map<int, double> per_s;
                for (const auto& p : mem->measurements)
                    if (p.kernel == k)
                        per_s[p.threads] = std::max(per_s[p.threads], p.gbs.median);
                if (!per_s.empty()) {
                    c.bandwidth_gbs.assign(per_s.begin(), per_s.end());
                    c.bandwidth_source = fmt::format("{}: MEM level, kernel {}, {} thread count(s)",
                                                     machine_file, k, per_s.size());
                    break;
                }
            }
            if (c.bandwidth_gbs.empty() && mem->bandwidth_gbs) {
                c.bandwidth_gbs = {{1, *mem->bandwidth_gbs}};
                c.bandwidth_source =
                    fmt::format("{}: MEM bandwidth_gbs only (the same B for every s)", machine_file);
            }
        }
    }
    if (c.bandwidth_gbs.empty())
        c.bandwidth_source =
            "estimated from the largest size of the sweep at each s (no machine-file bandwidth)";
    return c;
}

std::string chart_path(const std::string& output, std::size_t index, const std::string& api) {
    if (index == 0)
        return output;
    const std::filesystem::path p(output);
    return (p.parent_path() / (p.stem().string() + "-" + api + p.extension().string())).string();
}

// What --api takes: each threading API, or both.
std::vector<std::string> api_choices() {
    return {measure::to_string(measure::ThreadApi::omp), measure::to_string(measure::ThreadApi::pthread),
            "both"};
}

// The APIs of the series a measurement makes, in order: their charts' names (chart_path).
std::vector<std::string> series_apis(const ThreadsOptions& o, bool program) {
    if (program)
        return {"command"};
    if (o.api == "both")
        return {"omp", "pthread"};
    return {o.api};
}

// Every chart -o will write can be written and names no input (the threads file, the machine file, the
// program and the files its arguments name), checked before the sweep's first run.
void check_chart_outputs(const ThreadsOptions& o, const std::vector<std::string>& apis,
                         const std::vector<std::string>& command) {
    if (o.output.empty())
        return;
    std::vector<std::string> inputs = machine_inputs(o.machine);
    if (!o.from.empty())
        inputs.push_back(o.from);
    const auto program = program_inputs(command);
    inputs.insert(inputs.end(), program.begin(), program.end());
    for (std::size_t i = 0; i < apis.size(); ++i)
        check_command_output(chart_path(o.output, i, apis[i]), "--output", inputs);
}

void run_threads(const ThreadsOptions& o) {
    using namespace model::threads;
    if (o.holdout < 0 || o.holdout == 1 || o.holdout > 100)
        throw core::InputError("", "--holdout",
                               "expected 0 (fit on everything) or k in 2..100 (hold out every k-th point)");
    // Bounded so that a typo cannot start a sweep of days: every point is run this many times.
    if (o.repetitions < 1 || o.repetitions > 1000)
        throw core::InputError("", "--repetitions",
                               fmt::format("expected 1 to 1000 runs per point, got {}", o.repetitions));
    if (o.epochs < 1 || o.epochs > 1000)
        throw core::InputError("", "--epochs",
                               fmt::format("expected 1 to 1000 epochs per point, got {}", o.epochs));
    check_timeout(o.timeout);
    std::vector<std::string> args;
    if (o.from.empty() && (o.command_given || !o.command.empty())) {
        args = measure::split_command(o.command);
        measure::check_time_regex(o.time_regex);
        // An infinite or NaN size per element made the automatic sweep's bounds 0 (a loop without end).
        if (!(o.bytes_per_n > 0 && o.bytes_per_n <= k_max_bytes_per_n))
            throw core::InputError("", "--bytes-per-n",
                                   fmt::format("expected a positive finite number of bytes per element, at "
                                               "most 2^50 (a petabyte), got {}",
                                               o.bytes_per_n));
    }
    if (const auto apis = api_choices();
        o.from.empty() && args.empty() && std::find(apis.begin(), apis.end(), o.api) == apis.end())
        throw core::InputError("", "--api",
                               fmt::format("expected {} or {}, got '{}'",
                                           fmt::join(apis.begin(), apis.end() - 1, ", "), apis.back(),
                                           o.api));
    if (o.from.empty())
        check_chart_outputs(o, series_apis(o, !args.empty()), args);
    std::vector<Target> targets;
    for (const auto& p : o.predict)
        targets.push_back(parse_target(p));
    ThreadsData data;
    if (!o.from.empty()) {
        auto read = read_threads_text(core::read_file(o.from), o.from, false);
        if (!read)
            throw core::InputError(
                o.from, "", "expected a threads results file (JSON) written by roofcast threads --json");
        data = std::move(*read);
        std::vector<std::string> apis;
        for (const auto& series : data.series)
            apis.push_back(series.api);
        check_chart_outputs(o, apis, {});
    } else {
        const bool program = !args.empty();
        const double bpn = program ? o.bytes_per_n : measure::kernel_bytes_per_element(o.kernel);
        // A list of sizes is checked before this host's machine file is measured (make_context).
        const std::vector<double> listed_sizes =
            o.sizes == "auto" ? std::vector<double>{} : parse_list(o.sizes, "--sizes", 1e13);
        data.context = make_context(o, program ? "command" : o.kernel, bpn);
        data.command = o.command;
        std::vector<double> cache_bytes;
        for (const auto& k : data.context.caches)
            cache_bytes.push_back(k.bytes);
        std::sort(cache_bytes.begin(), cache_bytes.end());
        std::vector<std::uint64_t> sizes;
        if (o.sizes == "auto")
            sizes = measure::auto_sizes(cache_bytes, bpn);
        else
            for (const double v : listed_sizes)
                sizes.push_back(static_cast<std::uint64_t>(v));
        if (sizes.empty())
            throw core::InputError(
                "", "--sizes",
                "expected a non-empty automatic sweep (check --bytes-per-n against the cache sizes)");
        std::vector<int> threads;
        if (o.threads == "auto")
            threads = measure::auto_threads(data.context.cores, data.context.hw_threads);
        else
            threads = resolve_thread_counts({o.threads, o.oversubscribe}, data.context.cores,
                                            host_hardware_threads(), {});
        auto keep = [&](const std::string& api, const measure::SweepResult& r) {
            Series s;
            s.api = api;
            for (const auto& p : r.points)
                s.points.push_back({static_cast<double>(p.n), p.threads, p.seconds});
            for (const auto& f : r.failures)
                s.failures.push_back({static_cast<double>(f.n), f.threads, f.reason});
            data.series.push_back(std::move(s));
        };
        fmt::print(stderr, "roofcast threads: {} sizes x {} thread counts ({})\n", sizes.size(),
                   threads.size(), data.context.machine_source);
        if (program) {
            measure::CommandOptions co;
            co.args = args;
            co.time_regex = o.time_regex;
            co.repetitions = o.repetitions;
            co.timeout_s = o.timeout;
            keep("command", measure::sweep_command(co, sizes, threads));
        } else {
            measure::HarnessOptions h;
            h.epochs = o.epochs;
            h.min_epoch_seconds = 0.005;
            // θ(s) on its own, as Doda measures it: an empty parallel region / create and join s threads.
            fmt::print(stderr, "roofcast threads: timing the thread overhead θ(s)\n");
            const auto overhead = measure::measure_thread_overhead(threads.back(), h);
            for (const auto api : {measure::ThreadApi::omp, measure::ThreadApi::pthread}) {
                if (o.api != "both" && o.api != measure::to_string(api))
                    continue;
                fmt::print(stderr, "roofcast threads: timing {} with {}\n", o.kernel,
                           measure::to_string(api));
                keep(measure::to_string(api), measure::sweep_kernel(o.kernel, api, sizes, threads, h));
                const std::string method = api == measure::ThreadApi::omp ? "omp_parallel" : "std_thread";
                for (const auto& t : overhead)
                    if (t.method == method &&
                        std::find(threads.begin(), threads.end(), t.threads) != threads.end())
                        data.series.back().overhead.push_back({t.threads, t.seconds});
            }
        }
    }
    const ThreadsAnalysis a = o.from.empty() ? analyse(std::move(data), targets, o.holdout)
                                             : analyse_file(std::move(data), targets, o.holdout, o.from);
    if (!o.output.empty())
        for (std::size_t i = 0; i < a.series.size(); ++i) {
            const std::string path = chart_path(o.output, i, a.series[i].api);
            core::write_file_atomic(path, report::threads_svg(a, i));
            fmt::print(stderr, "roofcast threads: wrote {}\n", path);
        }
    fmt::print("{}", o.json ? report::threads_json(a) : core::terminal_text(report::threads_text(a)));
}

} // namespace

void add_threads_command(CLI::App& app) {
    auto o = std::make_shared<ThreadsOptions>();
    auto* cmd = app.add_subcommand(
        "threads",
        "Model execution time over problem size and thread count T(n, s), and find the best thread count");
    offer_choices(cmd->add_option("--kernel", o->kernel, "built-in kernel: norm2 (default) or triad"),
                  measure::sweep_kernel_names());
    auto* command = cmd->add_option(
        "--command", o->command,
        "a program to model instead: 'PROGRAM ARGS' with {n} (size) and {s} (threads) substituted; "
        "OMP_NUM_THREADS is set to s");
    cmd->add_option(
        "--time-regex", o->time_regex,
        "the program prints its time: seconds are the first group of this regex (default: wall time)");
    cmd->add_option("--bytes-per-n", o->bytes_per_n,
                    "working-set bytes per unit of n of the program (default 8)");
    cmd->add_option("--repetitions", o->repetitions, "runs of the program per point (default 3)");
    add_timeout_option(cmd, o->timeout, "a run of the program (its point is left out)");
    cmd->add_option("--epochs", o->epochs, "timed epochs per point of a built-in kernel (default 5)");
    cmd->add_option("--sizes", o->sizes, "sizes n (elements): comma-separated list or auto (default)");
    cmd->add_option("--threads", o->threads,
                    "thread counts: comma-separated list (0 = every core) or auto (1 .. 4x hw threads); at "
                    "most 4 x the hardware threads unless --oversubscribe");
    cmd->add_flag("--oversubscribe", o->oversubscribe, "allow more than 4 threads per hardware thread");
    offer_choices(cmd->add_option("--api", o->api, "omp (default), pthread (std::thread) or both"),
                  api_choices());
    add_machine_options(cmd, o->machine,
                        "machine file: cache capacities and memory bandwidth per thread count");
    cmd->add_option("--from", o->from,
                    "re-analyse the measurements of a threads JSON file instead of measuring");
    cmd->add_option("--predict", o->predict, "predict at n=N,s=S (repeatable)");
    cmd->add_option("--holdout", o->holdout,
                    "fit on all but every k-th point (checkerboard) and score on those");
    cmd->add_option("-o,--output", o->output,
                    "write the chart (SVG) here; further series get -<api> appended");
    cmd->add_flag("--json", o->json, "print JSON (the threads results file) instead of a table");
    cmd->callback([o, command] {
        o->command_given = command->count() > 0;
        run_threads(*o);
    });
}

} // namespace roofcast::cli
