// The cachegrind backend: valgrind's cache simulation, configured from the machine file (its L1 and
// effective last level), per function: instructions, L1 and last-level misses (cachegrind.hpp).
#include "core/error.hpp"
#include "core/process.hpp"
#include "measure/profile/backend.hpp"
#include "measure/profile/cachegrind.hpp"
#include "measure/profile/runner.hpp"

#include <fmt/format.h>
#include <set>

namespace roofcast::measure::profile {

namespace fs = std::filesystem;

namespace {

class CachegrindBackend final : public ProfileBackend {
public:
    CachegrindBackend() : ProfileBackend("cachegrind", "valgrind's cache simulation per function") {}
    Availability availability(const std::string&) const override {
        if (core::find_in_path("valgrind"))
            return {true, false, "valgrind's cachegrind is installed"};
        return {false, false, "cachegrind: valgrind is not installed (Debian package valgrind)"};
    }
    std::vector<Pass> prepare(const RunContext& c, core::Profile& p) override {
        const auto vg = core::find_in_path("valgrind");
        m_caches = cachegrind_caches(c.request.machine);
        c.say("cachegrind caches: " + m_caches.source);
        // cachegrind names functions but not the object that defines them: the program's own symbols tell
        // its functions from the shared libraries' (kind "library"); a stripped program leaves them all
        // "function".
        m_own.clear();
        for (auto& [name, address] : object_symbols(c.program))
            m_own.insert(name);
        p.settings["caches"] = m_caches.source;
        Pass pass;
        pass.label = "cachegrind";
        pass.full_speed = false;
        pass.tool = fmt::format("exec {} --tool=cachegrind --cache-sim=yes --I1={} --D1={} --LL={} "
                                "--cachegrind-out-file=\"$ROOFCAST_PROFILE_DIR/cachegrind.$r.out\" "
                                "--log-file=\"$ROOFCAST_PROFILE_DIR/valgrind.$r.log\" \"$@\"",
                                vg->string(), m_caches.i1.valgrind_arg(), m_caches.d1.valgrind_arg(),
                                m_caches.ll.valgrind_arg());
        return {pass};
    }
    std::string explain_failure(const RunContext& c, std::size_t, const fs::path& dir) const override {
        return valgrind_failure(c, dir, "valgrind");
    }
    void collect(const RunContext& c, std::size_t, int rep, const fs::path& dir, Gather& g,
                 std::vector<std::string>&) override {
        for (int r = 0; r < c.ranks; ++r) {
            const fs::path out = dir / fmt::format("cachegrind.{}.out", r);
            const std::string text = read_tool_output(out);
            if (text.empty())
                throw core::Error(
                    fmt::format("cachegrind wrote no output for rank {} ({})", r,
                                last_line(read_tool_output(dir / fmt::format("valgrind.{}.log", r)))));
            const CachegrindCounts cg = parse_cachegrind(text, out.string());
            for (const auto& [fn, events] : cg.by_function)
                for (const auto& [metric, v] : cachegrind_metrics(events, m_caches.ll.line_bytes))
                    g.add(fn, m_own.empty() || m_own.count(fn) ? "function" : "library", metric,
                          core::MetricOrigin::simulated, "sum", "count", rep, r, v);
        }
    }

private:
    CachegrindCaches m_caches;
    std::set<std::string> m_own; // the program's defined functions
};

} // namespace

std::string valgrind_failure(const RunContext& c, const fs::path& dir, const std::string& log_prefix) {
    std::string log;
    std::string last;
    for (int r = 0; r < c.ranks; ++r)
        for (const ValgrindLog& l : valgrind_logs(dir, log_prefix, r)) {
            log += l.text;
            if (const std::string line = last_line(l.text); !line.empty())
                last = line; // the rank's program's own log comes last
        }
    if (valgrind_decode_failure(log))
        return fmt::format(
            "{}: valgrind cannot decode an instruction of the program (AVX-512?): rebuild it for "
            "x86-64-v3 (-march=x86-64-v3) to profile under valgrind, or use the time or perf "
            "backend",
            c.request.command.front());
    return last.empty() ? std::string{} : "valgrind's log ends with: " + last;
}

std::unique_ptr<ProfileBackend> make_cachegrind_backend() {
    return std::make_unique<CachegrindBackend>();
}

} // namespace roofcast::measure::profile
