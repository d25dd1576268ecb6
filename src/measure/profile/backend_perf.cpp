// The perf backend: `perf record -e cpu-clock` sampling per function (plus the hardware events that
// `perf stat` shows work here), read back with `perf report` (perf_report.hpp).
#include "core/error.hpp"
#include "core/process.hpp"
#include "measure/profile/backend.hpp"
#include "measure/profile/perf_report.hpp"

#include <fmt/format.h>

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {

class PerfBackend final : public ProfileBackend {
public:
    PerfBackend() : ProfileBackend("perf", "perf sampling per function") {}
    Availability availability(const std::string&) const override {
        const auto perf = core::find_in_path("perf");
        if (!perf)
            return {false, false, "perf: not installed (Debian package linux-perf)"};
        if (!perf_event_works(perf->string(), "cpu-clock"))
            return {false, false,
                    "perf: `perf stat -e cpu-clock` fails here (perf_event_paranoid or a container?)"};
        if (perf_event_works(perf->string(), "instructions"))
            return {true, true, "perf: cpu-clock sampling and the instructions counter work"};
        return {true, false, "perf: cpu-clock sampling works (no hardware counter)"};
    }
    std::vector<Pass> prepare(const RunContext&, core::Profile& p) override {
        m_perf = core::find_in_path("perf")->string();
        m_events = {"cpu-clock"};
        for (const char* hw : {"instructions", "cache-misses"})
            if (perf_event_works(m_perf, hw))
                m_events.emplace_back(hw);
        p.settings["events"] = fmt::format("{}", fmt::join(m_events, ","));
        Pass pass;
        pass.label = "native";
        pass.tool =
            fmt::format("exec {} record -q {}-e {} -o \"$ROOFCAST_PROFILE_DIR/perf.$r.data\" -- \"$@\"",
                        m_perf, perf_record_options(m_perf), fmt::join(m_events, ","));
        return {pass};
    }
    void collect(const RunContext& c, std::size_t, int rep, const fs::path& dir, Gather& g,
                 std::vector<std::string>&) override {
        for (int r = 0; r < c.ranks; ++r)
            collect_perf_samples(m_perf, dir, r, rep, g);
    }

private:
    std::string m_perf;
    std::vector<std::string> m_events;
};

} // namespace

std::vector<PerfEventReport> read_perf_report(const std::string& perf, const fs::path& dir, int rank) {
    const fs::path data = dir / fmt::format("perf.{}.data", rank);
    const fs::path txt = dir / fmt::format("perf.{}.txt", rank);
    // A program that removed its profile directory ($ROOFCAST_PROFILE_DIR) leaves no data: one error line,
    // and the shell's own complaint about the redirection goes nowhere.
    std::error_code ec;
    if (!fs::is_regular_file(data, ec))
        throw core::Error(fmt::format("perf recorded no data for rank {} (did the program remove its profile "
                                      "directory, $ROOFCAST_PROFILE_DIR?): no profile written",
                                      rank));
    const int prc = core::run_program({"/bin/sh", "-c",
                                       "exec 2>/dev/null; exec \"$0\" report -i \"$1\" --stdio --no-children "
                                       "--sort dso,sym -F overhead,sample,period,dso,sym >\"$2\"",
                                       perf, data.string(), txt.string()});
    if (prc != 0)
        throw core::Error(fmt::format("perf report failed for rank {} (exit status {})", rank, prc));
    return parse_perf_report(read_tool_output(txt), txt.string());
}

void add_perf_samples(const std::vector<PerfEventReport>& report, int rank, int rep, Gather& g,
                      const std::function<std::string(const PerfSymbol&)>& name_of) {
    for (const auto& ev : report)
        for (const auto& s : ev.symbols) {
            const std::string name = name_of ? name_of(s) : s.name;
            // The operating system's functions (page faults, system calls) are not the program's own: kept
            // apart with the shared libraries'.
            const std::string kind = s.kernel ? "library" : "function";
            if (ev.event == "cpu-clock") {
                // cpu-clock's period is in nanoseconds of CPU time.
                g.add(name, kind, "time", core::MetricOrigin::sampled, "max", "seconds", rep, rank,
                      s.period * 1e-9);
                g.add(name, kind, "time_percent", core::MetricOrigin::sampled, "mean", "percent", rep, rank,
                      s.percent);
                // How many samples the time rests on: its sampling interval (core::poisson_interval_95).
                g.add(name, kind, "time_samples", core::MetricOrigin::sampled, "max", "count", rep, rank,
                      s.samples);
            } else {
                const std::string metric = ev.event == "instructions" ? "INS" : ev.event;
                g.add(name, kind, metric, core::MetricOrigin::sampled, "sum", "count", rep, rank, s.period);
            }
        }
}

void collect_perf_samples(const std::string& perf, const fs::path& dir, int rank, int rep, Gather& g) {
    add_perf_samples(read_perf_report(perf, dir, rank), rank, rep, g);
}

std::unique_ptr<ProfileBackend> make_perf_backend() {
    return std::make_unique<PerfBackend>();
}

} // namespace roofcast::measure::profile
