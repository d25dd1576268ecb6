#include "cli/commands.hpp"
#include "core/error.hpp"
#include "measure/disasm.hpp"
#include "report/inspect_table.hpp"

#include <fmt/format.h>
#include <memory>
#include <string>

namespace roofcast::cli {

namespace {

struct InspectArgs {
    std::string binary;
    std::string symbol;
    bool json = false;
};

void run_inspect(const InspectArgs& a) {
    const measure::CodeInspection r = measure::inspect_function(a.binary, a.symbol);
    if (r.bad_input == "symbol")
        throw core::InputError(a.binary, "SYMBOL", r.unavailable);
    if (!r.bad_input.empty())
        throw core::InputError(a.binary, "", r.unavailable);
    if (!r.unavailable.empty())
        throw core::Unsupported(fmt::format("{}: cannot inspect: {}", a.binary, r.unavailable));
    if (a.json)
        fmt::print("{}\n", report::inspection_json(r).dump(2));
    else
        fmt::print("{}", core::terminal_text(report::format_inspection_table(r)));
}

} // namespace

void add_inspect_command(CLI::App& app) {
    auto [cmd, a] = add_command(
        app, "inspect", run_inspect,
        "Show the vector width and FP instruction mix of a function's innermost loops (x86-64, objdump)");
    cmd->add_option("BINARY", a->binary, "an x86-64 ELF executable or shared library with its symbol table")
        ->required();
    cmd->add_option("SYMBOL", a->symbol,
                    "the start of the function's demangled name (its OpenMP outlined bodies are included)")
        ->required();
    cmd->add_flag("--json", a->json, "print JSON instead of a table");
}

} // namespace roofcast::cli
