#include "cli/completion.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace roofcast::cli {

namespace {

// The set an IsMember check accepts, as CLI11 shows it in the option's type name ("TEXT:{weak,strong}").
std::vector<std::string> option_choices(const CLI::Option& opt) {
    const std::string type = opt.get_type_name();
    const auto open = type.find(":{");
    const auto close = type.rfind('}');
    if (open == std::string::npos || close == std::string::npos || close < open + 2)
        return {};
    std::vector<std::string> out;
    const std::string list = type.substr(open + 2, close - open - 2);
    std::size_t from = 0;
    while (from <= list.size()) {
        const auto comma = list.find(',', from);
        const std::string word =
            list.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        if (word.empty() || word.find_first_of(" \t\"'$`\\") != std::string::npos)
            return {}; // not a plain word a shell list can carry as it is
        out.push_back(word);
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    return out;
}

} // namespace

CLI::Option* offer_choices(CLI::Option* opt, const std::vector<std::string>& choices) {
    return opt->type_name(fmt::format("TEXT:{{{}}}", fmt::join(choices, ",")));
}

namespace {

// Options of `app` and of its option groups (CLI11 keeps a group as a nameless subcommand).
void collect_shell_options(const CLI::App& app, std::vector<ShellOption>& out) {
    for (const CLI::Option* opt : app.get_options()) {
        ShellOption o;
        for (const auto& l : opt->get_lnames())
            o.names.push_back("--" + l);
        for (const auto& s : opt->get_snames())
            o.names.push_back("-" + s);
        if (o.names.empty())
            continue; // a positional
        // An option group carries a --help of its own, which the command already has.
        const bool seen = std::any_of(out.begin(), out.end(), [&](const ShellOption& prior) {
            return std::find(prior.names.begin(), prior.names.end(), o.names.front()) != prior.names.end();
        });
        if (seen)
            continue;
        o.takes_value = opt->get_items_expected_max() > 0;
        if (o.takes_value)
            o.choices = option_choices(*opt);
        out.push_back(std::move(o));
    }
    for (const CLI::App* group : app.get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
        collect_shell_options(*group, out);
}

std::string join_names(const std::vector<ShellOption>& options, bool valued_only) {
    std::string s;
    for (const auto& o : options)
        if (!valued_only || o.takes_value)
            for (const auto& n : o.names)
                s += (s.empty() ? "" : " ") + n;
    return s;
}

} // namespace

std::vector<ShellCommand> shell_commands(const CLI::App& app) {
    std::vector<ShellCommand> out;
    ShellCommand top{"", app.get_description(), {}};
    collect_shell_options(app, top.options);
    out.push_back(std::move(top));
    for (const CLI::App* sub :
         app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); })) {
        ShellCommand c{sub->get_name(), sub->get_description(), {}};
        collect_shell_options(*sub, c.options);
        out.push_back(std::move(c));
    }
    return out;
}

// The case branches "sub --option" -> that option's choices, for every option with a fixed set.
std::string choice_cases(const std::vector<ShellCommand>& commands) {
    std::string cases;
    for (const auto& c : commands)
        for (const auto& o : c.options)
            if (!o.choices.empty())
                for (const auto& n : o.names)
                    cases += fmt::format(
                        "        \"{} {}\")\n            mapfile -t COMPREPLY < <(compgen -W \"{}\" -- "
                        "\"$cur\")\n            return 0\n            ;;\n",
                        c.name, n, fmt::join(o.choices, " "));
    return cases;
}

std::string bash_completion(const std::vector<ShellCommand>& commands, const std::string& program) {
    std::string subcommands;
    std::string cases;
    for (const auto& c : commands) {
        if (!c.name.empty())
            subcommands += (subcommands.empty() ? "" : " ") + c.name;
        cases += fmt::format(
            "        {})\n            opts=\"{}\"\n            valued=\"{}\"\n            ;;\n",
            c.name.empty() ? "\"\"" : c.name, join_names(c.options, false), join_names(c.options, true));
    }
    const std::string fn = "_" + program;
    // The script: find the subcommand (the first word after the program that is not an option; the top
    // level's options take no value), then offer that command's options after '-', nothing after an option
    // that takes a value (its choices where it has a fixed set) or at a positional, so that `complete -o
    // default` falls back to file names.
    return fmt::format(R"(# bash completion for {0}                                  -*- shell-script -*-
# Generated from {0}'s command-line definitions at build time; edits here are lost.

{1}() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}}
    local prev=${{COMP_WORDS[COMP_CWORD - 1]}}
    local sub="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${{COMP_WORDS[i]}} != -* ]]; then
            sub=${{COMP_WORDS[i]}}
            break
        fi
    done
    local opts="" valued=""
    case $sub in
{2}        *)
            return 0
            ;;
    esac
    COMPREPLY=()
    case "$sub $prev" in
{4}    esac
    if [[ -n $sub && $COMP_CWORD -gt 1 && " $valued " == *" $prev "* ]]; then
        return 0
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    elif [[ -z $sub ]]; then
        mapfile -t COMPREPLY < <(compgen -W "{3}" -- "$cur")
    fi
    return 0
}}
complete -o default -F {1} {0}
)",
                       program, fn, cases, subcommands, choice_cases(commands));
}

} // namespace roofcast::cli
