#include "measure/command_text.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <functional>
#include <pthread.h>
#include <regex>

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

// std::regex matches recursively, a few frames per character of the text (libstdc++'s executor): a line
// of 50,000 digits overflowed the 8 MiB main stack. Lines are bounded and matched on a thread whose stack
// holds the deepest match a bounded line and pattern can need (about 2 KiB a character for nested groups;
// the pages are only reserved, touched as the recursion reaches them).
constexpr std::size_t k_regex_stack_bytes = std::size_t{256} << 20;

void on_regex_stack(const std::function<void()>& f) {
    struct Call {
        const std::function<void()>* f;
        std::exception_ptr error;
    } call{&f, nullptr};
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setstacksize(&attr, k_regex_stack_bytes);
    pthread_t thread{};
    const int rc = ::pthread_create(
        &thread, &attr,
        [](void* p) -> void* {
            auto* c = static_cast<Call*>(p);
            try {
                (*c->f)();
            } catch (...) {
                c->error = std::current_exception();
            }
            return nullptr;
        },
        &call);
    ::pthread_attr_destroy(&attr);
    if (rc != 0)
        throw core::Error(
            fmt::format("--time-regex: cannot start a thread to match it: {}", std::strerror(rc)));
    ::pthread_join(thread, nullptr);
    if (call.error)
        std::rethrow_exception(call.error);
}

std::regex compile_time_regex(const std::string& regex) {
    if (regex.size() > k_time_regex_max_chars)
        throw core::InputError("", "time_regex",
                               fmt::format("expected a regular expression of at most {} characters, got {}",
                                           k_time_regex_max_chars, regex.size()));
    std::regex re;
    on_regex_stack([&] {
        try {
            re.assign(regex);
        } catch (const std::regex_error&) {
            throw core::InputError("", "time_regex", "expected a valid ECMAScript regular expression");
        }
    });
    return re;
}

} // namespace

void check_time_regex(const std::string& regex) {
    if (!regex.empty())
        compile_time_regex(regex);
}

std::optional<double> parse_printed_time(const std::string& output, const std::string& regex,
                                         std::size_t* long_lines) {
    const std::regex re = compile_time_regex(regex);
    std::string text;
    std::size_t skipped = 0;
    on_regex_stack([&] {
        for (std::size_t start = 0; start < output.size();) {
            const std::size_t end = std::min(output.find('\n', start), output.size());
            if (end - start > k_time_line_max_chars) {
                ++skipped;
            } else {
                std::smatch m;
                const auto first = output.begin() + static_cast<std::ptrdiff_t>(start);
                const auto last = output.begin() + static_cast<std::ptrdiff_t>(end);
                bool found = false;
                try {
                    found = std::regex_search(first, last, m, re);
                } catch (const std::regex_error&) {
                    throw core::InputError("", "time_regex",
                                           "too complex to match against the program's output");
                }
                if (found) {
                    text = m.size() > 1 ? m[1].str() : m[0].str();
                    return;
                }
            }
            start = end + 1;
        }
    });
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
