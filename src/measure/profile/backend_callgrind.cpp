// The callgrind backend: the program's floating-point operations and bytes per function and per innermost
// loop, counted without hardware counters (docs/profile.md, "The callgrind backend").
//
// Passes of each repetition: one native run (perf sampling per function where perf works, marker regions
// where present) for the time, then one valgrind callgrind run per data cache level c of the machine, with
// D1 = the first level and LL = c: the executed count of every instruction (--dump-instr=yes), the back
// edges of the loops (--collect-jumps=yes) and LL's misses and dirty misses (--simulate-wb=yes). The first
// simulation (LL = L1's own geometry) sees the L1 miss stream and the lines L1 writes back, so its LL
// traffic is what L2 serves; LL = L2 gives what L3 serves, LL = the last level (its effective size) what
// memory serves. Each byte: (LL read misses + LL write misses (the write-allocate fetch) + LL dirty misses
// (one write-back each)) x line size. FLOPs and core-side bytes come from the executed counts times the
// work of each instruction read from objdump (counted_work.hpp); they are identical in every simulation.
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/process.hpp"
#include "measure/instruction_work.hpp"
#include "measure/profile/backend.hpp"
#include "measure/profile/cachegrind.hpp"
#include "measure/profile/callgrind.hpp"
#include "measure/profile/counted_work.hpp"
#include "measure/profile/runner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fmt/format.h>
#include <future>
#include <optional>
#include <set>
#include <thread>

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {

// The hardware capabilities valgrind does not report, masked for glibc's choice of function forms.
constexpr const char* k_no_avx512_hwcaps =
    "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD";

struct Level {
    std::string name;       // the level LL simulates ("L1", "L2", "L3")
    std::string serves;     // the level whose traffic its misses are ("L2", "L3", "MEM")
    CacheGeometry geometry; // LL
};

// What the program's own functions and loops cannot be named by: a stripped program has no symbols (callgrind
// names its functions by address), one built without -g no source lines for its loops.
std::string naming_warning(const CountedProgram& counted, const std::string& program) {
    std::size_t own = 0, by_address = 0, loops = 0, without_line = 0;
    const auto mine = [&](const std::string& object) { return same_object(object, program); };
    for (const CountedFunction& f : counted.functions)
        if (mine(f.object) && f.work.instructions > 0) {
            ++own;
            by_address += f.name.rfind("0x", 0) == 0;
        }
    for (const CountedLoop& l : counted.loops)
        if (mine(l.object)) {
            ++loops;
            without_line += l.file.empty();
        }
    if (own > 0 && by_address == own)
        return "the program is stripped (no symbols): its functions are named by address and its loops have "
               "no source lines; profile an unstripped build for names";
    if (loops > 0 && without_line == loops)
        return "the program has no debug information: its loops are named by address, not source line "
               "(compile with -g)";
    return "";
}

// Whether the program's own code uses AVX-512 registers, which valgrind 3.19 cannot run.
bool uses_avx512(const std::string& program) {
    core::CaptureOptions o;
    o.max_bytes = std::size_t{256} << 20;
    o.timeout_s = 60;
    const auto out = core::capture_program({"objdump", "-d", "--no-show-raw-insn", program}, o);
    return out.output.find("%zmm") != std::string::npos;
}

// One objdump call: the work of every instruction in [lo, hi] of `object`, or why objdump failed.
struct DisassemblyJob {
    const std::string* object = nullptr;
    std::uint64_t lo = 0, hi = 0;
    std::vector<std::pair<std::uint64_t, InstructionWork>> work = {};
    std::string failure = {};
};

void run_disassembly_job(DisassemblyJob& job) {
    core::CaptureOptions o;
    o.max_bytes = std::size_t{512} << 20;
    o.timeout_s = 120;
    const auto out = core::capture_program({"objdump", "-d", "--no-show-raw-insn", "-C",
                                            fmt::format("--start-address={:#x}", job.lo),
                                            fmt::format("--stop-address={:#x}", job.hi + 16), *job.object},
                                           o);
    if (out.status != 0 || out.truncated || out.timed_out) {
        job.failure = fmt::format("objdump could not read {} (status {}{})", *job.object, out.status,
                                  out.truncated   ? ", output cut"
                                  : out.timed_out ? ", timed out"
                                                  : "");
        return;
    }
    for (const DecodedInstruction& ins : parse_objdump_instructions(out.output))
        job.work.emplace_back(ins.address, instruction_work(ins));
}

// What every executed instruction of each object does: objdump over the ranges that ran, the calls spread
// over the hardware threads (each is a separate process; their outputs are read and parsed in the thread
// that started it). Objects already in `into` are not read again; failures are added to `notes`.
void disassemble(const std::map<std::string, std::vector<std::uint64_t>>& executed,
                 std::map<std::string, WorkTable>& into, std::set<std::string>& notes) {
    std::vector<DisassemblyJob> jobs;
    for (const auto& [object, addresses] : executed) {
        if (into.count(object))
            continue;
        into[object]; // an object that cannot be read has an empty table
        if (addresses.empty() || object.empty() || object == "???" || !fs::exists(object))
            continue;
        for (const auto& [lo, hi] : disassembly_ranges(addresses))
            jobs.push_back(DisassemblyJob{&object, lo, hi});
    }
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t k = next++; k < jobs.size(); k = next++)
            run_disassembly_job(jobs[k]);
    };
    const std::size_t threads =
        std::min<std::size_t>(jobs.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    for (DisassemblyJob& job : jobs) {
        if (!job.failure.empty())
            notes.insert(job.failure);
        WorkTable& table = into[*job.object];
        for (auto& [address, w] : job.work)
            table.emplace(address, w);
    }
}

class CallgrindBackend final : public ProfileBackend {
public:
    CallgrindBackend()
        : ProfileBackend("callgrind",
                         "counted FLOPs and bytes per function and loop (valgrind, no counters)") {}
    Availability availability(const std::string& program) const override {
        if (!core::find_in_path("valgrind"))
            return {false, false, "callgrind: valgrind is not installed (Debian package valgrind)"};
        if (!core::find_in_path("objdump"))
            return {false, false, "callgrind: objdump is not installed (Debian package binutils)"};
        if (!program.empty() && uses_avx512(program))
            return {false, false,
                    "callgrind: the program uses AVX-512, which valgrind cannot run (rebuild it with "
                    "-march=x86-64-v3)"};
        return {true, false,
                "callgrind: valgrind can run the program: FLOPs and bytes counted per function and loop"};
    }
    std::vector<Pass> prepare(const RunContext& c, core::Profile& p) override;
    std::string explain_failure(const RunContext& c, std::size_t pass, const fs::path& dir) const override {
        if (pass == 0)
            return {};
        const std::string why = valgrind_failure(c, dir, "valgrind");
        // The native pass ran first and succeeded: the program fails under valgrind only.
        return why.find("cannot decode") != std::string::npos
                   ? why
                   : "it ran natively, not under valgrind" + (why.empty() ? "" : "; " + why);
    }
    void collect(const RunContext& c, std::size_t pass, int rep, const fs::path& dir, Gather& g,
                 std::vector<std::string>& warnings) override;

private:
    void emit(const RunContext& c, int rank, int rep, const CountedProgram& counted, Gather& g);
    // The counts of every process of the rank; a process that left no whole counts (none, an empty file, or
    // one still being written) is named in `notes` and left out.
    CallgrindData read_rank(const fs::path& dir, int rank, std::set<std::string>& notes) const;
    std::vector<PerfSamplePlace> sampled_places(const fs::path& dir, int rank) const;
    // Reads the symbols of each object not read yet into m_symbols (nm; a stripped one's debug file), at
    // once.
    void read_symbols(const std::set<std::string>& objects);
    std::string m_perf; // empty: the native pass runs without perf
    std::vector<Level> m_levels;
    std::uint32_t m_line = 64;
    std::vector<CountedProgram> m_counted;               // per rank, this repetition
    std::vector<std::vector<PerfSamplePlace>> m_samples; // per rank, this repetition's native perf samples
    std::vector<std::vector<PerfEventReport>> m_reports; // per rank, the samples summed per function
    std::map<std::string, std::map<std::string, std::uint64_t>> m_symbols; // object -> its symbols (nm)
    std::map<std::string, WorkTable> m_work;
    std::set<std::string> m_notes;
};

std::vector<Pass> CallgrindBackend::prepare(const RunContext& c, core::Profile& p) {
    const SimulatedCaches sim = simulated_caches(c.request.machine);
    if (sim.levels.empty())
        throw core::Unsupported("callgrind: no cache sizes known (give a machine file)");
    const core::CacheInfo& l1 = sim.levels.front();
    const CacheGeometry d1 = cache_geometry("D1", l1.size_bytes, l1.associativity.value_or(8), l1.line_bytes);
    m_line = d1.line_bytes;
    std::vector<std::string> described;
    for (std::size_t k = 0; k < sim.levels.size(); ++k) {
        const core::CacheInfo& ci = sim.levels[k];
        Level l{ci.name, k + 1 < sim.levels.size() ? sim.levels[k + 1].name : "MEM",
                cache_geometry("LL", ci.usable_bytes(), ci.associativity.value_or(k == 0 ? 8 : 16),
                               ci.line_bytes)};
        described.push_back(fmt::format("{} {} B {}-way{}{}", l.name, l.geometry.size_bytes,
                                        l.geometry.associativity,
                                        ci.effective_size_bytes ? " (effective size)" : "",
                                        l.geometry.note.empty() ? "" : " (" + l.geometry.note + ")"));
        m_levels.push_back(std::move(l));
    }
    p.settings["caches"] = fmt::format("{}; from {}", fmt::join(described, ", "), sim.from);
    c.say("callgrind caches: " + p.settings["caches"]);

    Pass native;
    native.label = "native";
    if (const auto perf = core::find_in_path("perf"); perf && perf_event_works(perf->string(), "cpu-clock")) {
        m_perf = perf->string();
        native.tool = fmt::format(
            "exec {} record -q {}-e cpu-clock -o \"$ROOFCAST_PROFILE_DIR/perf.$r.data\" -- \"$@\"", m_perf,
            perf_record_options(m_perf));
        p.settings["time"] = "perf cpu-clock sampling of a native run";
    } else {
        p.settings["time"] = "a native run (no per-function time: perf cannot sample here)";
    }
    // The code timed is the code counted. glibc picks its string functions' forms from the CPU's features
    // and their loops from the cache sizes CPUID reports (glibc manual, "Tunables"); valgrind reports no
    // AVX-512 and caches of its own, so the native run is held to the forms valgrind runs and the simulations
    // to the native run's thresholds (copies past 2 MiB would otherwise take non-temporal stores under
    // valgrind only).
    const char* user_tunables = std::getenv("GLIBC_TUNABLES");
    const std::string user = user_tunables && *user_tunables ? std::string(user_tunables) + ":" : "";
    std::string native_tunables = user_tunables ? user_tunables : "";
    if (__builtin_cpu_supports("avx512f")) {
        native_tunables = user + k_no_avx512_hwcaps;
        native.environment.push_back("GLIBC_TUNABLES=" + native_tunables);
    }
    const std::string thresholds = native_glibc_cache_tunables(native_tunables);
    std::vector<std::string> held;
    if (!native.environment.empty())
        held.push_back(fmt::format("native run {}", k_no_avx512_hwcaps));
    if (!thresholds.empty())
        held.push_back(fmt::format("simulations {}", thresholds));
    if (!held.empty())
        p.settings["glibc_tunables"] = fmt::format("{}", fmt::join(held, "; "));
    std::vector<Pass> passes{native};
    const std::string vg = core::find_in_path("valgrind")->string();
    for (const Level& l : m_levels) {
        Pass pass;
        pass.label = fmt::format("callgrind, LL = {} ({} traffic)", l.name, l.serves);
        pass.full_speed = false;
        // The jumps (loops' back edges, hence trip counts) are read from the first simulation only (collect);
        // the others skip collecting them, which costs about a tenth of a pass.
        pass.tool = fmt::format(
            "exec {} --tool=callgrind --dump-instr=yes --collect-jumps={} --cache-sim=yes --simulate-wb=yes "
            "--trace-children=yes --I1=32768,8,64 --D1={} --LL={} "
            "--callgrind-out-file=\"$ROOFCAST_PROFILE_DIR/callgrind.$r.%p.out\" "
            "--log-file=\"$ROOFCAST_PROFILE_DIR/valgrind.$r.%p.log\" \"$@\"",
            vg, passes.size() == 1 ? "yes" : "no", d1.valgrind_arg(), l.geometry.valgrind_arg());
        if (!thresholds.empty())
            pass.environment.push_back("GLIBC_TUNABLES=" + user + thresholds);
        passes.push_back(pass);
    }
    p.settings["traffic"] = "bytes_L1: executed memory instructions x operand bytes; each further level: (LL "
                            "read misses + LL write "
                            "misses + LL dirty misses) x line of a simulation whose LL is the level above it";
    return passes;
}

// Where the native run's samples fell, per symbol and offset (`perf script`), for the time of each loop.
std::vector<PerfSamplePlace> CallgrindBackend::sampled_places(const fs::path& dir, int rank) const {
    const fs::path data = dir / fmt::format("perf.{}.data", rank);
    const fs::path txt = dir / fmt::format("perf.{}.script", rank);
    const int rc = core::run_program(
        {"/bin/sh", "-c",
         "exec \"$0\" script -i \"$1\" --no-demangle -F period,ip,sym,symoff,dso >\"$2\" 2>/dev/null", m_perf,
         data.string(), txt.string()});
    if (rc != 0)
        throw core::Error(fmt::format("perf script failed for rank {} (exit status {})", rank, rc));
    // perf demangles C++ names without their parameters ("solve"), valgrind and nm with them
    // ("solve(int, double*)"): the places keep the mangled names, demangled here as the counts are.
    std::vector<PerfSamplePlace> places = parse_perf_script(read_tool_output(txt), txt.string());
    for (PerfSamplePlace& place : places)
        place.symbol = demangle(place.symbol);
    return places;
}

void CallgrindBackend::read_symbols(const std::set<std::string>& objects) {
    std::vector<std::string> missing;
    for (const std::string& o : objects)
        if (!m_symbols.count(o))
            missing.push_back(o);
    std::vector<std::future<std::map<std::string, std::uint64_t>>> reads;
    for (const std::string& o : missing)
        reads.push_back(std::async(std::launch::async, [&o] { return object_symbols(o); }));
    for (std::size_t i = 0; i < missing.size(); ++i)
        m_symbols.emplace(missing[i], reads[i].get());
}

CallgrindData CallgrindBackend::read_rank(const fs::path& dir, int rank, std::set<std::string>& notes) const {
    // One file per process of the rank (forks and execs are followed: --trace-children=yes).
    std::vector<std::pair<fs::path, std::string>> outputs;
    const std::string prefix = fmt::format("callgrind.{}.", rank);
    for (const auto& e : fs::directory_iterator(dir))
        if (const std::string n = e.path().filename().string();
            n.rfind(prefix, 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".out")
            outputs.emplace_back(e.path(), n.substr(prefix.size(), n.size() - prefix.size() - 4));
    std::sort(outputs.begin(), outputs.end());
    const std::vector<ValgrindLog> logs = valgrind_logs(dir, "valgrind", rank);
    // The rank's program (valgrind_logs puts it last): it has ended when the pass has, so its counts are
    // whole. A process it started may outlive it (the orted an MPI program started without mpirun spawns
    // runs on in its own session) and be writing its counts, or leave none (killed).
    const std::string program_pid =
        logs.empty() || logs.back().pid == 0 ? "" : std::to_string(logs.back().pid);
    const auto not_counted = [&](const std::string& pid) {
        const auto log = std::find_if(logs.begin(), logs.end(),
                                      [&pid](const ValgrindLog& l) { return std::to_string(l.pid) == pid; });
        // Named by its command where its log gives one, so that each pass's copy of it is one note.
        notes.insert(
            fmt::format("{} left no whole counts (a process valgrind followed that was killed, closed "
                        "valgrind's files or outlived the program): its work is not counted",
                        log != logs.end() && !log->command.empty() ? log->command : "process " + pid));
    };
    for (const ValgrindLog& l : logs)
        if (l.pid != 0 && std::none_of(outputs.begin(), outputs.end(),
                                       [&l](const auto& o) { return o.second == std::to_string(l.pid); }))
            not_counted(std::to_string(l.pid));
    std::optional<CallgrindData> all;
    for (const auto& [file, pid] : outputs) {
        std::string text = read_tool_output(file);
        if (text.empty()) {
            not_counted(pid);
            continue;
        }
        // A whole output ends with its totals line.
        if (pid != program_pid && !program_pid.empty() && !last_line(text).starts_with("totals:")) {
            not_counted(pid);
            continue;
        }
        CallgrindData more = parse_callgrind(text, file.string());
        if (!all) {
            all = std::move(more);
            continue;
        }
        if (more.events != all->events)
            continue;
        all->functions.insert(all->functions.end(), std::make_move_iterator(more.functions.begin()),
                              std::make_move_iterator(more.functions.end()));
    }
    if (!all) {
        const std::string last = logs.empty() ? std::string() : last_line(logs.back().text);
        throw core::Error(fmt::format("callgrind wrote no output for rank {} ({})", rank, last));
    }
    return std::move(*all);
}

void CallgrindBackend::collect(const RunContext& c, std::size_t pass, int rep, const fs::path& dir, Gather& g,
                               std::vector<std::string>& warnings) {
    if (pass == 0) {
        // Recorded with the counts (emit), where the functions' names are known.
        m_samples.assign(c.ranks, {});
        m_reports.assign(c.ranks, {});
        if (!m_perf.empty())
            for (int r = 0; r < c.ranks; ++r) {
                // One perf read: the samples' places give the loops' time and, summed, the functions'.
                m_samples[r] = sampled_places(dir, r);
                m_reports[r] = {cpu_clock_report(m_samples[r])};
            }
        return;
    }
    const Level& level = m_levels.at(pass - 1);
    if (pass == 1)
        m_counted.assign(c.ranks, {});
    for (int r = 0; r < c.ranks; ++r) {
        const CallgrindData data = read_rank(dir, r, m_notes);
        if (!data.has_instructions)
            throw core::Error("callgrind's output has no instruction addresses (--dump-instr=yes)");
        if (pass == 1) {
            std::map<std::string, std::vector<std::uint64_t>> executed;
            for (const CallgrindFunction& f : data.functions)
                for (const CallgrindInstruction& i : f.instructions)
                    executed[f.object].push_back(i.address);
            disassemble(executed, m_work, m_notes);
            m_counted[r] = count_work(data, m_work);
        }
        add_simulated_events(m_counted[r], data, level.name + ".");
        if (pass == m_levels.size())
            emit(c, r, rep, m_counted[r], g);
        if (pass == m_levels.size() && r == 0 && rep == 0 && !c.request.callgrind_out.empty()) {
            std::vector<std::pair<std::string, std::string>> levels;
            for (const Level& l : m_levels)
                levels.emplace_back(l.name + ".", l.serves);
            std::string command;
            for (const std::string& a : c.request.command)
                command += (command.empty() ? "" : " ") + a;
            core::write_file_atomic(c.request.callgrind_out,
                                    callgrind_text(m_counted[0], levels, m_line, command));
            c.say(fmt::format("wrote {} (rank 0, callgrind format: KCachegrind, callgrind_annotate)",
                              c.request.callgrind_out));
        }
    }
    if (pass == m_levels.size() && rep == 0) {
        for (const std::string& n : m_notes)
            warnings.push_back(n);
        if (!m_counted.empty())
            if (const std::string w = naming_warning(m_counted[0], c.program); !w.empty())
                warnings.push_back(w);
        for (const CountedProgram& cp : m_counted)
            if (cp.executed > 0 && cp.unmatched > 0.001 * cp.executed) {
                warnings.push_back(fmt::format(
                    "{:.2f} % of the executed instructions could not be matched with the disassembly (their "
                    "FLOPs and bytes are not counted)",
                    100.0 * cp.unmatched / cp.executed));
                break;
            }
    }
}

void CallgrindBackend::emit(const RunContext& c, int rank, int rep, const CountedProgram& counted,
                            Gather& g) {
    const auto put = [&](const std::string& name, const std::string& kind, const CountedWork& w) {
        const auto add = [&](const std::string& metric, core::MetricOrigin o, const std::string& unit,
                             double v) { g.add(name, kind, metric, o, "sum", unit, rep, rank, v); };
        add("INS", core::MetricOrigin::counted, "count", w.instructions);
        add("flops", core::MetricOrigin::counted, "flop", w.flops());
        add("flops_dp", core::MetricOrigin::counted, "flop", w.flops_dp);
        add("flops_sp", core::MetricOrigin::counted, "flop", w.flops_sp);
        add("bytes_L1", core::MetricOrigin::counted, "byte", w.bytes_l1());
        for (const Level& l : m_levels)
            add("bytes_" + l.serves, core::MetricOrigin::simulated, "byte",
                simulated_level_bytes(w, l.name + ".", m_line));
        if (w.vector_bits > 0)
            g.add(name, kind, "vector_bits", core::MetricOrigin::counted, "max", "bits", rep, rank,
                  w.vector_bits);
    };
    const std::string program = c.program;
    for (const CountedFunction& f : counted.functions) {
        if (f.work.instructions <= 0)
            continue;
        const bool own = same_object(f.object, program);
        put(f.name, own ? "function" : "library", f.work);
    }
    // The native run's samples (none without perf): each function's time, under the counted run's name
    // where perf names the same code another way (glibc's memcpy and memmove share theirs), and each
    // loop's, placed by address.
    std::vector<SampledTime> loop_time(counted.loops.size());
    if (!m_reports.empty() && !m_reports.at(rank).empty()) {
        std::set<std::string> sampled; // the objects perf sampled in
        for (const PerfEventReport& ev : m_reports.at(rank))
            for (const PerfSymbol& s : ev.symbols)
                sampled.insert(fs::path(s.dso).filename().string());
        std::set<std::string> objects;
        for (const CountedFunction& f : counted.functions)
            if (f.work.instructions > 0 && sampled.count(fs::path(f.object).filename().string()) &&
                fs::exists(f.object))
                objects.insert(f.object);
        for (const CountedLoop& l : counted.loops)
            if (fs::exists(l.object))
                objects.insert(l.object);
        read_symbols(objects);
        add_perf_samples(m_reports.at(rank), rank, rep, g, [&](const PerfSymbol& s) {
            return counted_name_of(counted, m_symbols, s.dso, s.name);
        });
        loop_time = loop_sampled_time(counted, m_samples.at(rank), m_symbols);
    }
    std::map<std::string, int> seen;
    for (std::size_t k = 0; k < counted.loops.size(); ++k) {
        const CountedLoop& l = counted.loops[k];
        std::string where = l.file.empty()
                                ? fmt::format("{:#x}", l.begin)
                                : fmt::format("{}:{}", fs::path(l.file).filename().string(), l.line);
        std::string name = fmt::format("{} -> loop at {}", l.function, where);
        if (const int n = ++seen[name]; n > 1)
            name += fmt::format(" #{}", n);
        put(name, "loop", l.work);
        g.add(name, "loop", "iterations", core::MetricOrigin::counted, "sum", "count", rep, rank,
              l.iterations);
        if (l.entries > 0)
            g.add(name, "loop", "entries", core::MetricOrigin::counted, "sum", "count", rep, rank, l.entries);
        // A loop no sample fell in ran for less than the sampling period: no time rather than zero.
        if (loop_time[k].seconds > 0) {
            g.add(name, "loop", "time", core::MetricOrigin::sampled, "max", "seconds", rep, rank,
                  loop_time[k].seconds);
            g.add(name, "loop", "time_samples", core::MetricOrigin::sampled, "max", "count", rep, rank,
                  loop_time[k].samples);
        }
    }
}

} // namespace

std::unique_ptr<ProfileBackend> make_callgrind_backend() {
    return std::make_unique<CallgrindBackend>();
}

} // namespace roofcast::measure::profile
