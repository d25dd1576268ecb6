#include "cli/commands.hpp"
#include "cli/threads_option.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "measure/compute.hpp"
#include "report/format.hpp"
#include "report/noise_text.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

namespace roofcast::cli {

namespace {

struct CeilingArgs {
    std::string precision = "double";
    std::string isa; // empty = the widest this CPU supports
    std::string op = "fma";
    ThreadsOption threads;
    bool quick = false;
    bool json = false;
};

void run_ceiling(const CeilingArgs& a) {
    const int threads = resolve_thread_count(a.threads, host_cores(), host_hardware_threads());
    const std::string isa = a.isa.empty() ? measure::available_isas().back() : a.isa;
    const measure::CeilingPoint p = measure::measure_ceiling_point(a.precision, isa, a.op, threads, a.quick);
    // A result above its op's theoretical peak cannot be a ceiling of this core: threads sharing cores, or
    // a clock probe the epochs did not run at. Refused rather than noted (issue 19, options). The peak is
    // the CPU's documented issue rate (measure/fp_peak.hpp), never a figure read from the epoch judged.
    if (p.peak.fraction > measure::k_peak_margin)
        throw core::Error(fmt::format(
            "ceiling: measured {:.1f} % of the theoretical peak of {} {} {} ({:.2f} of {:.0f} flops per core "
            "and "
            "cycle with {} thread(s); {}); the threads shared cores or the clock changed, so the figure is "
            "refused",
            100 * p.peak.fraction, p.ceiling.precision, p.ceiling.isa, p.ceiling.op, p.best_flops_per_cycle,
            p.peak.peak_flops_per_cycle, threads, p.peak.basis));
    const core::ComputeCeiling& c = p.ceiling;
    if (a.json) {
        nlohmann::json j;
        j["precision"] = c.precision;
        j["isa"] = c.isa;
        j["op"] = c.op;
        j["threads"] = c.threads;
        j["gflops"] = core::summary_to_json(c.gflops);
        j["ghz"] = c.ghz ? nlohmann::json(*c.ghz) : nlohmann::json(nullptr);
        j["best_flops_per_cycle"] = p.best_flops_per_cycle;
        j["fma_units"] = p.fma_units;
        j["peak_flops_per_cycle"] = p.peak.peak_flops_per_cycle;
        j["peak_basis"] = p.peak.basis;
        j["fraction_of_theoretical"] = p.peak.fraction;

        j["notes"] = p.notes;
        fmt::print("{}\n", j.dump(2));
        return;
    }
    fmt::print("{} {} {} {} thread(s): {:.1f} GFLOP/s median (min {:.1f} .. max {:.1f}; {}) at {}\n",
               c.precision, c.isa, c.op, c.threads, c.gflops.median, c.gflops.min, c.gflops.max,
               report::row_alone_text(c.gflops),
               c.ghz ? fmt::format("{:.2f} GHz", *c.ghz) : std::string("?"));
    fmt::print(
        "second-best epoch: {:.2f} flops per core and cycle = {:.1f} % of the theoretical {:.0f} of this op "
        "at the probed clock ({})\n",
        p.best_flops_per_cycle, 100 * p.peak.fraction, p.peak.peak_flops_per_cycle, p.peak.basis);

    for (const auto& n : p.notes)
        fmt::print("  - {}\n", n);
}

} // namespace

void add_ceiling_command(CLI::App& app) {
    auto [cmd, a] = add_command(
        app, "ceiling", run_ceiling,
        "Measure one compute ceiling, as `roofcast machine` measures it (default: widest double FMA)");
    cmd->add_option("--precision", a->precision, "double or single")->capture_default_str();
    cmd->add_option("--isa", a->isa, "scalar, sse, avx2 or avx512 (default: the widest supported)");
    cmd->add_option("--op", a->op, "fma, add, mul, addmul or chain")->capture_default_str();
    add_threads_option(cmd, a->threads, "threads, pinned one per core (default: every core)", false, true);
    cmd->add_flag("--quick", a->quick, "fewer, shorter epochs");
    cmd->add_flag("--json", a->json, "print the ceiling as JSON");
}

} // namespace roofcast::cli
