// One interface for the profile backends of `roofcast profile` (docs/profile.md, docs/extending.md).
//
// A backend says whether it can run here (and why not), how it wraps the launch of the user's program
// (one or more passes per repetition: the shell text run per rank in front of the program), and how it
// reads what its tool wrote into per-function metrics. The runner (runner.cpp) owns everything else:
// resolving the program, mpirun, the temporary directory, the marker regions, repetitions, failures.
// Adding a backend is one file (`backend_<name>.cpp`, ending in its factory) and one line in
// backend_registry.cpp; the registry's order is the order `--backend auto` tries them.
#pragma once

#include "core/machine.hpp"
#include "core/profile.hpp"
#include "measure/profile/perf_report.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::profile {

using Say = std::function<void(const std::string&)>;

// The most simulated passes `profile --passes-at-once` runs together.
inline constexpr int k_max_passes_at_once = 64;

struct ProfileRequest {
    std::string backend = "auto"; // a registry name, or auto
    int ranks = 0;                // 0: a plain process; N: mpirun -np N
    std::string launcher; // the cluster's launcher for the ranks ("srun -N 2"); empty: mpirun (launcher.hpp)
    std::vector<std::pair<std::string, double>> parameters; // empty: {"ranks", N or 1}
    int repeat = 1;
    std::optional<core::Machine> machine; // cache geometry for the simulating backends
    std::vector<std::string> command;     // program and arguments
    std::string callgrind_out;            // callgrind backend: also write its counts in callgrind's format
    double timeout_s = 0; // > 0: a run (each pass) still going after this is killed with its process group
    // Simulated passes (a backend's runs under valgrind) run this many at once; 0: one launch per core.
    // The program's copies then share its working directory and any file it writes there.
    int passes_at_once = 1;
};

// Collects values per function, metric, repetition and rank; first-seen order of functions.
class Gather {
public:
    Gather(int repetitions, int ranks) : m_reps(repetitions), m_ranks(ranks) {}
    void add(const std::string& name, const std::string& kind, const std::string& metric,
             core::MetricOrigin origin, const std::string& aggregate, const std::string& unit, int rep,
             int rank, double value);
    // The functions gathered; a warning when some appear on only some ranks.
    std::vector<core::ProfileFunction> take(std::vector<std::string>& warnings);
    int ranks() const { return m_ranks; }

private:
    int m_reps, m_ranks;
    std::map<std::string, std::size_t> m_index;
    std::vector<core::ProfileFunction> m_functions;
    std::vector<std::set<int>> m_seen;
};

// What the runner hands a backend about this run.
struct RunContext {
    const ProfileRequest& request;
    std::string program; // the resolved path of the program (request.command.front() found)
    int ranks = 1;       // processes launched
    Say say;
};

// One launch of the program per repetition. `tool` is /bin/sh text run once per rank with the program
// and its arguments as "$@"; `$r` holds the rank and $ROOFCAST_PROFILE_DIR the pass's directory, where
// the tool writes its files (name them by $r).
struct Pass {
    std::string label;                    // "native", "callgrind L1" (progress and errors)
    std::string tool = "exec \"$@\"";     // the program alone
    std::vector<std::string> environment; // NAME=value added for this pass
    bool full_speed = true;               // the program runs natively: its marker times are real
};

struct Availability {
    bool usable = false;
    bool hardware_counters = false; // counts with the processor's counters (auto prefers these)
    std::string reason;             // why it can run, or why not ("valgrind is not installed (...)")
};

class ProfileBackend {
public:
    // `name` is what --backend says; `summary` one phrase for --backend's help.
    ProfileBackend(std::string name, std::string summary)
        : m_name(std::move(name)), m_summary(std::move(summary)) {}
    virtual ~ProfileBackend() = default;
    const std::string& name() const { return m_name; }
    const std::string& summary() const { return m_summary; }
    // Whether it can run here for `program` (empty: without a program in view).
    virtual Availability availability(const std::string& program) const = 0;
    // Called once before the first launch: settings into `p`, the passes of each repetition.
    virtual std::vector<Pass> prepare(const RunContext& c, core::Profile& p) = 0;
    // A reason specific to this tool for a pass that ended non-zero or wrote nothing (valgrind cannot decode
    // AVX-512); empty when it has none. `dir` is the pass's directory.
    virtual std::string explain_failure(const RunContext& c, std::size_t pass,
                                        const std::filesystem::path& dir) const;
    // Reads what pass `pass` of repetition `rep` wrote under `dir` into `g`.
    virtual void collect(const RunContext& c, std::size_t pass, int rep, const std::filesystem::path& dir,
                         Gather& g, std::vector<std::string>& warnings) = 0;
    // Whether a run without marker regions records the whole run's wall time as the region "(program)"
    // (backends that time nothing per function).
    virtual bool records_whole_run() const { return false; }

private:
    std::string m_name;
    std::string m_summary;
};

using BackendFactory = std::unique_ptr<ProfileBackend> (*)();

// Every backend, in the order `--backend auto` tries them (backend_registry.cpp).
const std::vector<BackendFactory>& profile_backends();
std::vector<std::string> profile_backend_names();
// The backend named `name`; InputError naming the field `backend` and the names when there is none.
std::unique_ptr<ProfileBackend> make_backend(const std::string& name);

// The factories, one per backend file.
std::unique_ptr<ProfileBackend> make_papi_backend();
std::unique_ptr<ProfileBackend> make_perf_backend();
std::unique_ptr<ProfileBackend> make_callgrind_backend();
std::unique_ptr<ProfileBackend> make_cachegrind_backend();
std::unique_ptr<ProfileBackend> make_time_backend();

// Shared by the backends: a tool's output file (empty when absent; core::Error past 1 GiB), the last
// non-empty line of a text, a short command's exit status and output.
std::string read_tool_output(const std::filesystem::path& p);
std::string last_line(const std::string& text);
std::pair<int, std::string> capture_tool(const std::vector<std::string>& args);
// Whether `perf stat -e EVENT -- true` counts here.
bool perf_event_works(const std::string& perf, const std::string& event);
// Options every `perf record` of roofcast's passes adds where this perf knows them (empty or ending in a
// space).
std::string perf_record_options(const std::string& perf);
// glibc's cache thresholds from `ld.so --list-tunables` output, as a GLIBC_TUNABLES value
// ("glibc.cpu.x86_non_temporal_threshold=0xf000000:…"): the sizes at which its string functions change their
// loops (rep movsb, non-temporal stores), which it derives from the cache sizes CPUID reports. Empty when the
// text holds none.
std::string glibc_cache_tunables(const std::string& list_tunables);
// The same for a native run of this machine whose GLIBC_TUNABLES is `tunables` (the dynamic loader at the
// x86-64 ABI's path asked); empty where it cannot be asked.
std::string native_glibc_cache_tunables(const std::string& tunables);

// `perf report` of the file perf.<rank>.data under `dir`: per event, the samples of each (object, symbol).
std::vector<PerfEventReport> read_perf_report(const std::string& perf, const std::filesystem::path& dir,
                                              int rank);
// A report's per-function sampled time (and the hardware events recorded beside cpu-clock) into `g`, each
// symbol under the name `name_of` gives it (perf's own where `name_of` is empty).
void add_perf_samples(const std::vector<PerfEventReport>& report, int rank, int rep, Gather& g,
                      const std::function<std::string(const PerfSymbol&)>& name_of = {});
// Both: perf.<rank>.data under `dir` into `g` under perf's names.
void collect_perf_samples(const std::string& perf, const std::filesystem::path& dir, int rank, int rep,
                          Gather& g);
// The valgrind logs of one rank under `dir`: <prefix>.<rank>.log, or one per process,
// <prefix>.<rank>.<pid>.log (--log-file with %p, where children are followed), the rank's program last:
// the process whose parent is not among them.
struct ValgrindLog {
    long pid = 0;        // 0 where the log names none
    long parent = 0;     // its "Parent PID"
    std::string command; // its "Command:" line
    std::string text;
};
std::vector<ValgrindLog> valgrind_logs(const std::filesystem::path& dir, const std::string& prefix, int rank);
// Why valgrind failed, from the logs <log_prefix>.<rank>[.<pid>].log under `dir`: the x86-64-v3 advice where
// it could not decode an instruction, else the last line of the program's own log.
std::string valgrind_failure(const RunContext& c, const std::filesystem::path& dir,
                             const std::string& log_prefix);

} // namespace roofcast::measure::profile
