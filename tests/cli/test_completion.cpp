// cli::shell_commands and cli::bash_completion: the installed completion is generated from the command-line
// definition, so every subcommand and option roofcast parses is offered.
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "measure/profile/backend.hpp"
#include "model/predict.hpp"

#include <gtest/gtest.h>
#include <string>

namespace cli = roofcast::cli;

TEST(ShellCommands, ReadsFlagsValuedOptionsGroupsAndSkipsPositionals) {
    CLI::App app{"tool: does things"};
    auto* sub = app.add_subcommand("go", "Go somewhere");
    std::string where;
    bool fast = false;
    sub->add_option("WHERE", where, "positional");
    sub->add_option("-o,--output", where, "a valued option");
    sub->add_flag("--fast", fast, "a flag");
    sub->add_option_group("extra")->add_flag("--grouped", fast, "a flag in an option group");
    const auto commands = cli::shell_commands(app);
    ASSERT_EQ(commands.size(), 2u);
    EXPECT_EQ(commands[0].name, "");
    EXPECT_EQ(commands[0].description, "tool: does things");
    const auto& go = commands[1];
    EXPECT_EQ(go.name, "go");
    EXPECT_EQ(go.description, "Go somewhere");
    ASSERT_EQ(go.options.size(), 4u); // --help, --output/-o, --fast, --grouped
    EXPECT_EQ(go.options[1].names, (std::vector<std::string>{"--output", "-o"}));
    EXPECT_TRUE(go.options[1].takes_value);
    EXPECT_EQ(go.options[2].names, (std::vector<std::string>{"--fast"}));
    EXPECT_FALSE(go.options[2].takes_value);
    EXPECT_EQ(go.options[3].names, (std::vector<std::string>{"--grouped"}));
}

TEST(BashCompletion, OffersEverySubcommandAndEachOfItsOptions) {
    CLI::App app;
    cli::define_app(app);
    const auto commands = cli::shell_commands(app);
    const std::string script = cli::bash_completion(commands, "roofcast");
    EXPECT_NE(script.find("complete -o default -F _roofcast roofcast\n"), std::string::npos);
    const auto subs = app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); });
    ASSERT_GE(subs.size(), 10u);
    ASSERT_EQ(commands.size(), subs.size() + 1);
    std::string word_list;
    for (const CLI::App* s : subs)
        word_list += (word_list.empty() ? "" : " ") + s->get_name();
    EXPECT_NE(script.find("compgen -W \"" + word_list + "\""), std::string::npos) << script;
    for (const CLI::App* s : subs) {
        const auto branch = script.find("\n        " + s->get_name() + ")\n");
        ASSERT_NE(branch, std::string::npos) << s->get_name();
        const auto end = script.find(";;", branch);
        const std::string body = script.substr(branch, end - branch);
        const std::string opts = body.substr(body.find("opts=\"") + 6);
        const std::string words = " " + opts.substr(0, opts.find('"')) + " ";
        for (const CLI::Option* o : s->get_options())
            for (const auto& l : o->get_lnames())
                EXPECT_NE(words.find(" --" + l + " "), std::string::npos) << s->get_name() << " --" << l;
    }
}

TEST(BashCompletion, OffersAnOptionsChoicesAfterIt) {
    CLI::App app{"tool"};
    auto* sub = app.add_subcommand("fit", "Fit");
    std::string scaling, file;
    sub->add_option("--scaling", scaling, "weak or strong")->check(CLI::IsMember({"weak", "strong"}));
    sub->add_option("-o,--output", file, "any file");
    const auto commands = cli::shell_commands(app);
    ASSERT_EQ(commands.size(), 2u);
    const auto& fit = commands[1];
    ASSERT_EQ(fit.options.size(), 3u); // --help, --scaling, --output/-o
    EXPECT_EQ(fit.options[1].choices, (std::vector<std::string>{"weak", "strong"}));
    EXPECT_TRUE(fit.options[2].choices.empty());
    const std::string script = cli::bash_completion(commands, "tool");
    EXPECT_NE(
        script.find("\"fit --scaling\")\n            mapfile -t COMPREPLY < <(compgen -W \"weak strong\""),
        std::string::npos)
        << script;
    EXPECT_EQ(script.find("\"fit --output\")"), std::string::npos) << script;
}

TEST(BashCompletion, RoofcastsFixedSetsAreOffered) {
    CLI::App app;
    cli::define_app(app);
    const std::string script = cli::bash_completion(cli::shell_commands(app), "roofcast");
    EXPECT_NE(script.find("\"plot --view\")"), std::string::npos);
    EXPECT_NE(script.find("compgen -W \"roofline hierarchical bandwidth\""), std::string::npos);
    // Options roofcast checks itself offer their values too, from the registries where there is one.
    for (const char* option :
         {"profile --backend", "predict --model", "bench --suite", "run --suite", "scale --select",
          "convert --format", "threads --api", "threads --kernel", "stencil --kernel"})
        EXPECT_NE(script.find(std::string("\"") + option + "\")"), std::string::npos) << option;
    std::string backends = "auto";
    for (const auto& b : roofcast::measure::profile::profile_backend_names())
        backends += " " + b;
    EXPECT_NE(script.find("compgen -W \"" + backends + "\""), std::string::npos) << backends;
    std::string models;
    for (const auto& m : roofcast::model::model_names())
        models += m + " ";
    EXPECT_NE(script.find("compgen -W \"" + models + "all\""), std::string::npos) << models;
}

// A value roofcast checks itself keeps its own error: offering the choices validates nothing.
TEST(BashCompletion, OfferedChoicesLeaveTheCheckToTheCommand) {
    CLI::App app{"tool"};
    std::string backend;
    cli::offer_choices(app.add_option("--backend", backend, "a backend"), {"a", "b"});
    EXPECT_NO_THROW(app.parse(std::vector<std::string>{"zzz", "--backend"}));
    EXPECT_EQ(backend, "zzz");
    const auto commands = cli::shell_commands(app);
    ASSERT_EQ(commands[0].options.size(), 2u);
    EXPECT_EQ(commands[0].options[1].choices, (std::vector<std::string>{"a", "b"}));
}
