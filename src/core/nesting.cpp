#include "core/nesting.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

namespace roofcast::core {

void check_nesting(std::string_view text, const std::string& file, std::size_t max_depth) {
    std::size_t depth = 0;
    std::size_t line = 1;
    std::size_t indent = 0;
    bool at_line_start = true;
    char quote = 0; // the open string's quote character, 0 outside strings
    bool in_comment = false;
    const auto too_deep = [&](const std::string& what) {
        throw InputError(
            file, "", fmt::format("{} at line {}: roofcast's files are never nested that deep", what, line));
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            at_line_start = true;
            indent = 0;
            in_comment = false; // a quoted YAML scalar may span lines: `quote` stays open
            continue;
        }
        if (at_line_start) {
            if (c == ' ') {
                if (++indent > k_max_indent)
                    too_deep(fmt::format("indented by more than {} spaces", k_max_indent));
                continue;
            }
            at_line_start = false;
        }
        if (in_comment)
            continue;
        if (quote != 0) {
            if (c == '\\' && quote == '"')
                ++i; // skip the escaped character
            else if (c == quote)
                quote = 0;
            continue;
        }
        switch (c) {
        case '"':
        case '\'':
            // A single quote opens a string only at a value's start; inside a plain word (it's) it is
            // a character.
            if (c == '"' || i == 0 || std::string_view(" \t[{,:").find(text[i - 1]) != std::string_view::npos)
                quote = c;
            break;
        case '#':
            if (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n' || text[i - 1] == '\t')
                in_comment = true;
            break;
        case '[':
        case '{':
            if (++depth > max_depth)
                too_deep(fmt::format("nested deeper than {} levels", max_depth));
            break;
        case ']':
        case '}':
            if (depth > 0)
                --depth;
            break;
        default:
            break;
        }
    }
}

} // namespace roofcast::core
