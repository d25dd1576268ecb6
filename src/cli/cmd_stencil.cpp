// `roofcast stencil`: runs roofcast-stencil (deep-halo temporal blocking, docs/stencil.md) under mpirun,
// reads its JSON, compares it with the model of analysis/stencil, prints; or, with --simulate, evaluates the
// model alone for many ranks. Thin: option checks, the launch (as measure/mpi.cpp launches the MPI probe),
// and printing. Bad options fail before anything is launched.
#include "analysis/stencil/measured.hpp"
#include "analysis/stencil/model.hpp"
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "cli/launch_options.hpp"
#include "cli/threads_option.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/io.hpp"
#include "core/machine.hpp"
#include "core/process.hpp"
#include "core/units.hpp"
#include "measure/launcher.hpp"
#include "measure/mpi.hpp"
#include "measure/working_sets.hpp"
#include "report/stencil_report.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace roofcast::cli {

namespace {

namespace fs = std::filesystem;
namespace ms = model::stencil;

struct StencilArgs {
    std::string kernel;
    std::string grid;
    int ranks = 1;
    std::string decomp = "z";
    std::string k = "1";
    std::string sweep_k;
    int steps = 20;
    int reps = 3;
    int threads = 1; // resolved from threads_option in run_stencil
    ThreadsOption threads_option;
    MachineArgs machine;
    bool json = false;
    bool check = false;
    bool simulate = false;
    int max_ranks = 0;
    std::optional<double> alpha;
    std::optional<double> beta;
    std::string mpirun_args;
    std::string launcher; // the cluster's launcher ("srun -N 2"); empty: mpirun
    double timeout_s = 600;
};

// `s` as a whole number (std::stol's syntax, nothing after it); nullopt otherwise.
std::optional<long> whole_number(const std::string& s) {
    std::size_t used = 0;
    long x = 0;
    try {
        x = std::stol(s, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return used == s.size() ? std::optional<long>(x) : std::nullopt;
}

ms::Index3 parse_grid(const std::string& s) {
    std::vector<long> v;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, 'x')) {
        const std::optional<long> x = whole_number(item);
        if (!x || *x < 3)
            break;
        v.push_back(*x);
    }
    if (v.size() != 3 || in)
        throw core::InputError("", "--grid",
                               "expected NXxNYxNZ with at least 3 points each, got '" + s + "'");
    return {v[2], v[1], v[0]};
}

int parse_positive(const std::string& s, const std::string& field, const std::string& what) {
    const std::optional<long> x = whole_number(s);
    if (!x || *x < 1 || *x > std::numeric_limits<int>::max())
        throw core::InputError("", field, what + ", got '" + s + "'");
    return static_cast<int>(*x);
}

// --sweep-k "1..K" or "K": the largest k of the sweep.
int parse_sweep(const std::string& s) {
    const std::string top = s.rfind("1..", 0) == 0 ? s.substr(3) : s;
    return parse_positive(top, "--sweep-k", "expected 1..K with K >= 1");
}

void check_k_fits(const ms::StencilProblem& p, int k, const std::string& field, int ranks) {
    const int top = ms::max_k(p);
    if (k > top) {
        const long limit = ms::smallest_split_extent(p.n, p.dims);
        throw core::InputError(
            "", field,
            top < 1
                ? fmt::format("the grid split over {} ranks leaves blocks of {} points, too thin for a halo "
                              "of width k*r = {} (fewer ranks or a larger grid)",
                              ranks, limit, k * ms::k_radius)
                : fmt::format("the halo width k*r = {} must be smaller than the smallest local extent {} "
                              "({} ranks): use k <= {}",
                              k * ms::k_radius, limit, ranks, top));
    }
}

std::string find_runner() {
    return core::find_companion("roofcast-stencil", "ROOFCAST_STENCIL", ROOFCAST_STENCIL_BUILD_PATH);
}

// Whether `ranks` ranks of `threads` threads share this host's hardware threads (mpirun is told to
// oversubscribe, and what the runner measured in place holds its partners' time slices).
bool shares_cores(int ranks, int threads) {
    return static_cast<unsigned>(ranks * threads) > std::max(1u, std::thread::hardware_concurrency());
}

// The runner's measured constants as the model's inputs (each replaces a machine-file figure). What the
// exchange adds to the sweeps around it is taken where every rank's threads have cores of their own: with
// ranks sharing cores the measurement holds the partners' time slices (4 ranks on 2 vCPUs: 340 us added to
// a 20 us exchange), and the overlap fraction serves instead.
void take_measured(ms::MachineCostOptions& co, const ms::MeasuredStencil& m) {
    co.sweep_constant_s = m.sweep_overhead_s.median;
    co.exchange_latency_s = m.exchange_latency_s;
    if (m.cell_s)
        co.seconds_per_cell = m.cell_s->median;
    if (m.halo) {
        co.exchange_points = m.halo->points();
        co.overlap = m.halo->overlap;
        if (!shares_cores(m.ranks, m.threads))
            co.exchange_added_points = m.halo->added_points();
    }
}

// Refuses, before mpirun starts, a run whose fields cannot fit in this host's available memory: all the
// ranks' where they run here, the largest rank's where --mpirun-args sends ranks elsewhere.
void check_memory(const StencilArgs& a, const ms::StencilProblem& p, const std::vector<int>& ks,
                  const measure::LaunchRequest& request) {
    const auto available = measure::available_memory_bytes();
    if (!available)
        return;
    // Ghosts for the deepest k and for the exchange of width 2r the runner also times (Runner::run_all).
    const long halo = std::max(*std::max_element(ks.begin(), ks.end()), 2) * ms::k_radius;
    const ms::RunnerBytes b = ms::runner_bytes(p.n, p.dims, halo, ms::element_bytes(a.kernel), a.check);
    const bool elsewhere = measure::launches_elsewhere(request);
    const double need = elsewhere ? b.largest_rank : b.total;
    if (need <= static_cast<double>(*available))
        return;
    throw core::InputError(
        "", "--grid",
        fmt::format("{} over {} ranks needs {} of memory for {} (two fields of each block with its halo of "
                    "{}{}), more than the {} available on this host (MemAvailable): use a smaller grid{}",
                    a.grid, a.ranks, core::format_size(need), elsewhere ? "its largest rank" : "the ranks",
                    halo, a.check ? ", and the gathered grid and two references of --check" : "",
                    core::format_size(static_cast<double>(*available)),
                    elsewhere ? "" : " or more hosts (--mpirun-args --hostfile)"));
}

measure::LaunchRequest launch_request(const StencilArgs& a) {
    measure::LaunchRequest request;
    request.ranks = a.ranks;
    request.threads_per_rank = a.threads;
    request.launcher = a.launcher;
    request.extra_words = measure::launcher_words(a.mpirun_args);
    return request;
}

// The runner, and mpirun where no launcher is given, checked before anything is measured or launched.
std::string find_launch_tools(const StencilArgs& a) {
    std::string runner = find_runner();
    if (runner.empty())
        throw core::Unsupported(
            "stencil: roofcast-stencil was not found beside roofcast (CMake found no MPI, or "
            "set ROOFCAST_STENCIL)");
    if (a.launcher.empty() && !core::find_in_path("mpirun"))
        throw core::Unsupported("stencil: no mpirun on PATH (scripts/install-deps.sh installs Open MPI)");
    return runner;
}

// Launches the runner (measure/launcher.hpp: mpirun or the cluster's launcher, one placement policy; the
// caller's placement wins: mpirun refuses a rank file beside a mapping policy, and ranks started through the
// network namespaces' daemons each see a node of their own, whose first core a default policy would give to
// every rank: scripts/netns-ranks.sh writes a rank file instead) and returns its parsed output.
ms::MeasuredStencil launch(const StencilArgs& a, const ms::StencilProblem& p, const std::vector<int>& ks) {
    const measure::LaunchRequest request = launch_request(a);
    check_memory(a, p, ks, request);
    const std::string runner = find_launch_tools(a);
    const measure::LaunchPlan plan = measure::plan_launch(request, measure::launch_host());
    if (!plan.note.empty())
        fmt::print(stderr, "roofcast stencil: note: {}; times include waiting for a core\n", plan.note);
    // A caught signal stops mpirun's group and unwinds through here, removing the private directory
    // (core/interrupt.hpp).
    const core::InterruptScope interrupts;
    const core::TempDirectory tmp("roofcast-stencil");
    const fs::path& dir = tmp.path();
    const std::string out = (dir / "stencil.json").string(), log = (dir / "mpirun.log").string();
    std::vector<std::string> args = plan.prefix;
    std::string klist;
    for (int k : ks)
        klist += (klist.empty() ? "" : ",") + std::to_string(k);
    args.insert(args.end(), {runner, "--kernel", a.kernel, "--grid", a.grid, "--dims",
                             fmt::format("{},{},{}", p.dims[0], p.dims[1], p.dims[2]), "--k", klist,
                             "--steps", std::to_string(a.steps), "--reps", std::to_string(a.reps),
                             "--threads", std::to_string(a.threads), "--out", out});
    if (a.check)
        args.push_back("--check");
    core::RunOptions run;
    run.extra_env = plan.env;
    run.extra_env.push_back("OMP_PROC_BIND=false");
    // Spinning OpenMP threads starve the other ranks' threads when the cores are shared.
    if (plan.shares_cores)
        run.extra_env.push_back("OMP_WAIT_POLICY=PASSIVE");
    run.output_log = log;
    // The whole group is killed at the limit: mpirun and every rank it started here.
    run.timeout_s = a.timeout_s;
    const int rc = core::run_program(args, run);
    if (rc != 0) {
        const std::string why =
            rc == core::k_timed_out
                ? fmt::format("did not finish within {:g} s (--timeout): stopped with its ranks", a.timeout_s)
                : fmt::format("exited with {}: {}", rc, core::last_line_of_log(log));
        throw core::Error("stencil: mpirun " + why);
    }
    ms::MeasuredStencil m;
    try {
        m = ms::stencil_run_from_json(nlohmann::json::parse(core::read_file(out)), "roofcast-stencil output");
    } catch (const nlohmann::json::exception& e) {
        throw core::Error(std::string("stencil: unreadable runner output: ") + e.what());
    }
    core::throw_if_interrupted();
    return m;
}

// What the arguments ask for, checked before anything is measured or launched.
struct StencilPlan {
    ms::StencilProblem p;
    bool auto_k = false;
    int fixed_k = 1;
    int top_k = 1;
};

StencilPlan check_stencil_args(const StencilArgs& a) {
    ms::element_bytes(a.kernel); // unknown kernel: one error line
    if (a.decomp != "z" && a.decomp != "3d")
        throw core::InputError("", "--decomp", "expected z or 3d, got '" + a.decomp + "'");
    if (a.ranks < 1)
        throw core::InputError("", "--ranks", "expected a rank count >= 1");
    check_timeout(a.timeout_s);
    if (a.steps < 1 || a.reps < 1)
        throw core::InputError("", a.steps < 1 ? "--steps" : "--reps", "expected an integer >= 1");
    StencilPlan s;
    ms::StencilProblem& p = s.p;
    p.kernel = a.kernel;
    p.n = parse_grid(a.grid);
    p.steps = a.steps;
    p.dims = ms::process_grid(p.n, a.ranks, a.decomp);
    s.auto_k = a.k == "auto";
    s.fixed_k = s.auto_k ? 1 : parse_positive(a.k, "--k", "expected k >= 1 or auto");
    s.top_k = a.sweep_k.empty() ? s.fixed_k : parse_sweep(a.sweep_k);
    if (s.top_k > std::min(a.steps, ms::k_max_depth))
        throw core::InputError(
            "", a.sweep_k.empty() ? "--k" : "--sweep-k",
            fmt::format("expected k from 1 to {} (the steps, --steps {}; a block never holds "
                        "more than every step, and k is at most {}), got {}",
                        std::min(a.steps, ms::k_max_depth), a.steps, ms::k_max_depth, s.top_k));
    if (!a.sweep_k.empty() && (s.auto_k || a.k != "1"))
        throw core::InputError("", "--sweep-k", "expected either --k or --sweep-k, not both");
    if (a.alpha && *a.alpha < 0)
        throw core::InputError("", "--alpha", "expected a start-up time >= 0 s");
    if (a.beta && !(*a.beta > 0))
        throw core::InputError("", "--beta", "expected a bandwidth > 0 GB/s");
    // Before a machine file of this host is measured: the blocks fit the halo, the launcher exists.
    if (a.simulate) {
        check_k_fits(p, 1, "--ranks", a.ranks);
    } else {
        check_k_fits(p, s.top_k, a.sweep_k.empty() ? "--k" : "--sweep-k", a.ranks);
        find_launch_tools(a);
        (void)measure::plan_launch(launch_request(a), measure::launch_host()); // a launcher that cannot run
    }
    return s;
}

std::vector<std::string> model_sources(const ms::MachineCosts& mc) {
    return {"per point: " + mc.cell_source, "pack/unpack: " + mc.copy_source, "messages: " + mc.comm_source,
            "per sweep: " + mc.sweep_source};
}

// --simulate: the model's choice of k and its strong scaling from the machine file alone.
void simulate_stencil(const StencilArgs& a, const StencilPlan& s, const core::Machine& machine,
                      report::StencilHeader h, ms::MachineCostOptions co) {
    co.ranks_per_node = 1;
    const int max_ranks = a.max_ranks > 0 ? a.max_ranks : a.ranks;
    const int kmax = a.sweep_k.empty() ? 8 : s.top_k;
    auto costs = [&](const ms::StencilProblem& q) { return ms::machine_costs(q, machine, co); };
    const ms::MachineCosts mc = costs(s.p);
    h.model_sources = model_sources(mc);
    report::StencilSimulation sim{h, ms::choose_k(s.p, mc.inputs, kmax), {}};
    sim.scaling = ms::strong_scaling(s.p, a.decomp, max_ranks, kmax,
                                     [&](const ms::StencilProblem& q) { return costs(q).inputs; });
    if (a.json)
        fmt::print("{}\n", report::stencil_simulation_json(sim).dump(2));
    else
        fmt::print("{}", core::terminal_text(report::format_stencil_simulation(sim)));
}

// The runner at each k asked for (--k auto: the model's choice after one probing run), with the model's
// predictions beside the measurements where a machine file is used.
void measure_stencil(const StencilArgs& a, const StencilPlan& s, const std::optional<core::Machine>& machine,
                     report::StencilHeader h, ms::MachineCostOptions co) {
    const ms::StencilProblem& p = s.p;
    co.ranks_per_node = a.ranks;
    std::vector<int> ks;
    std::optional<ms::MachineCosts> mc;
    if (s.auto_k) {
        // The per-sweep constant is measured once by the runner (a one-step run at k = 1), then the
        // model picks k.
        StencilArgs probe = a;
        probe.steps = 1;
        probe.reps = 1;
        probe.check = false;
        ms::StencilProblem q = p;
        q.steps = 1;
        co.sweep_constant_s = 0;
        ms::machine_costs(p, *machine, co); // a machine file the model cannot use fails before any launch
        const ms::MeasuredStencil once = launch(probe, q, {1});
        take_measured(co, once);
        mc = ms::machine_costs(p, *machine, co);
        ks.push_back(ms::choose_k(p, mc->inputs, ms::max_k(p)).best_k);
    } else if (!a.sweep_k.empty()) {
        for (int k = 1; k <= s.top_k; ++k)
            ks.push_back(k);
    } else {
        ks.push_back(s.fixed_k);
    }
    const ms::MeasuredStencil m = launch(a, p, ks);
    std::vector<ms::KPrediction> predictions;
    if (machine) {
        take_measured(co, m);
        mc = ms::machine_costs(p, *machine, co);
        h.model_sources = model_sources(*mc);
        for (int k : ks)
            predictions.push_back(ms::predict_k(p, mc->inputs, k));
        if (s.auto_k)
            h.model_sources.push_back(fmt::format("--k auto chose k = {}", ks.front()));
    }
    const ms::KComparison c = ms::compare(m, predictions);
    bool check_failed = false;
    for (const auto& r : c.rows)
        if (r.measured.check && (!r.measured.check->value("bitwise_equal", false) ||
                                 !r.measured.check->value("gosa_within_tolerance", true)))
            check_failed = true;
    if (a.json)
        fmt::print("{}\n", report::stencil_sweep_json(h, m, c).dump(2));
    else
        fmt::print("{}", core::terminal_text(report::format_stencil_sweep(h, m, c)));
    if (check_failed)
        throw core::Error("stencil: --check: the field differs from the serial reference");
}

void run_stencil(const StencilArgs& args) {
    StencilArgs a = args;
    const StencilPlan s = check_stencil_args(a);
    const std::optional<UsedMachine> used = use_machine(a.machine, WithoutCache::measure);
    if ((s.auto_k || a.simulate) && !used)
        throw core::InputError("", "--no-machine",
                               fmt::format("{} needs a machine file (--machine FILE, or this host's without "
                                           "--no-machine)",
                                           s.auto_k ? "--k auto" : "--simulate"));

    // Threads per rank; every core = the cores shared among the ranks: the machine file's when simulating,
    // this host's when running (and then bounded, since they run here).
    std::optional<core::Machine> machine;
    if (used)
        machine = used->machine;
    if (a.simulate && machine)
        a.threads =
            resolve_thread_count(a.threads_option, std::max(1, machine_cores(*machine, false) / a.ranks), 0);
    else
        a.threads = resolve_thread_count(a.threads_option, std::max(1, host_cores() / a.ranks),
                                         host_hardware_threads());

    report::StencilHeader h;
    h.kernel = a.kernel;
    h.grid = s.p.n;
    h.dims = s.p.dims;
    h.decomp = a.decomp;
    h.ranks = a.ranks;
    h.threads = a.threads;
    h.steps = a.steps;
    ms::MachineCostOptions co;
    co.threads = a.threads;
    co.alpha_s = a.alpha;
    co.beta_gbs = a.beta;
    co.machine_file = used ? used->path : "";
    if (a.simulate)
        simulate_stencil(a, s, *machine, h, co);
    else
        measure_stencil(a, s, machine, h, co);
}

} // namespace

void add_stencil_command(CLI::App& app) {
    auto [cmd, a] = add_command(
        app, "stencil", run_stencil,
        "Run an MPI 3-D stencil with deep-halo temporal blocking and compare the model's choice of k");
    offer_choices(cmd->add_option("--kernel", a->kernel, "jacobi7 (double) or himeno (single)"),
                  ms::kernel_names())
        ->required();
    cmd->add_option("--grid", a->grid, "global grid NXxNYxNZ")->required();
    cmd->add_option("--ranks", a->ranks, "MPI ranks (default 1)");
    cmd->add_option("--decomp", a->decomp, "z (slabs) or 3d (Cartesian)")->capture_default_str();
    cmd->add_option("--k", a->k, "sweeps per halo exchange, or auto (the model picks; needs a machine file)")
        ->capture_default_str();
    cmd->add_option("--sweep-k", a->sweep_k, "1..K: measure every k up to K and compare with the model");
    cmd->add_option("--steps", a->steps, "time steps")->capture_default_str();
    cmd->add_option("--reps", a->reps, "timed repetitions per k")->capture_default_str();
    add_threads_option(cmd, a->threads_option,
                       "OpenMP threads per rank (default: every core shared among the ranks)", false, true);
    add_machine_options(cmd, a->machine, "machine file (YAML) for the model");
    cmd->add_flag("--json", a->json, "print JSON");
    cmd->add_flag("--check", a->check, "compare the field with a serial reference (bitwise; Himeno's gosa)");
    cmd->add_flag("--simulate", a->simulate,
                  "evaluate the model alone for --ranks (and a strong-scaling curve)");
    cmd->add_option("--max-ranks", a->max_ranks, "--simulate: largest rank count of the scaling curve");
    cmd->add_option("--alpha", a->alpha, "MPI start-up time in seconds (default: the machine file's)");
    cmd->add_option("--beta", a->beta, "MPI bandwidth in GB/s (default: the machine file's)");
    cmd->add_option("--mpirun-args", a->mpirun_args, "extra mpirun arguments (scripts/netns-ranks.sh)");
    cmd->add_option("--launcher", a->launcher,
                    "the cluster's launcher instead of mpirun, with its options (e.g. 'srun -N 2' or 'mpirun "
                    "--hostfile hosts'); roofcast adds the rank count");
    add_timeout_option(cmd, a->timeout_s, "mpirun (each launch)");
}

} // namespace roofcast::cli
