// Fuzz target: the launcher's handling of `threads --command` text, as roofcast threads runs it. The
// input's first line is the --command text (split, {n} and {s} substituted), its second the --time-regex
// (checked and compiled by RE2: length- and memory-bounded); the rest is the output of a run, in which the
// time is looked for with that regex when it compiles and with the realistic patterns below (RE2 matches in
// time linear in the output, so no pattern may hang).
#include "fuzz_reader.hpp"
#include "measure/command_text.hpp"

#include <array>
#include <string>
#include <string_view>

void read_input(const std::string& text) {
    const std::size_t first = text.find('\n');
    const std::size_t second = first == std::string::npos ? std::string::npos : text.find('\n', first + 1);
    const std::string command = text.substr(0, first);
    const std::string regex =
        first == std::string::npos
            ? ""
            : text.substr(first + 1, second == std::string::npos ? second : second - first - 1);
    const std::string output = second == std::string::npos ? "" : text.substr(second + 1);
    try {
        (void)roofcast::measure::substitute(roofcast::measure::split_command(command),
                                            18446744073709551615ULL, 2147483647);
    } catch (const std::exception&) {
    }
    try {
        roofcast::measure::check_time_regex(regex);
        if (!regex.empty())
            (void)roofcast::measure::parse_printed_time(output, regex);
    } catch (const std::exception&) {
    }
    static constexpr std::array<std::string_view, 4> patterns{"elapsed ([0-9.eE+-]+)", "time: (\\S+)",
                                                              "([0-9.]+) s", "(.*)"};
    for (const auto p : patterns) {
        std::size_t long_lines = 0;
        (void)roofcast::measure::parse_printed_time(output, std::string(p), &long_lines);
    }
}
