// Typed errors of roofcast. Library code throws these; the single handler in main() prints
// "roofcast: error: <what()>" and exits non-zero. InputError always names the file, the field and
// what was expected, so that a user can fix bad input from one line.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::core {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad user input: a data file or an option value. `file` may be empty for option values; library code
// then names the option by its field (`threads`, `max_size`), never by a command-line flag: the CLI
// translates fields to its flags (cli/flags.hpp).
class InputError : public Error {
public:
    InputError(std::string file, std::string field, std::string message);
    const std::string& file() const { return m_file; }
    const std::string& field() const { return m_field; }
    const std::string& message() const { return m_message; } // what() without file and field

private:
    std::string m_file;
    std::string m_field;
    std::string m_message;
};

// A capability this machine lacks (no counters, no MPI, ...). Callers decide whether to fall back.
class Unsupported : public Error {
public:
    using Error::Error;
};

// `text` made fit for one terminal line: control characters (newlines, escape sequences) written as
// \xNN, and everything past `max_chars` cut with a count of what was left out, so a 200 KB bad token
// or a hostile name never floods or drives the terminal.
std::string terminal_safe(std::string_view text, std::size_t max_chars = 400);

// A command's text output (tables, summaries) made safe for a terminal: control characters other than
// newline and tab written as \xNN, so a name read from a file (a kernel, a function, a command) cannot
// drive the terminal with escape sequences. Nothing is cut.
std::string terminal_text(std::string_view text);

// Warnings bounded for a terminal and a file: each cut at `max_chars` (with the count left out), and of
// warnings of one kind (the same text once quoted names and numbers are set aside: "rank 3: region 'x'
// ended ...") the first `per_kind` kept and the rest counted in one line, "N more warnings like: ...", at
// the end. A program with 200,000 mismatched regions gives 21 lines, not 200,000. Order is kept; control
// characters are left for the printer (terminal_safe).
std::vector<std::string> summarise_warnings(const std::vector<std::string>& warnings,
                                            std::size_t per_kind = 20, std::size_t max_chars = 400);

} // namespace roofcast::core
