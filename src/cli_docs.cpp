// roofcast-cli-docs: prints what the build installs beside roofcast from its command-line definition
// (cli::define_app), so the bash completion and the man pages' list of subcommands are never kept by hand.
//   roofcast-cli-docs bash-completion [FILE]   the bash completion script for `roofcast`
//   roofcast-cli-docs commands [FILE]          one line per command, "NAME<TAB>DESCRIPTION", roofcast first
// With FILE the text is written to FILE.tmp and renamed, so a failed run leaves no half-written file.
#include "cli/commands.hpp"
#include "cli/completion.hpp"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
    namespace cli = roofcast::cli;
    const std::string_view mode = argc >= 2 ? argv[1] : "";
    if (argc > 3 || (mode != "bash-completion" && mode != "commands")) {
        fmt::print(stderr, "usage: roofcast-cli-docs bash-completion|commands [FILE]\n");
        return 2;
    }
    CLI::App app;
    cli::define_app(app);
    const auto commands = cli::shell_commands(app);
    std::string text;
    if (mode == "bash-completion") {
        text = cli::bash_completion(commands, "roofcast");
    } else {
        for (const auto& c : commands) {
            std::string_view description = c.description;
            if (description.starts_with("roofcast: "))
                description.remove_prefix(10);
            text += fmt::format("{}\t{}\n", c.name.empty() ? "roofcast" : c.name, description);
        }
    }
    if (argc == 2) {
        fmt::print("{}", text);
        return 0;
    }
    const std::filesystem::path out = argv[2];
    const std::filesystem::path tmp = out.string() + ".tmp";
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    std::error_code ec;
    if (!f || (std::filesystem::rename(tmp, out, ec), ec)) {
        fmt::print(stderr, "roofcast-cli-docs: {}: cannot write{}\n", out.string(),
                   ec ? ": " + ec.message() : "");
        std::filesystem::remove(tmp, ec);
        return 1;
    }
    return 0;
}
