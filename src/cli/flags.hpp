// The one place where the library's option fields meet the command line's flags. Lower layers throw
// core::InputError naming an option by its field (`threads`, `max_size`, `isa`); the CLI's top-level
// handler rewrites such an error to name the flag the user typed (`--threads`, `--max-size`, `--isa`).
// Also the one resolution of `--threads`: 0 means every core, on every subcommand.
#pragma once

#include "core/error.hpp"

#include <string>
#include <string_view>

namespace roofcast::cli {

// The flag of an option field ("max_size" -> "--max-size"), or the field unchanged when it is not an
// option of the command line (a data-file field, a positional argument, an already named flag).
std::string flag_for_field(std::string_view field);

// The one-line message of an input error as the command line reports it (fields of options named by
// their flags); errors about data files are unchanged.
std::string describe(const core::InputError& e);

} // namespace roofcast::cli
