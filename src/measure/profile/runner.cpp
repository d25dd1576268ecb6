#include "measure/profile/runner.hpp"

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/io.hpp"
#include "core/process.hpp"
#include "measure/launcher.hpp"
#include "measure/profile/counted_work.hpp"
#include "measure/profile/marker_file.hpp"
#include "measure/topology.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <unistd.h>

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {

// The rank of this process as the launcher set it (same order as the marker library, contract §Activation).
const char* k_rank_expr = "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}}";

// A private directory (core::make_temp_directory) removed when it goes out of scope, also when a caught
// signal unwinds the run (core/interrupt.hpp).
class TempDir : public core::TempDirectory {
public:
    TempDir() : core::TempDirectory("roofcast-profile") {}
};

// The backends that can run here, for an error about one that cannot.
std::string what_exists(const std::string& program) {
    std::vector<std::string> have;
    for (const BackendFactory make : profile_backends())
        if (const auto b = make(); b->availability(program).usable)
            have.push_back(b->name());
    return fmt::format("backends that work here: {}", fmt::join(have, ", "));
}

} // namespace

SimulatedCaches simulated_caches(const std::optional<core::Machine>& machine) {
    SimulatedCaches s;
    if (machine && machine->topology && !machine->topology->caches.empty()) {
        s.levels = machine->topology->caches;
        s.from = "machine file '" + machine->name + "'";
    } else if (machine) {
        // A hand-written machine file: its cache levels' (usable) sizes, default geometry.
        for (const auto& l : machine->levels)
            if (l.size_bytes && l.name != "MEM")
                s.levels.push_back(
                    core::CacheInfo{l.name, *l.size_bytes, 64, std::nullopt, 1, 1, std::nullopt, ""});
        s.from = "machine file '" + machine->name + "' (level sizes)";
    }
    if (s.levels.empty()) {
        s.levels = detect_topology().caches;
        s.from =
            "hwloc's reported sizes (no machine file: the last level is the reported size, not the effective "
            "size `roofcast machine` measures)";
    }
    return s;
}

CachegrindCaches cachegrind_caches(const std::optional<core::Machine>& machine) {
    CachegrindCaches c;
    const SimulatedCaches sim = simulated_caches(machine);
    const std::vector<core::CacheInfo>& caches = sim.levels;
    const std::string& from = sim.from;
    if (caches.empty())
        throw core::Unsupported("cachegrind: no cache sizes known (give a machine file)");
    const auto& l1 = caches.front();
    const auto& ll = caches.back();
    c.d1 = cache_geometry("D1", l1.size_bytes, l1.associativity.value_or(8), l1.line_bytes);
    c.ll = cache_geometry("LL", ll.usable_bytes(), ll.associativity.value_or(16), ll.line_bytes);
    c.i1 = cache_geometry("I1", 32 * 1024, 8, 64);
    c.source = fmt::format("D1 {} B {}-way, LL {} B {}-way ({}{}), I1 32 KiB 8-way (fixed), from {}",
                           c.d1.size_bytes, c.d1.associativity, c.ll.size_bytes, c.ll.associativity, ll.name,
                           ll.effective_size_bytes ? ", effective size" : "", from);
    for (const auto* g : {&c.d1, &c.ll})
        if (!g->note.empty())
            c.source += "; " + g->note;
    return c;
}

namespace {
// The separate debug file of `object` by its build id ("Build ID: 3c7d..." in `readelf -n`), where it exists.
std::optional<std::string> build_id_debug_file(const std::string& object) {
    core::CaptureOptions o;
    o.max_bytes = std::size_t{1} << 20;
    o.timeout_s = 60;
    const auto out = core::capture_program({"readelf", "-n", object}, o);
    const std::string tag = "Build ID: ";
    const auto at = out.output.find(tag);
    if (out.status != 0 || at == std::string::npos)
        return std::nullopt;
    const auto begin = at + tag.size();
    const auto end = out.output.find_first_not_of("0123456789abcdef", begin);
    const std::string id = out.output.substr(begin, end == std::string::npos ? end : end - begin);
    if (id.size() < 3)
        return std::nullopt;
    const std::string path = "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    std::error_code ec;
    return fs::is_regular_file(path, ec) ? std::optional<std::string>(path) : std::nullopt;
}
} // namespace

std::map<std::string, std::uint64_t> object_symbols(const std::string& object) {
    core::CaptureOptions o;
    o.max_bytes = std::size_t{64} << 20;
    o.timeout_s = 60;
    auto symbols =
        parse_symbol_addresses(core::capture_program({"nm", "-C", "--defined-only", object}, o).output);
    if (symbols.empty())
        if (const auto debug = build_id_debug_file(object))
            symbols = parse_symbol_addresses(
                core::capture_program({"nm", "-C", "--defined-only", *debug}, o).output);
    return symbols;
}

std::string resolve_program(const std::string& program) {
    if (program.empty())
        throw core::InputError("", "PROGRAM", "expected a program to profile after --");
    if (program.find('/') != std::string::npos) {
        std::error_code ec;
        if (!fs::exists(program, ec))
            throw core::InputError(program, "", "program not found");
        if (fs::is_directory(program, ec) || ::access(program.c_str(), X_OK) != 0)
            throw core::InputError(program, "", "not an executable program");
        return fs::absolute(program, ec).string();
    }
    const auto p = core::find_in_path(program);
    if (!p)
        throw core::InputError(program, "", "program not found on PATH");
    return p->string();
}

BackendChoice choose_backend(const std::string& requested, const std::string& program) {
    if (requested != "auto") {
        auto b = make_backend(requested);
        const Availability a = b->availability(program);
        if (!a.usable)
            throw core::Unsupported(
                fmt::format("the {} backend: {}; {}", requested, a.reason, what_exists(program)));
        return {requested, a.reason};
    }
    // First a backend that counts with the processor's counters, then the first that can run here; the
    // reason names the backends passed over.
    std::vector<std::pair<std::string, Availability>> seen;
    for (const BackendFactory make : profile_backends()) {
        const auto b = make();
        seen.emplace_back(b->name(), b->availability(program));
    }
    for (const bool counters : {true, false}) {
        std::vector<std::string> passed_over;
        for (const auto& [name, a] : seen) {
            if (a.usable && (a.hardware_counters || !counters)) {
                passed_over.push_back(a.reason);
                return {name, fmt::format("{}", fmt::join(passed_over, "; "))};
            }
            if (!a.usable)
                passed_over.push_back(a.reason);
        }
    }
    throw core::Unsupported("no profile backend can run here");
}

namespace {

// The launch of `ranks` processes (an empty prefix for one plain process): measure/launcher.hpp's one policy,
// with the program's threads unknown.
LaunchPlan mpi_launch(const ProfileRequest& req, const Say& say, bool simulated) {
    if (req.ranks <= 0)
        return {};
    LaunchRequest r;
    r.ranks = req.ranks;
    r.launcher = req.launcher;
    LaunchPlan plan = plan_launch(r, launch_host());
    if (!plan.note.empty())
        say(fmt::format("note: {}{}", plan.note,
                        simulated ? "; simulated counts do not depend on timing"
                                  : "; times include waiting for a core"));
    return plan;
}

// The marker regions of one pass: calls and declared work from the first pass of a repetition, times
// from a pass at full speed.
void gather_markers(const fs::path& marker_dir, const ProfileBackend& backend, bool first_pass, bool timed,
                    int rep, int nranks, double wall, Gather& gather, std::vector<std::string>& warnings,
                    int& threads) {
    std::vector<std::string> mwarn;
    const auto markers = read_marker_dir(marker_dir.string(), mwarn);
    if (rep == 0 && first_pass)
        for (const auto& w : mwarn)
            warnings.push_back(w);
    for (const auto& [rank, m] : markers) {
        if (rank < 0 || rank >= nranks) {
            if (first_pass)
                warnings.push_back(
                    fmt::format("marker file of rank {} ignored ({} ranks were launched)", rank, nranks));
            continue;
        }
        threads = std::max(threads, m.threads);
        if (rep == 0 && first_pass) {
            for (const auto& w : m.warnings)
                warnings.push_back(fmt::format("rank {}: {}", rank, w));
            if (!m.papi_error.empty() && !m.papi_events.empty())
                warnings.push_back(fmt::format("rank {}: PAPI: {}", rank, m.papi_error));
        }
        for (const auto& r : m.regions) {
            if (timed)
                gather.add(r.path, "region", "time", core::MetricOrigin::counted, "max", "seconds", rep, rank,
                           r.seconds);
            if (!first_pass)
                continue;
            gather.add(r.path, "region", "calls", core::MetricOrigin::counted, "sum", "count", rep, rank,
                       r.calls);
            if (r.flops)
                gather.add(r.path, "region", "flops", core::MetricOrigin::declared, "sum", "flop", rep, rank,
                           *r.flops);
            if (r.bytes)
                gather.add(r.path, "region", "bytes", core::MetricOrigin::declared, "sum", "byte", rep, rank,
                           *r.bytes);
            for (const auto& [ev, v] : r.counters)
                gather.add(r.path, "region", ev, core::MetricOrigin::counted, "sum", "count", rep, rank, v);
        }
    }
    if (markers.empty() && timed && backend.records_whole_run()) {
        if (rep == 0)
            warnings.push_back(
                "the program wrote no marker regions (not linked with libroofcast-marker?): only "
                "the whole run's wall time is recorded");
        for (int r = 0; r < nranks; ++r)
            gather.add("(program)", "region", "time", core::MetricOrigin::counted, "max", "seconds", rep, r,
                       wall);
    }
}

struct PassRun {
    double wall = 0, cpu = 0;
};

// Runs one pass of the program in `dir`; core::Error naming the status (and the tool's reason) when it fails.
PassRun run_pass(const RunContext& c, const ProfileBackend& backend, std::size_t index, const Pass& pass,
                 const LaunchPlan& launch, const fs::path& dir) {
    std::vector<std::string> args = launch.prefix;
    args.insert(args.end(), {"/bin/sh", "-c", fmt::format("r={}; {}", k_rank_expr, pass.tool),
                             "roofcast-rank", c.program});
    args.insert(args.end(), c.request.command.begin() + 1, c.request.command.end());
    core::RunOptions run;
    run.extra_env = {"ROOFCAST_MARKER_OUTPUT=" + (dir / "marker").string(),
                     "ROOFCAST_PROFILE_DIR=" + dir.string(), "OMPI_MCA_btl_base_warn_component_unused=0"};
    run.extra_env.insert(run.extra_env.end(), launch.env.begin(), launch.env.end());
    run.extra_env.insert(run.extra_env.end(), pass.environment.begin(), pass.environment.end());
    run.output_log = (dir / "run.log").string();
    run.timeout_s = c.request.timeout_s;
    const double cpu0 = core::children_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = core::run_program(args, run);
    PassRun out;
    out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.cpu = core::children_cpu_seconds() - cpu0;
    if (rc == core::k_timed_out)
        throw core::Error(fmt::format("{} did not finish within {:g} s (--timeout){}: stopped with every "
                                      "process it started; no profile written",
                                      c.request.command.front(), c.request.timeout_s,
                                      index > 0 ? fmt::format(" in the {} pass", pass.label) : ""));
    if (rc < 0)
        throw core::Error(fmt::format("cannot start {}: {}", args.front(), std::strerror(errno)));
    if (rc != 0) {
        const std::string tool = backend.explain_failure(c, index, dir);
        if (tool.find("valgrind cannot decode") != std::string::npos)
            throw core::Error(tool);
        const std::string what = rc > 128 ? fmt::format("was killed by signal {}", rc - 128)
                                          : fmt::format("exited with status {}", rc);
        const std::string tail = tool.empty() ? last_line(read_tool_output(run.output_log)) : "";
        throw core::Error(fmt::format("{} {}{}{}: no profile written", c.request.command.front(), what,
                                      index > 0 ? fmt::format(" in the {} pass", pass.label) : "",
                                      !tool.empty()  ? " (" + tool + ")"
                                      : tail.empty() ? ""
                                                     : " (last output: " + tail + ")"));
    }
    return out;
}

// Runs passes [first, end) at once, each in its directory; the first failure in pass order is thrown once
// all have ended (each is bounded by --timeout and stopped by a caught signal).
std::vector<PassRun> run_passes(const RunContext& c, const ProfileBackend& backend,
                                const std::vector<Pass>& passes, std::size_t first, std::size_t end,
                                const LaunchPlan& launch, const std::vector<std::unique_ptr<TempDir>>& dirs) {
    std::vector<PassRun> runs(end - first);
    if (end - first == 1) {
        runs[0] = run_pass(c, backend, first, passes[first], launch, dirs[0]->path());
        return runs;
    }
    std::vector<std::exception_ptr> errors(end - first);
    std::vector<std::thread> threads;
    for (std::size_t k = first; k < end; ++k)
        threads.emplace_back([&, k] {
            try {
                runs[k - first] = run_pass(c, backend, k, passes[k], launch, dirs[k - first]->path());
            } catch (...) {
                errors[k - first] = std::current_exception();
            }
        });
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    return runs;
}

// Passes [first, end) that ran or are running, each in its directory. The directories outlive the runs:
// `runs` is declared after them, so it is destroyed (joined) first.
struct PassGroup {
    std::size_t first = 0, end = 0;
    std::vector<std::unique_ptr<TempDir>> dirs;
    std::future<std::vector<PassRun>> runs;
};

// The next group from pass i: a pass at full speed alone, simulated ones up to `at_once` together.
PassGroup plan_group(const RunContext& c, const std::vector<Pass>& passes, std::size_t i,
                     std::size_t at_once) {
    PassGroup g;
    g.first = i;
    g.end = i + 1;
    while (!passes[i].full_speed && g.end < passes.size() && g.end - i < at_once && !passes[g.end].full_speed)
        ++g.end;
    for (std::size_t k = g.first; k < g.end; ++k) {
        g.dirs.push_back(std::make_unique<TempDir>());
        core::make_directories(g.dirs.back()->path() / "marker");
        if (passes.size() > 1)
            c.say(fmt::format("pass {} of {}: {}", k + 1, passes.size(), passes[k].label));
    }
    return g;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

std::size_t passes_at_once(int requested, int nranks, std::size_t simulated, unsigned cores) {
    if (requested > 0)
        return static_cast<std::size_t>(requested);
    // Each launch of k passes takes as long as one pass when k x nranks processes fit the cores, and
    // proportionally longer when they share them; the rounds are ceil(simulated / k). The k of the least
    // time, the smallest on a tie (fewer copies of the program in memory). MPI ranks wait for each other by
    // polling, so launches of several ranks never share a core: at most cores / nranks of them.
    const unsigned ncores = std::max(1U, cores);
    const double n = static_cast<double>(std::max<std::size_t>(simulated, 1));
    const double c = ncores;
    const std::size_t most = nranks > 1 ? std::max<std::size_t>(1, ncores / static_cast<unsigned>(nranks))
                                        : std::max<std::size_t>(simulated, 1);
    std::size_t best = 1;
    double best_time = 0;
    for (std::size_t k = 1; k <= most; ++k) {
        const double kk = static_cast<double>(k);
        const double time = std::ceil(n / kk) * std::max(1.0, kk * std::max(nranks, 1) / c);
        if (k == 1 || time < best_time - 1e-9) {
            best = k;
            best_time = time;
        }
    }
    return best;
}

core::Profile run_profile(const ProfileRequest& req, const Say& say) {
    // A signal between two launches (while the last one's output is read) stops the run at the next
    // launch or at the end, with the temporary directories removed, instead of ending roofcast at once.
    const core::InterruptScope interrupts;
    if (req.command.empty())
        throw core::InputError("", "PROGRAM", "expected a program to profile after --");
    if (req.repeat < 1 || req.repeat > static_cast<int>(core::k_profile_max_repetitions))
        throw core::InputError("", "repeat", fmt::format("expected 1..{}", core::k_profile_max_repetitions));
    if (req.passes_at_once < 0 || req.passes_at_once > k_max_passes_at_once)
        throw core::InputError("", "passes_at_once",
                               fmt::format("expected 0 (as many as share the cores best) .. {}, got {}",
                                           k_max_passes_at_once, req.passes_at_once));
    const std::string program = resolve_program(req.command.front());
    const BackendChoice choice = choose_backend(req.backend, program);
    say(fmt::format("backend: {} ({})", choice.backend, req.backend == "auto" ? choice.reason : "requested"));
    const auto backend = make_backend(choice.backend);

    const int nranks = std::max(req.ranks, 1);
    const RunContext ctx{req, program, nranks, say};
    core::Profile p;
    p.backend = choice.backend;
    p.backend_reason = req.backend == "auto" ? choice.reason : "requested";
    p.ranks = nranks;
    p.repetitions = req.repeat;
    p.command = req.command;
    p.parameters = req.parameters.empty() ? std::vector<std::pair<std::string, double>>{{"ranks", nranks}}
                                          : req.parameters;
    const std::vector<Pass> passes = backend->prepare(ctx, p);
    if (passes.empty())
        throw core::Error("the " + choice.backend + " backend planned no run");
    // The run whose wall and processor time the profile records: the first at full speed, else the first.
    std::size_t timing_pass = 0;
    while (timing_pass < passes.size() && !passes[timing_pass].full_speed)
        ++timing_pass;
    const bool simulated = timing_pass == passes.size();
    if (simulated)
        timing_pass = 0;
    std::vector<double> pass_seconds(passes.size(), 0.0);
    const LaunchPlan launch = mpi_launch(req, say, simulated);

    std::vector<double> walls, cpus;
    Gather gather(req.repeat, nranks);
    std::vector<std::string> warnings;
    int threads = 1;
    const std::size_t at_once =
        simulated
            ? 1
            : passes_at_once(req.passes_at_once, nranks,
                             static_cast<std::size_t>(std::count_if(
                                 passes.begin(), passes.end(), [](const Pass& q) { return !q.full_speed; })),
                             std::thread::hardware_concurrency());
    // Collected in pass order, as if the passes had run one after another.
    auto collect = [&](PassGroup& g, int rep) {
        const std::vector<PassRun> runs = g.runs.get();
        for (std::size_t k = g.first; k < g.end; ++k) {
            const PassRun& run = runs[k - g.first];
            const fs::path& dir = g.dirs[k - g.first]->path();
            const bool timed = k == timing_pass;
            if (timed) {
                walls.push_back(run.wall);
                cpus.push_back(run.cpu);
            }
            pass_seconds[k] += run.wall / req.repeat;
            gather_markers(dir / "marker", *backend, k == 0, timed && passes[k].full_speed, rep, nranks,
                           run.wall, gather, warnings, threads);
            backend->collect(ctx, k, rep, dir, gather, warnings);
        }
    };
    // A finished group is collected (perf's samples, objdump, the join) while the next simulated group runs;
    // a pass at full speed, and the timed one, start only once everything before them is collected, so
    // nothing runs beside them.
    std::optional<PassGroup> done;
    int done_rep = 0;
    for (int rep = 0; rep < req.repeat; ++rep) {
        for (std::size_t i = 0; i < passes.size();) {
            PassGroup g = plan_group(ctx, passes, i, at_once);
            const bool alone = passes[i].full_speed || i == timing_pass; // the timed pass runs alone
            if (alone && done) {
                collect(*done, done_rep);
                done.reset();
            }
            g.runs = std::async(std::launch::async, [&, first = g.first, end = g.end, dirs = &g.dirs] {
                return run_passes(ctx, *backend, passes, first, end, launch, *dirs);
            });
            if (done)
                collect(*done, done_rep);
            g.runs.wait();
            done = std::move(g);
            done_rep = rep;
            i = done->end;
        }
    }
    if (done)
        collect(*done, done_rep);
    if (passes.size() > 1) {
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < passes.size(); ++i)
            parts.push_back(fmt::format("{} {:.3g} s", passes[i].label, pass_seconds[i]));
        p.settings["pass_seconds"] = fmt::format("{}", fmt::join(parts, ", "));
    }
    p.wall_seconds = median(walls);
    if (const double cpu = median(cpus); cpu > 0) // a tick-accounted kernel may report 0 for a very short run
        p.cpu_seconds = cpu;
    p.threads = threads;
    p.cores = static_cast<double>(nranks) * threads;
    p.exit_status = 0;
    p.functions = gather.take(warnings);
    p.warnings = std::move(warnings);
    if (p.functions.empty())
        p.warnings.push_back("no function or region was recorded");
    core::throw_if_interrupted();
    return p;
}

} // namespace roofcast::measure::profile
