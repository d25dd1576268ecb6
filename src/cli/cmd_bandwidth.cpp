#include "cli/commands.hpp"
#include "cli/threads_option.hpp"
#include "core/machine.hpp"
#include "core/stream_catalogue.hpp"
#include "core/units.hpp"
#include "measure/machine_run.hpp"
#include "report/format.hpp"
#include "report/noise_text.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

namespace roofcast::cli {

namespace {

struct BandwidthArgs {
    std::string kernel;
    std::string size;
    ThreadsOption threads;
    bool quick = false;
    bool json = false;
};

void run_bandwidth(const BandwidthArgs& a) {
    const std::uint64_t bytes = core::parse_size(a.size, "SIZE");
    const int threads = resolve_thread_count(a.threads, host_cores(), host_hardware_threads());
    const core::BandwidthPoint p = measure::measure_bandwidth_point(a.kernel, threads, bytes, a.quick);
    if (a.json) {
        nlohmann::json j;
        j["kernel"] = p.kernel;
        j["threads"] = p.threads;
        j["working_set_bytes"] = p.working_set_bytes;
        j["gbs"] = core::summary_to_json(p.gbs);
        j["moved_per_requested"] = p.moved_per_requested;
        fmt::print("{}\n", j.dump(2));
        return;
    }
    fmt::print("{} {} thread(s) {}: {:.2f} GB/s requested (min {:.2f} .. max {:.2f}; {}), {:.2f} GB/s moved "
               "(x{:.3g} write-allocate)\n",
               p.kernel, p.threads, core::format_size(static_cast<double>(p.working_set_bytes)), p.gbs.median,
               p.gbs.min, p.gbs.max, report::row_alone_text(p.gbs), p.gbs.median * p.moved_per_requested,
               p.moved_per_requested);
}

} // namespace

void add_bandwidth_command(CLI::App& app) {
    auto [cmd, a] = add_command(
        app, "bandwidth", run_bandwidth,
        "Measure one bandwidth kernel at one working set, as `roofcast machine` measures a level");
    cmd->add_option("KERNEL", a->kernel, "one of " + core::stream_kernel_names(", "))->required();
    cmd->add_option("SIZE", a->size, "total working set of all threads, e.g. 32KiB, 40MiB")->required();
    add_threads_option(cmd, a->threads, "threads, pinned one per core (default: every core)", false, true);
    cmd->add_flag("--quick", a->quick, "fewer, shorter epochs");
    cmd->add_flag("--json", a->json, "print the point as JSON");
}

} // namespace roofcast::cli
