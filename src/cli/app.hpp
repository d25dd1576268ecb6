// Entry point of the command-line interface: builds the CLI11 application with every subcommand,
// runs it, and is the single place that turns exceptions into "roofcast: error: ..." and an exit code.
#pragma once

namespace roofcast::cli {

int run(int argc, char** argv);

} // namespace roofcast::cli
