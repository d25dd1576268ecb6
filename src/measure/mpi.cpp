#include "measure/mpi.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/process.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"
#include "measure/affinity.hpp"
#include "measure/launcher.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sched.h>
#include <stdexcept>
#include <unistd.h>

namespace roofcast::measure {

namespace fs = std::filesystem;

HockneyFit fit_hockney(const std::vector<core::MpiPoint>& points) {
    // Weighted least squares for t = alpha + gamma m, gamma = 1 / beta, weights w = 1 / t^2: the normal
    // equations of min sum w (t - alpha - gamma m)^2 (relative residuals).
    double sw = 0, sm = 0, smm = 0, st = 0, smt = 0;
    double first = -1;
    bool distinct = false;
    for (const auto& p : points) {
        const double t = p.seconds.median;
        if (!(t > 0) || !std::isfinite(t))
            throw std::invalid_argument("fit_hockney: one-way times must be positive");
        const double m = static_cast<double>(p.bytes);
        distinct = distinct || (first >= 0 && m != first);
        if (first < 0)
            first = m;
        const double w = 1.0 / (t * t);
        sw += w;
        sm += w * m;
        smm += w * m * m;
        st += w * t;
        smt += w * m * t;
    }
    if (!distinct)
        throw std::invalid_argument("fit_hockney: needs at least two distinct message sizes");
    const double det = sw * smm - sm * sm;
    double alpha = (smm * st - sm * smt) / det;
    double gamma = (sw * smt - sm * st) / det;
    if (alpha < 0) { // a start-up time cannot be negative: fit the slope alone through the origin
        alpha = 0;
        gamma = smt / smm;
    }
    HockneyFit f;
    f.alpha_s = alpha;
    if (gamma > 0)
        f.beta_gbs = 1.0 / gamma / core::k_giga;
    for (const auto& p : points) {
        const double model = alpha + std::max(gamma, 0.0) * static_cast<double>(p.bytes);
        f.max_relative_residual =
            std::max(f.max_relative_residual, std::abs(model - p.seconds.median) / p.seconds.median);
    }
    return f;
}

core::MpiFigures mpi_figures_from_probe(const nlohmann::json& probe, const std::string& label) {
    const auto fail = [&](const std::string& field, const std::string& what) {
        throw core::InputError(label, field, what);
    };
    if (!probe.is_object())
        fail("", "expected a JSON object from roofcast-mpi-probe");
    core::MpiFigures f;
    f.source = core::Provenance::measured;
    if (!probe.contains("ranks") || !probe["ranks"].is_number_integer() || probe["ranks"].get<int>() < 2)
        fail("ranks", "expected an integer >= 2");
    f.ranks = probe["ranks"].get<int>();
    if (probe.contains("library") && probe["library"].is_string())
        f.library = probe["library"].get<std::string>();
    if (!probe.contains("points") || !probe["points"].is_array() || probe["points"].empty())
        fail("points", "expected a non-empty list of message sizes");
    const auto& pts = probe["points"];
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const std::string where = fmt::format("points[{}]", i);
        const auto& p = pts[i];
        if (!p.is_object() || !p.contains("bytes") || !p["bytes"].is_number_integer() ||
            p["bytes"].get<std::int64_t>() < 1)
            fail(where + ".bytes", "expected a message size in bytes >= 1");
        core::MpiPoint mp;
        mp.bytes = p["bytes"].get<std::uint64_t>();
        if (!f.points.empty() && mp.bytes <= f.points.back().bytes)
            fail(where + ".bytes", "expected message sizes in increasing order");
        if (!p.contains("one_way_seconds") || !p["one_way_seconds"].is_array() ||
            p["one_way_seconds"].empty())
            fail(where + ".one_way_seconds", "expected a non-empty list of times");
        std::vector<double> samples;
        for (const auto& s : p["one_way_seconds"]) {
            if (!s.is_number() || !(s.get<double>() > 0) || !std::isfinite(s.get<double>()))
                fail(where + ".one_way_seconds", "expected positive finite times in seconds");
            samples.push_back(s.get<double>());
        }
        mp.seconds = *core::summarize(samples);
        f.points.push_back(std::move(mp));
    }
    f.latency_s = f.points.front().seconds;
    if (f.points.size() >= 2) {
        f.bandwidth_gbs = core::rate_from_times(f.points.back().seconds,
                                                static_cast<double>(f.points.back().bytes) / core::k_giga);
        const HockneyFit h = fit_hockney(f.points);
        f.alpha_s = h.alpha_s;
        f.beta_gbs = h.beta_gbs;
    }
    if (probe.contains("hosts") && probe["hosts"].is_array()) {
        std::vector<std::string> hosts;
        for (const auto& h : probe["hosts"])
            if (h.is_string() && std::find(hosts.begin(), hosts.end(), h.get<std::string>()) == hosts.end())
                hosts.push_back(h.get<std::string>());
        f.placement = hosts.size() == 1 ? fmt::format("{} ranks on one node ({})", f.ranks, hosts.front())
                                        : fmt::format("{} ranks on {} nodes", f.ranks, hosts.size());
    }
    return f;
}

std::string find_mpi_probe() {
    return core::find_companion("roofcast-mpi-probe", "ROOFCAST_MPI_PROBE", ROOFCAST_MPI_PROBE_BUILD_PATH);
}

MpiMeasurement measure_mpi(const MpiOptions& opt) {
    MpiMeasurement out;
    const char* env = std::getenv("ROOFCAST_MPI_PROBE");
    const std::string probe = opt.probe.empty() ? find_mpi_probe() : opt.probe;
    if (!opt.probe.empty() && ::access(probe.c_str(), X_OK) != 0) {
        out.note = "MPI: not measured (the probe '" + probe + "' is not an executable)";
        return out;
    }
    if (probe.empty()) {
        out.note = env && *env ? "MPI: not measured (ROOFCAST_MPI_PROBE='" + std::string(env) +
                                     "' is not an executable)"
                               : "MPI: not measured (roofcast-mpi-probe was not built: CMake found no MPI)";
        return out;
    }
    const auto mpirun_path = core::find_in_path("mpirun");
    if (!mpirun_path) {
        out.note = "MPI: not measured (no mpirun on PATH; scripts/install-deps.sh installs Open MPI)";
        return out;
    }
    // Private (mkdtemp, 0700): nothing planted in /tmp can be followed or reused; removed on every way
    // out, a caught signal's included (core/interrupt.hpp).
    std::optional<core::TempDirectory> tmp;
    try {
        tmp.emplace("roofcast-mpi");
    } catch (const core::Error& e) {
        out.note = std::string("MPI: not measured (") + e.what() + ")";
        return out;
    }
    const fs::path& dir = tmp->path();
    const std::string json_path = (dir / "pingpong.json").string();
    const std::string log_path = (dir / "mpirun.log").string();

    // mpirun inherits this thread's affinity: open it to every CPU the process may use (the machine
    // run pins its thread while measuring) so that the ranks can be bound to distinct cores.
    const AffinityGuard guard;
    {
        cpu_set_t all;
        CPU_ZERO(&all);
        for (int c = 0; c < CPU_SETSIZE; ++c)
            CPU_SET(c, &all);
        sched_setaffinity(0, sizeof all, &all); // the kernel keeps only the CPUs allowed to us
    }
    // One thread per rank: each bound to a core of its own where there are enough (launcher.hpp's policy).
    LaunchRequest request;
    request.ranks = opt.ranks;
    request.threads_per_rank = 1;
    LaunchHost host = launch_host();
    host.mpirun = mpirun_path->string();
    const LaunchPlan plan = plan_launch(request, host);
    std::vector<std::string> args = {"timeout", "--kill-after=5", std::to_string(opt.timeout_s)};
    args.insert(args.end(), plan.prefix.begin(), plan.prefix.end());
    // Quick: message sizes 1 B ... 16 MiB in steps of 8; full: steps of 4, more and longer samples.
    std::string sizes;
    for (std::uint64_t b = 1; b <= (std::uint64_t{16} << 20); b *= opt.quick ? 8 : 4)
        sizes += (sizes.empty() ? "" : ",") + std::to_string(b);
    args.insert(args.end(), {probe, "--out", json_path, "--sizes", sizes, "--samples", opt.quick ? "5" : "11",
                             "--min-seconds", opt.quick ? "0.002" : "0.005"});
    core::RunOptions run;
    run.extra_env = plan.env;
    run.output_log = log_path;
    const int rc = core::run_program(args, run);
    if (rc != 0) {
        out.note = rc == 124 || rc == 137
                       ? fmt::format("MPI: not measured (mpirun did not finish within {} s)", opt.timeout_s)
                       : fmt::format("MPI: not measured (mpirun exited with {}: {})", rc,
                                     core::last_line_of_log(log_path));
        return out;
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(core::read_file(json_path));
        out.figures = mpi_figures_from_probe(j, json_path);
        if (!plan.note.empty())
            out.figures->placement += ", ranks share cores (fewer cores than ranks)";
        else
            out.figures->placement += ", bound to distinct cores";
        const auto& f = *out.figures;
        out.note = fmt::format("MPI: ping-pong of {} ranks with {} ({}), {} message sizes", f.ranks,
                               f.library.empty() ? "mpirun" : f.library, f.placement, f.points.size());
    } catch (const std::exception& e) {
        out.figures.reset();
        out.note = std::string("MPI: not measured (unreadable probe output: ") + e.what() + ")";
    }
    return out;
}

} // namespace roofcast::measure
