#include "measure/profile/runner.hpp"

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/io.hpp"
#include "core/process.hpp"
#include "measure/profile/marker_file.hpp"
#include "measure/profile/perf_report.hpp"
#include "measure/topology.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

#ifdef ROOFCAST_HAVE_PAPI
#include <papi.h>
#endif

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> k_papi_presets = {"PAPI_L1_DCM", "PAPI_L2_TCM", "PAPI_L3_TCM", "PAPI_TOT_INS",
                                                 "PAPI_DP_OPS", "PAPI_SP_OPS", "PAPI_TOT_CYC"};

// The rank of this process as the launcher set it (same order as the marker library, contract §Activation).
const char* k_rank_expr = "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}}";

// Tool outputs larger than this are refused rather than read into memory.
constexpr std::uintmax_t k_max_tool_output = std::uintmax_t{1} << 30;

std::string read_or_empty(const fs::path& p) {
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

// Runs a short command, returning (exit status, stdout+stderr).
std::pair<int, std::string> capture(const std::vector<std::string>& args, const fs::path& dir) {
    const fs::path log = dir / "probe.log";
    core::RunOptions o;
    o.output_log = log.string();
    const int rc = core::run_program(args, o);
    std::string text = read_or_empty(log);
    std::error_code ec;
    fs::remove(log, ec);
    return {rc, text};
}

// A private directory (core::make_temp_directory) removed when it goes out of scope, also when a caught
// signal unwinds the run (core/interrupt.hpp).
class TempDir : public core::TempDirectory {
public:
    TempDir() : core::TempDirectory("roofcast-profile") {}
};

bool perf_event_works(const std::string& perf, const std::string& event) {
    TempDir d;
    const auto [rc, out] = capture({perf, "stat", "-x,", "-e", event, "--", "true"}, d.path());
    return rc == 0 && out.find("<not supported>") == std::string::npos &&
           out.find("<not counted>") == std::string::npos && out.find(event) != std::string::npos;
}

std::string what_exists() {
    std::vector<std::string> have;
    std::string why;
    if (!papi_addable_presets(why).empty())
        have.push_back("papi");
    if (const auto perf = core::find_in_path("perf"); perf && perf_event_works(perf->string(), "cpu-clock"))
        have.push_back("perf");
    if (core::find_in_path("valgrind"))
        have.push_back("cachegrind");
    have.push_back("time");
    return fmt::format("backends that work here: {}", fmt::join(have, ", "));
}

// Collects values per function, metric, repetition and rank; first-seen order of functions.
class Gather {
public:
    Gather(int repetitions, int ranks) : m_reps(repetitions), m_ranks(ranks) {}
    void add(const std::string& name, const std::string& kind, const std::string& metric,
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
    std::vector<core::ProfileFunction> take(std::vector<std::string>& warnings) {
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

private:
    int m_reps, m_ranks;
    std::map<std::string, std::size_t> m_index;
    std::vector<core::ProfileFunction> m_functions;
    std::vector<std::set<int>> m_seen;
};

int online_cores() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

} // namespace

std::vector<std::string> papi_addable_presets(std::string& why) {
    std::vector<std::string> ok;
#ifdef ROOFCAST_HAVE_PAPI
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        const int v = PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT) {
            why = "PAPI_library_init failed (" + std::string(v > 0 ? "version mismatch" : PAPI_strerror(v)) +
                  ")";
            return ok;
        }
    }
    // The presets that failed, grouped by reason in first-seen order ("PAPI_L1_DCM, PAPI_TOT_INS: Component
    // containing event is disabled"), so that one reason shared by every preset does not fill the error line.
    std::vector<std::pair<std::string, std::vector<std::string>>> failed;
    const auto fail = [&](const std::string& name, const std::string& reason) {
        auto it =
            std::find_if(failed.begin(), failed.end(), [&](const auto& f) { return f.first == reason; });
        if (it == failed.end())
            failed.push_back({reason, {name}});
        else
            it->second.push_back(name);
    };
    for (const auto& name : k_papi_presets) {
        int es = PAPI_NULL;
        if (PAPI_create_eventset(&es) != PAPI_OK) {
            fail(name, "cannot create an event set");
            continue;
        }
        const int rc = PAPI_add_named_event(es, name.c_str());
        if (rc == PAPI_OK)
            ok.push_back(name);
        else
            fail(name, PAPI_strerror(rc));
        PAPI_cleanup_eventset(es);
        PAPI_destroy_eventset(&es);
    }
    std::vector<std::string> parts;
    for (const auto& [reason, names] : failed)
        parts.push_back(fmt::format("{}: {}", fmt::join(names, ", "), reason));
    why = fmt::format("{}", fmt::join(parts, "; "));
#else
    why = "roofcast was built without PAPI (CMake found no papi.pc)";
#endif
    return ok;
}

BackendChoice choose_backend(const std::string& requested) {
    static const std::set<std::string> known = {"auto", "papi", "perf", "cachegrind", "time"};
    if (!known.count(requested))
        throw core::InputError(
            "", "backend", fmt::format("expected auto, papi, perf, cachegrind or time, got '{}'", requested));
    std::string papi_why;
    const bool is_auto = requested == "auto";
    std::vector<std::string> why_not;
    if (requested == "papi" || is_auto) {
        const auto presets = papi_addable_presets(papi_why);
        if (!presets.empty())
            return {"papi", fmt::format("PAPI can add {} here", fmt::join(presets, ", "))};
        const std::string no = "PAPI: no preset can be added here (" + papi_why + ")";
        if (!is_auto)
            throw core::Unsupported("the papi backend: " + no + "; " + what_exists());
        why_not.push_back(no);
    }
    if (requested == "perf" || is_auto) {
        const auto perf = core::find_in_path("perf");
        std::string no;
        if (!perf)
            no = "perf: not installed (Debian package linux-perf)";
        else if (!perf_event_works(perf->string(), "cpu-clock"))
            no = "perf: `perf stat -e cpu-clock` fails here (perf_event_paranoid or a container?)";
        else
            return {"perf", (why_not.empty() ? "" : fmt::format("{}; ", fmt::join(why_not, "; "))) +
                                "perf: cpu-clock sampling works"};
        if (!is_auto)
            throw core::Unsupported("the perf backend: " + no + "; " + what_exists());
        why_not.push_back(no);
    }
    if (requested == "cachegrind" || is_auto) {
        if (core::find_in_path("valgrind"))
            return {"cachegrind", (why_not.empty() ? "" : fmt::format("{}; ", fmt::join(why_not, "; "))) +
                                      "valgrind's cachegrind is installed"};
        const std::string no = "cachegrind: valgrind is not installed (Debian package valgrind)";
        if (!is_auto)
            throw core::Unsupported("the cachegrind backend: " + no + "; " + what_exists());
        why_not.push_back(no);
    }
    return {"time",
            is_auto ? fmt::format("{}; time: marker regions timed", fmt::join(why_not, "; ")) : "requested"};
}

CachegrindCaches cachegrind_caches(const std::optional<core::Machine>& machine) {
    CachegrindCaches c;
    std::vector<core::CacheInfo> caches;
    std::string from;
    if (machine && machine->topology && !machine->topology->caches.empty()) {
        caches = machine->topology->caches;
        from = "machine file '" + machine->name + "'";
    } else if (machine) {
        // A hand-written machine file: its cache levels' (usable) sizes, default geometry.
        for (const auto& l : machine->levels)
            if (l.size_bytes && l.name != "MEM")
                caches.push_back(
                    core::CacheInfo{l.name, *l.size_bytes, 64, std::nullopt, 1, 1, std::nullopt, ""});
        from = "machine file '" + machine->name + "' (level sizes)";
    }
    if (caches.empty()) {
        caches = detect_topology().caches;
        from =
            "hwloc's reported sizes (no machine file: the last level is the reported size, not the effective "
            "size `roofcast machine` measures)";
    }
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

core::Profile run_profile(const ProfileRequest& req, const Say& say) {
    // A signal between two launches (while the last one's output is read) stops the run at the next
    // launch or at the end, with the temporary directories removed, instead of ending roofcast at once.
    const core::InterruptScope interrupts;
    if (req.command.empty())
        throw core::InputError("", "PROGRAM", "expected a program to profile after --");
    if (req.repeat < 1 || req.repeat > static_cast<int>(core::k_profile_max_repetitions))
        throw core::InputError("", "repeat", fmt::format("expected 1..{}", core::k_profile_max_repetitions));
    const std::string program = resolve_program(req.command.front());
    const BackendChoice choice = choose_backend(req.backend);
    say(fmt::format("backend: {} ({})", choice.backend, req.backend == "auto" ? choice.reason : "requested"));

    const int nranks = std::max(req.ranks, 1);
    std::vector<std::string> launch;
    if (req.ranks > 0) {
        const auto mpirun = core::find_in_path("mpirun");
        if (!mpirun)
            throw core::Unsupported(
                fmt::format("{} ranks: no mpirun on PATH (scripts/install-deps.sh installs "
                            "Open MPI); as one process the program runs without mpirun",
                            req.ranks));
        launch = {mpirun->string(), "-np", std::to_string(req.ranks)};
        if (req.ranks > online_cores()) {
            launch.insert(launch.end(), {"--oversubscribe", "--bind-to", "none"});
            say(fmt::format("note: {} ranks on {} cores: oversubscribed (mpirun --oversubscribe){}",
                            req.ranks, online_cores(),
                            choice.backend == "cachegrind" ? "; simulated counts do not depend on timing"
                                                           : "; times include waiting for a core"));
        }
        if (::geteuid() == 0)
            launch.push_back("--allow-run-as-root");
    }

    core::Profile p;
    p.backend = choice.backend;
    p.backend_reason = req.backend == "auto" ? choice.reason : "requested";
    p.ranks = nranks;
    p.repetitions = req.repeat;
    p.command = req.command;
    p.parameters = req.parameters.empty() ? std::vector<std::pair<std::string, double>>{{"ranks", nranks}}
                                          : req.parameters;

    // The tool in front of the program, run once per rank by /bin/sh so that each rank names its files.
    std::string tool = "exec \"$@\"";
    std::optional<CachegrindCaches> caches;
    std::string perf_path;
    std::vector<std::string> perf_events = {"cpu-clock"};
    std::vector<std::string> papi_events;
    if (choice.backend == "cachegrind") {
        const auto vg = core::find_in_path("valgrind");
        caches = cachegrind_caches(req.machine);
        say("cachegrind caches: " + caches->source);
        p.settings["caches"] = caches->source;
        tool = fmt::format("exec {} --tool=cachegrind --cache-sim=yes --I1={} --D1={} --LL={} "
                           "--cachegrind-out-file=\"$ROOFCAST_PROFILE_DIR/cachegrind.$r.out\" "
                           "--log-file=\"$ROOFCAST_PROFILE_DIR/valgrind.$r.log\" \"$@\"",
                           vg->string(), caches->i1.valgrind_arg(), caches->d1.valgrind_arg(),
                           caches->ll.valgrind_arg());
    } else if (choice.backend == "perf") {
        perf_path = core::find_in_path("perf")->string();
        for (const char* hw : {"instructions", "cache-misses"})
            if (perf_event_works(perf_path, hw))
                perf_events.emplace_back(hw);
        p.settings["events"] = fmt::format("{}", fmt::join(perf_events, ","));
        tool = fmt::format("exec {} record -q -e {} -o \"$ROOFCAST_PROFILE_DIR/perf.$r.data\" -- \"$@\"",
                           perf_path, fmt::join(perf_events, ","));
    } else if (choice.backend == "papi") {
        std::string why;
        papi_events = papi_addable_presets(why);
        p.settings["events"] = fmt::format("{}", fmt::join(papi_events, ","));
    }
    const std::string script = fmt::format("r={}; {}", k_rank_expr, tool);

    std::vector<double> walls;
    std::vector<double> cpus;
    Gather gather(req.repeat, nranks);
    std::vector<std::string> warnings;
    int threads = 1;
    for (int rep = 0; rep < req.repeat; ++rep) {
        TempDir tmp;
        const fs::path marker_dir = tmp.path() / "marker";
        core::make_directories(marker_dir);
        std::vector<std::string> args = launch;
        args.insert(args.end(), {"/bin/sh", "-c", script, "roofcast-rank", program});
        args.insert(args.end(), req.command.begin() + 1, req.command.end());
        core::RunOptions run;
        run.extra_env = {"ROOFCAST_MARKER_OUTPUT=" + marker_dir.string(),
                         "ROOFCAST_PROFILE_DIR=" + tmp.path().string(),
                         "OMPI_MCA_btl_base_warn_component_unused=0"};
        if (!papi_events.empty())
            run.extra_env.push_back("ROOFCAST_MARKER_PAPI=" + fmt::format("{}", fmt::join(papi_events, ",")));
        run.output_log = (tmp.path() / "run.log").string();
        const double cpu0 = core::children_cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        const int rc = core::run_program(args, run);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = core::children_cpu_seconds() - cpu0;
        if (rc < 0)
            throw core::Error(fmt::format("cannot start {}: {}", args.front(), std::strerror(errno)));
        std::string tool_log;
        for (int r = 0; r < nranks && caches; ++r)
            tool_log += read_or_empty(tmp.path() / fmt::format("valgrind.{}.log", r));
        if (caches && valgrind_decode_failure(tool_log))
            throw core::Error(fmt::format(
                "{}: valgrind cannot decode an instruction of the program (AVX-512?): rebuild it for "
                "x86-64-v3 (-march=x86-64-v3) to profile with cachegrind, or use the time or perf backend",
                req.command.front()));
        if (rc != 0) {
            const std::string out = read_or_empty(run.output_log);
            const std::string what = rc > 128 ? fmt::format("was killed by signal {}", rc - 128)
                                              : fmt::format("exited with status {}", rc);
            const std::string tail = last_line(tool_log.empty() ? out : tool_log);
            throw core::Error(fmt::format("{} {}{}: no profile written", req.command.front(), what,
                                          tail.empty() ? "" : " (last output: " + tail + ")"));
        }
        walls.push_back(wall);
        cpus.push_back(cpu);

        // Marker regions: declared work on every backend; times where the program ran at full speed.
        std::vector<std::string> mwarn;
        const auto markers = read_marker_dir(marker_dir.string(), mwarn);
        for (const auto& w : mwarn)
            warnings.push_back(w);
        const bool timed = choice.backend != "cachegrind";
        for (const auto& [rank, m] : markers) {
            if (rank < 0 || rank >= nranks) {
                warnings.push_back(
                    fmt::format("marker file of rank {} ignored ({} ranks were launched)", rank, nranks));
                continue;
            }
            threads = std::max(threads, m.threads);
            for (const auto& w : m.warnings)
                if (rep == 0)
                    warnings.push_back(fmt::format("rank {}: {}", rank, w));
            if (rep == 0 && choice.backend == "papi" && !m.papi_error.empty())
                warnings.push_back(fmt::format("rank {}: PAPI: {}", rank, m.papi_error));
            for (const auto& r : m.regions) {
                gather.add(r.path, "region", "calls", core::MetricOrigin::counted, "sum", "count", rep, rank,
                           r.calls);
                if (timed)
                    gather.add(r.path, "region", "time", core::MetricOrigin::counted, "max", "seconds", rep,
                               rank, r.seconds);
                if (r.flops)
                    gather.add(r.path, "region", "flops", core::MetricOrigin::declared, "sum", "flop", rep,
                               rank, *r.flops);
                if (r.bytes)
                    gather.add(r.path, "region", "bytes", core::MetricOrigin::declared, "sum", "byte", rep,
                               rank, *r.bytes);
                for (const auto& [ev, v] : r.counters)
                    gather.add(r.path, "region", ev, core::MetricOrigin::counted, "sum", "count", rep, rank,
                               v);
            }
        }
        if (markers.empty() && (choice.backend == "time" || choice.backend == "papi")) {
            if (rep == 0)
                warnings.push_back(
                    "the program wrote no marker regions (not linked with libroofcast-marker?): only "
                    "the whole run's wall time is recorded");
            for (int r = 0; r < nranks; ++r)
                gather.add("(program)", "region", "time", core::MetricOrigin::counted, "max", "seconds", rep,
                           r, wall);
        }

        if (caches) {
            for (int r = 0; r < nranks; ++r) {
                const fs::path out = tmp.path() / fmt::format("cachegrind.{}.out", r);
                const std::string text = read_or_empty(out);
                if (text.empty())
                    throw core::Error(fmt::format(
                        "cachegrind wrote no output for rank {} ({})", r,
                        last_line(read_or_empty(tmp.path() / fmt::format("valgrind.{}.log", r)))));
                const CachegrindCounts cg = parse_cachegrind(text, out.string());
                for (const auto& [fn, events] : cg.by_function)
                    for (const auto& [metric, v] : cachegrind_metrics(events, caches->ll.line_bytes))
                        gather.add(fn, "function", metric, core::MetricOrigin::simulated, "sum", "count", rep,
                                   r, v);
            }
        }
        if (!perf_path.empty()) {
            for (int r = 0; r < nranks; ++r) {
                const fs::path data = tmp.path() / fmt::format("perf.{}.data", r);
                const fs::path txt = tmp.path() / fmt::format("perf.{}.txt", r);
                const int prc =
                    core::run_program({"/bin/sh", "-c",
                                       "exec \"$0\" report -i \"$1\" --stdio --no-children --sort dso,sym "
                                       "-F overhead,sample,period,dso,sym >\"$2\" 2>/dev/null",
                                       perf_path, data.string(), txt.string()});
                if (prc != 0)
                    throw core::Error(fmt::format("perf report failed for rank {} (exit status {})", r, prc));
                for (const auto& ev : parse_perf_report(read_or_empty(txt), txt.string()))
                    for (const auto& s : ev.symbols) {
                        if (ev.event == "cpu-clock") {
                            // cpu-clock's period is in nanoseconds of CPU time.
                            gather.add(s.name, "function", "time", core::MetricOrigin::sampled, "max",
                                       "seconds", rep, r, s.period * 1e-9);
                            gather.add(s.name, "function", "time_percent", core::MetricOrigin::sampled,
                                       "mean", "percent", rep, r, s.percent);
                        } else {
                            const std::string metric = ev.event == "instructions" ? "INS" : ev.event;
                            gather.add(s.name, "function", metric, core::MetricOrigin::sampled, "sum",
                                       "count", rep, r, s.period);
                        }
                    }
            }
        }
    }
    std::sort(walls.begin(), walls.end());
    p.wall_seconds = walls[walls.size() / 2];
    std::sort(cpus.begin(), cpus.end());
    if (cpus[cpus.size() / 2] > 0) // a tick-accounted kernel may report 0 for a very short run
        p.cpu_seconds = cpus[cpus.size() / 2];
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
