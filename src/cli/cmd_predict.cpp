// `roofcast predict KERNEL.yaml [--machine M.yaml]`: loads both files (the machine: cli/host_machine.hpp),
// runs the models, prints tables
// (or JSON, or the derivation in words). Thin: parsing and printing only.
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "cli/threads_option.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/results.hpp"
#include "experiment/bench.hpp"
#include "experiment/diagnosis.hpp"
#include "model/kernel.hpp"
#include "model/predict.hpp"
#include "report/diagnosis_text.hpp"
#include "report/predict_table.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include <fmt/format.h>
#include <memory>
#include <string>
#include <vector>

namespace roofcast::cli {

namespace {

struct PredictArgs {
    std::string kernel;
    MachineArgs machine;
    std::vector<std::string> models;
    ThreadsOption threads;
    bool json = false;
    bool explain = false;
    std::optional<double> measured; // seconds of the kernel's declared iterations
};

// With a measured time: the kernel's fraction of its bound and, below k_diagnosis_fraction, the causes
// (experiment/diagnosis.hpp), as `roofcast bench` reports its own kernels.
core::KernelResult measured_verdict(const model::KernelSpec& k, const core::Machine& m, int threads,
                                    double seconds, const std::string& kernel_file) {
    const std::optional<double> iterations = model::iterations_of(k);
    if (!iterations || !(*iterations > 0))
        throw core::InputError(kernel_file, "iterations",
                               "--measured is the time of the kernel's iterations: declare `iterations`");
    if (!(seconds > 0) || !std::isfinite(seconds))
        throw core::InputError("", "--measured", "expected a positive time in seconds");
    model::KernelSpec spec = k;
    spec.iterations = iterations;
    core::KernelResult r = model::compare_kernel(spec, "user", threads, *core::summarize({seconds}), m);
    model::diagnose_kernel(r, spec, m);
    return r;
}

void run_predict(const PredictArgs& a) {
    const model::KernelSpec k = read_kernel_file(a.kernel);
    const std::optional<UsedMachine> used = use_machine(a.machine, WithoutCache::measure);
    if (!used)
        throw core::InputError(
            "", "--no-machine",
            "predict needs a machine: --machine FILE, or this host's (without --no-machine)");
    const core::Machine& m = used->machine;
    model::PredictOptions o;
    // Every core of the machine predicted for; the model bounds the count by the machine's cores.
    o.threads = resolve_thread_count(a.threads, machine_cores(m, false), 0);
    o.models = a.models;
    o.explain = a.explain;
    o.machine_file = used->path;
    const model::Analysis an = model::analyse(k, m, o);
    std::optional<core::KernelResult> verdict;
    if (a.measured)
        verdict = measured_verdict(k, m, o.threads, *a.measured, a.kernel);
    if (a.json) {
        nlohmann::json j = report::prediction_json(an);
        if (verdict) {
            core::Results one;
            one.kernels.push_back(*verdict);
            j["measured"] = core::results_to_json(one)["kernels"][0];
        }
        fmt::print("{}\n", j.dump(2));
        return;
    }
    if (a.explain)
        fmt::print("{}", core::terminal_text(report::format_explanation(an)));
    else
        fmt::print("{}", core::terminal_text(report::format_prediction_tables(an)));
    if (verdict)
        fmt::print("\n{}", report::format_measured_verdict(*verdict));
}

} // namespace

void add_predict_command(CLI::App& app) {
    auto [cmd, args] = add_command(app, "predict", run_predict,
                                   "Predict a kernel's performance on a machine with roofline-family models");
    cmd->add_option("KERNEL", args->kernel, "kernel file (YAML)")->required();
    add_machine_options(cmd, args->machine, "machine file (YAML) to predict for");
    std::vector<std::string> models = model::model_names();
    models.emplace_back("all");
    offer_choices(cmd->add_option("--model", args->models, model::model_list_text() + " (default all)"),
                  models)
        ->delimiter(',');
    add_threads_option(cmd, args->threads,
                       "threads the prediction is for (default: every core of the machine)", false, false);
    cmd->add_flag("--json", args->json, "print JSON instead of tables");
    cmd->add_flag("--explain", args->explain, "print the derivation in words with the formulas used");
    cmd->add_option("--measured", args->measured,
                    "seconds the kernel's declared iterations took: print its fraction of the bound and, "
                    "below 85 %, the likely causes");
}

} // namespace roofcast::cli
