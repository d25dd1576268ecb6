#include "cli/commands.hpp"
#include "cli/threads_option.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine.hpp"
#include "core/stream_catalogue.hpp"
#include "core/units.hpp"
#include "measure/machine_run.hpp"
#include "report/machine_table.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace roofcast::cli {

namespace {

struct MachineCommandArgs {
    std::string output = "roofcast-machine.yaml";
    bool quick = false;
    bool json = false;
    bool no_mpi = false;
    bool no_stream_capacity = false;
    bool strict = false;
    ThreadsOption threads;
    std::vector<std::string> kernels;
    std::vector<std::string> isas;
    std::string max_size;
};

// One-line progress bar, redrawn in place; only used when stderr is a terminal.
void draw_progress(double fraction, const std::string& what) {
    constexpr int k_width = 30;
    const int filled = static_cast<int>(fraction * k_width);
    fmt::print(stderr, "\r[{:<{}}] {:3.0f}% {:<50.50}", std::string(static_cast<std::size_t>(filled), '#'),
               k_width, 100 * fraction, what);
    if (fraction >= 1.0)
        fmt::print(stderr, "\n");
    std::fflush(stderr);
}

void run_machine(const MachineCommandArgs& a) {
    measure::MachineOptions opt;
    opt.quick = a.quick;
    // Absent: measure_machine's own sweep (1 and every core).
    if (!a.threads.text.empty())
        opt.threads = resolve_thread_counts(a.threads, host_cores(), host_hardware_threads(), {});
    opt.kernels = a.kernels;
    opt.isas = a.isas;
    opt.mpi = !a.no_mpi;
    opt.stream_capacity = !a.no_stream_capacity;
    if (!a.max_size.empty())
        opt.max_size = core::parse_size(a.max_size, "--max-size");
    measure::validate_machine_options(opt);
    core::check_output_writable(a.output, "--output");
    if (isatty(STDERR_FILENO))
        opt.progress = draw_progress;
    const core::Machine m = measure::measure_machine(opt);
    core::save_machine(a.output, m);
    if (a.json)
        fmt::print("{}\n", core::machine_to_json(m).dump(2));
    else
        fmt::print("{}\nwritten: {}\n", core::terminal_text(report::format_machine_table(m)),
                   core::terminal_safe(a.output));
    // A host that did not settle: the file is complete and says so (roof_choice.settled); the run names the
    // roofs, and --strict makes it a failure.
    if (const std::string unsettled = report::unsettled_roofs_text(m); !unsettled.empty()) {
        if (a.strict)
            throw core::Error("roofs did not settle before the cap (--strict): " + unsettled +
                              "; written: " + a.output);
        fmt::print(
            stderr,
            "roofcast: warning: roofs did not settle before the cap: {}; each is the median of its best "
            "epochs (--strict makes this an error)\n",
            unsettled);
    }
    // Private roofs whose threads did not get a core each for the run's window (issue 22 §2): said, and an
    // error under --strict, as an unsettled roof is.
    if (const std::string short_scaling = report::short_scaling_text(m); !short_scaling.empty()) {
        if (a.strict)
            throw core::Error("private roofs below their thread scaling (--strict): " + short_scaling +
                              "; written: " + a.output);
        fmt::print(stderr,
                   "roofcast: warning: private roofs below {:.0f} % of threads x one thread after extra "
                   "visits: {}; the vCPUs did not get a core each for the run (a neighbour, or two vCPUs on "
                   "one core); --strict makes this an error\n",
                   100 * core::k_roof_thread_scaling_min, short_scaling);
    }
}

} // namespace

void add_machine_command(CLI::App& app) {
    auto [cmd, a] =
        add_command(app, "machine", run_machine, "Measure this machine's ceilings and write a machine file");
    cmd->add_option("-o,--output", a->output, "machine file to write (YAML)")->capture_default_str();
    cmd->add_flag("--quick", a->quick, "coarser and shorter measurement (under 30 s on 2 cores)");
    cmd->add_flag("--json", a->json, "print the machine file as JSON on stdout instead of the table");
    add_threads_option(cmd, a->threads, "thread counts to measure (default: 1 and every core)", true, true);
    cmd->add_option("--kernels", a->kernels, "bandwidth kernels: " + core::stream_kernel_names(","))
        ->delimiter(',');
    cmd->add_option("--isa", a->isas, "compute ISAs: scalar,sse,avx2,avx512 (default: all supported)")
        ->delimiter(',');
    cmd->add_option("--max-size", a->max_size, "largest working set, e.g. 512MiB");
    cmd->add_flag("--no-mpi", a->no_mpi, "skip the MPI ping-pong (latency and bandwidth between two ranks)");
    cmd->add_flag("--no-stream-capacity", a->no_stream_capacity,
                  "skip the bandwidth against concurrent streams (MEM and the last cache level)");
    cmd->add_flag(
        "--strict", a->strict,
        "exit non-zero when a roof's best epochs did not agree before the settling cap (a busy host)");
}

} // namespace roofcast::cli
