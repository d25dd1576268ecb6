// `roofcast predict KERNEL.yaml --machine M.yaml`: loads both files, runs the models, prints tables
// (or JSON, or the derivation in words). Thin: parsing and printing only.
#include "cli/commands.hpp"
#include "cli/threads_option.hpp"
#include "core/machine.hpp"
#include "model/kernel.hpp"
#include "model/predict.hpp"
#include "report/predict_table.hpp"

#include <fmt/format.h>
#include <memory>
#include <string>
#include <vector>

namespace roofcast::cli {

namespace {

struct PredictArgs {
    std::string kernel;
    std::string machine;
    std::vector<std::string> models;
    ThreadsOption threads;
    bool json = false;
    bool explain = false;
};

void run_predict(const PredictArgs& a) {
    const model::KernelSpec k = model::load_kernel(a.kernel);
    const core::Machine m = core::load_machine(a.machine);
    model::PredictOptions o;
    // Every core of the machine predicted for; the model bounds the count by the machine's cores.
    o.threads = resolve_thread_count(a.threads, machine_cores(m, false), 0);
    o.models = a.models;
    o.explain = a.explain;
    o.machine_file = a.machine;
    const model::Analysis an = model::analyse(k, m, o);
    if (a.json)
        fmt::print("{}\n", report::prediction_json(an).dump(2));
    else if (a.explain)
        fmt::print("{}", report::format_explanation(an));
    else
        fmt::print("{}", report::format_prediction_tables(an));
}

} // namespace

void add_predict_command(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("predict", "Predict a kernel's performance on a machine with roofline-family "
                                      "models");
    auto args = std::make_shared<PredictArgs>();
    cmd->add_option("KERNEL", args->kernel, "kernel file (YAML)")->required();
    cmd->add_option("--machine", args->machine, "machine file (YAML)")->required();
    cmd->add_option("--model", args->models, model::model_list_text() + " (default all)")->delimiter(',');
    add_threads_option(cmd, args->threads,
                       "threads the prediction is for (default: every core of the machine)", false, false);
    cmd->add_flag("--json", args->json, "print JSON instead of tables");
    cmd->add_flag("--explain", args->explain, "print the derivation in words with the formulas used");
    cmd->callback([args] { run_predict(*args); });
}

} // namespace roofcast::cli
