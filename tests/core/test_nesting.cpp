#include "core/error.hpp"
#include "core/nesting.hpp"

#include <gtest/gtest.h>
#include <string>

using namespace roofcast::core;

TEST(Nesting, AcceptsOrdinaryJsonAndYaml) {
    EXPECT_NO_THROW(check_nesting(R"({"a": [1, {"b": "]]]]{{{{"}], "c": "x\"[["})", "f.json"));
    EXPECT_NO_THROW(check_nesting("a:\n  b: [1, 2]\n  # comment [[[[\n  c: 'it''s {'\n", "f.yaml"));
    EXPECT_NO_THROW(check_nesting(std::string(64, '[') + std::string(64, ']'), "f.json"));
}

TEST(Nesting, RefusesDeepBracketsBeforeParsing) {
    const std::string deep = "{\"machine\": " + std::string(30000, '[') + std::string(30000, ']') + "}";
    try {
        check_nesting(deep, "r.json");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "r.json");
        EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
    }
    EXPECT_THROW(check_nesting(std::string(65, '{'), "f.json"), InputError);
    EXPECT_THROW(check_nesting(std::string(3, '{'), "f.json", 2), InputError);
}

TEST(Nesting, RefusesDeepYamlIndentation) {
    EXPECT_THROW(check_nesting("a:\n" + std::string(k_max_indent + 1, ' ') + "b: 1\n", "m.yaml"), InputError);
    EXPECT_NO_THROW(check_nesting("a:\n" + std::string(k_max_indent, ' ') + "b: 1\n", "m.yaml"));
}

TEST(Nesting, BracketsInsideStringsAndCommentsDoNotCount) {
    EXPECT_NO_THROW(check_nesting("\"" + std::string(1000, '[') + "\"", "f.json"));
    EXPECT_NO_THROW(check_nesting("# " + std::string(1000, '{') + "\nx: 1\n", "f.yaml"));
}

TEST(TerminalSafe, EscapesControlCharactersAndCuts) {
    EXPECT_EQ(terminal_safe("a\nb\x1b[31m"), "a\\x0ab\\x1b[31m");
    EXPECT_EQ(terminal_safe(std::string(10, 'x'), 4), "xxxx ... [6 more characters]");
    EXPECT_EQ(terminal_safe("plain"), "plain");
}

// 200,000 warnings of one kind from a program's regions were 200,000 lines: now 20 and a count.
TEST(TerminalSafe, WarningsOfOneKindAreSummarisedAndLongOnesCut) {
    std::vector<std::string> w;
    for (int i = 0; i < 200000; ++i)
        w.push_back("rank " + std::to_string(i % 7) + ": region 'r" + std::to_string(i) +
                    "' ended but the innermost open region is 'x'");
    w.push_back("another kind");
    w.push_back("a long one " + std::string(100000, 'n'));
    const auto s = roofcast::core::summarise_warnings(w);
    ASSERT_EQ(s.size(), 23u);
    EXPECT_EQ(s[0], w[0]);
    EXPECT_EQ(s[20], "another kind");
    EXPECT_LT(s[21].size(), 500u);
    EXPECT_EQ(s[22].rfind("199980 more warnings like: rank 0: region 'r0' ended", 0), 0u) << s[22];
    EXPECT_EQ(roofcast::core::summarise_warnings({"a", "b"}), (std::vector<std::string>{"a", "b"}));
}

TEST(TerminalSafe, TextOutputKeepsLinesAndTabsOnly) {
    EXPECT_EQ(roofcast::core::terminal_text("a\tb\n\x1b[31mred\x07\r\n"), "a\tb\n\\x1b[31mred\\x07\\x0d\n");
    const std::string long_table(100000, 'x');
    EXPECT_EQ(roofcast::core::terminal_text(long_table), long_table); // nothing is cut
}
