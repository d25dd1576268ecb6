// A callgrind file read as a profile (measure/profile/callgrind.hpp, profile_from_callgrind) on the fixture
// valgrind wrote for triad.c (tests/measure/data/callgrind/).
#include "core/error.hpp"
#include "core/io.hpp"
#include "measure/profile/callgrind.hpp"

#include <gtest/gtest.h>
#include <string>

namespace roofcast::measure::profile {
namespace {

std::string triad_callgrind() {
    return core::read_file(std::string(ROOFCAST_SOURCE_DIR) +
                           "/tests/measure/data/callgrind/triad.callgrind");
}

} // namespace

// Every cost line's self cost lands in exactly one function: the functions' INS add up to the file's own
// `totals:` of Ir (134739; its `summary:`, 134741, also counts two instructions no cost line holds), and
// their L1 misses to its D1mr + D1mw (950 + 946).
TEST(CallgrindProfile, SelfCostsAddUpToTheSummary) {
    const core::Profile p = profile_from_callgrind(triad_callgrind(), "triad.callgrind");
    double ins = 0, l1 = 0;
    bool own = false, library = false;
    for (const auto& f : p.functions) {
        ins += f.metrics.at("INS").per_rank[0][0];
        l1 += f.metrics.at("L1_DCM").per_rank[0][0];
        own |= f.name == "triad" && f.kind == "function";
        library |= f.kind == "library";
    }
    EXPECT_EQ(ins, 134739.0);
    EXPECT_EQ(l1, 950.0 + 946.0);
    EXPECT_TRUE(own) << "triad, defined by ./triad, is the program's own";
    EXPECT_TRUE(library) << "ld.so's and libc's functions are the libraries'";
    EXPECT_EQ(p.parameters.at(0).first, "ranks");
}

TEST(CallgrindProfile, SniffsCallgrindOnly) {
    EXPECT_TRUE(looks_like_callgrind(triad_callgrind()));
    EXPECT_FALSE(
        looks_like_callgrind("desc: I1 cache: 32768 B\ncmd: ./a\nevents: Ir\nfl=a.c\nfn=main\n1 5\n"));
    EXPECT_FALSE(looks_like_callgrind("function,metric,ranks,value\n"));
    EXPECT_THROW(profile_from_callgrind("# callgrind format\nevents: Ir\n", "empty.callgrind"),
                 core::InputError);
}

} // namespace roofcast::measure::profile
