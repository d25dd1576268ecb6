#include "cli/flags.hpp"

#include <array>
#include <utility>

namespace roofcast::cli {

namespace {

// Option fields of the library layers and the flags that set them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 19> k_flags{{
    {"threads", "--threads"},
    {"kernels", "--kernels"},
    {"kernel", "--kernel"},
    {"max_size", "--max-size"},
    {"isa", "--isa"},
    {"precision", "--precision"},
    {"op", "--op"},
    {"rounds", "--rounds"},
    {"suite", "--suite"},
    {"model", "--model"},
    {"select", "--select"},
    {"command", "--command"},
    {"time_regex", "--time-regex"},
    {"sizes", "--sizes"},
    {"sizes_threads", "--sizes/--threads"},
    {"backend", "--backend"},
    {"repeat", "--repeat"},
    {"passes_at_once", "--passes-at-once"},
    {"predict", "--predict"},
}};

} // namespace

std::string flag_for_field(std::string_view field) {
    for (const auto& [name, flag] : k_flags)
        if (name == field)
            return std::string(flag);
    return std::string(field);
}

std::string describe(const core::InputError& e) {
    // One terminal line whatever the file holds: a hostile name or a 200 KB token is escaped and cut.
    if (!e.file().empty())
        return core::terminal_safe(e.what());
    return core::terminal_safe(core::InputError("", flag_for_field(e.field()), e.message()).what());
}

} // namespace roofcast::cli
