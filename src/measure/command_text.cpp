#include "measure/command_text.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <memory>
#include <re2/re2.h>

namespace roofcast::measure {

std::vector<std::string> split_command(const std::string& text) {
    std::vector<std::string> args;
    std::string cur;
    bool have = false;
    char quote = 0;
    for (const char ch : text) {
        if (quote) {
            if (ch == quote)
                quote = 0;
            else
                cur += ch;
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
            have = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\n') {
            if (have)
                args.push_back(cur);
            cur.clear();
            have = false;
        } else {
            cur += ch;
            have = true;
        }
    }
    if (quote)
        throw core::InputError("", "command", fmt::format("expected a closing {} quote", quote));
    if (have)
        args.push_back(cur);
    if (args.empty())
        throw core::InputError("", "command", "expected a program and its arguments, e.g. './app {n} {s}'");
    const bool has_n =
        std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.find("{n}") != a.npos; });
    if (!has_n)
        throw core::InputError(
            "", "command",
            "expected arguments containing {n} (the problem size; {s}, the thread count, is optional)");
    return args;
}

std::vector<std::string> substitute(const std::vector<std::string>& args, std::uint64_t n, int s) {
    std::vector<std::string> out;
    for (std::string a : args) {
        for (const auto& [key, val] : {std::pair<std::string, std::string>{"{n}", std::to_string(n)},
                                       std::pair<std::string, std::string>{"{s}", std::to_string(s)}}) {
            for (std::size_t pos = a.find(key); pos != std::string::npos; pos = a.find(key, pos + val.size()))
                a.replace(pos, key.size(), val);
        }
        out.push_back(std::move(a));
    }
    return out;
}

namespace {

// RE2 (Cox, "Regular Expression Matching Can Be Simple And Fast", 2007): matching time linear in the text
// and a compiled program bounded by k_time_regex_max_mem, so no pattern or output can hang or exhaust the
// stack the way a backtracking engine (std::regex) did on a long line of digits.
constexpr std::int64_t k_time_regex_max_mem = std::int64_t{8} << 20;

std::unique_ptr<re2::RE2> compile_time_regex(const std::string& regex) {
    if (regex.size() > k_time_regex_max_chars)
        throw core::InputError("", "time_regex",
                               fmt::format("expected a regular expression of at most {} characters, got {}",
                                           k_time_regex_max_chars, regex.size()));
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(k_time_regex_max_mem);
    auto re = std::make_unique<re2::RE2>(regex, options);
    if (!re->ok())
        throw core::InputError("", "time_regex",
                               fmt::format("expected a valid RE2 regular expression: {}", re->error()));
    return re;
}

} // namespace

void check_time_regex(const std::string& regex) {
    if (!regex.empty())
        compile_time_regex(regex);
}

std::optional<double> parse_printed_time(const std::string& output, const std::string& regex,
                                         std::size_t* long_lines) {
    const auto re = compile_time_regex(regex);
    const int groups = re->NumberOfCapturingGroups();
    std::vector<re2::StringPiece> match(static_cast<std::size_t>(groups) + 1);
    std::string text;
    std::size_t skipped = 0;
    for (std::size_t start = 0; start < output.size();) {
        const std::size_t end = std::min(output.find('\n', start), output.size());
        if (end - start > k_time_line_max_chars) {
            ++skipped;
        } else {
            const re2::StringPiece line(output.data() + start, end - start);
            if (re->Match(line, 0, line.size(), re2::RE2::UNANCHORED, match.data(), groups + 1)) {
                const re2::StringPiece& m = groups > 0 ? match[1] : match[0];
                text.assign(m.data() ? m.data() : "", m.size());
                break;
            }
        }
        start = end + 1;
    }
    if (long_lines)
        *long_lines = skipped;
    if (text.empty())
        return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
        return std::nullopt;
    return v;
}

} // namespace roofcast::measure
