// The one launcher of MPI programs (measure/launcher.hpp): the placement policy on a host given by value,
// the cluster's launchers, and the errors before anything starts.
#include "core/error.hpp"
#include "measure/launcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

using namespace roofcast::measure;
using Words = std::vector<std::string>;

namespace {

LaunchHost host_of(int slots, int hardware_threads, bool root = false) {
    LaunchHost h;
    h.slots = slots;
    h.hardware_threads = hardware_threads;
    h.root = root;
    h.mpirun = "/usr/bin/mpirun";
    return h;
}

LaunchRequest ranks_of(int ranks, std::optional<int> threads) {
    LaunchRequest r;
    r.ranks = ranks;
    r.threads_per_rank = threads;
    return r;
}

TEST(Launcher, OneThreadPerRankIsBoundToACoreEachWhereTheyFit) {
    const LaunchPlan p = plan_launch(ranks_of(4, 1), host_of(4, 8));
    EXPECT_EQ(p.kind, LauncherKind::open_mpi);
    EXPECT_EQ(p.prefix, (Words{"/usr/bin/mpirun", "-np", "4", "--bind-to", "core", "--map-by", "core"}));
    EXPECT_TRUE(p.note.empty());
    EXPECT_FALSE(p.shares_cores);
    EXPECT_FALSE(p.elsewhere);
    // Open MPI is told that running as root is intended, on the command line and in the environment.
    const LaunchPlan root = plan_launch(ranks_of(2, 1), host_of(4, 8, true));
    EXPECT_EQ(root.prefix[1], "--allow-run-as-root");
    EXPECT_NE(std::find(root.env.begin(), root.env.end(), "OMPI_ALLOW_RUN_AS_ROOT=1"), root.env.end());
}

TEST(Launcher, MoreRanksThanCoresAreOversubscribedWithANote) {
    const LaunchPlan p = plan_launch(ranks_of(200, 1), host_of(2, 4));
    EXPECT_EQ(p.prefix, (Words{"/usr/bin/mpirun", "-np", "200", "--oversubscribe", "--bind-to", "none"}));
    EXPECT_EQ(p.note, "200 ranks on 2 cores: oversubscribed (mpirun --oversubscribe)");
    EXPECT_TRUE(p.shares_cores);
    // Unknown threads (a user's program): oversubscribed all the same, and otherwise mpirun's default.
    EXPECT_EQ(plan_launch(ranks_of(3, std::nullopt), host_of(2, 4)).prefix,
              (Words{"/usr/bin/mpirun", "-np", "3", "--oversubscribe", "--bind-to", "none"}));
    EXPECT_EQ(plan_launch(ranks_of(2, std::nullopt), host_of(2, 4)).prefix,
              (Words{"/usr/bin/mpirun", "-np", "2"}));
}

TEST(Launcher, RanksOfSeveralThreadsAreNotBoundAndShareCoresWhenTheyOutnumberThem) {
    const LaunchPlan fit = plan_launch(ranks_of(2, 2), host_of(2, 4));
    EXPECT_EQ(fit.prefix, (Words{"/usr/bin/mpirun", "-np", "2", "--bind-to", "none"}));
    EXPECT_FALSE(fit.shares_cores);
    const LaunchPlan shared = plan_launch(ranks_of(2, 3), host_of(2, 4));
    EXPECT_EQ(shared.prefix, (Words{"/usr/bin/mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none"}));
    EXPECT_TRUE(shared.shares_cores);
    EXPECT_TRUE(shared.note.empty()); // the ranks fit the slots; their threads share the cores
}

TEST(Launcher, TheCallersPlacementWinsAndHostsMakeTheLaunchElsewhere) {
    LaunchRequest r = ranks_of(4, 1);
    r.extra_words = {"--rankfile", "ranks.txt"};
    EXPECT_EQ(plan_launch(r, host_of(1, 1)).prefix,
              (Words{"/usr/bin/mpirun", "-np", "4", "--rankfile", "ranks.txt"}));
    r.extra_words = {"--map-by=node"};
    EXPECT_FALSE(plan_launch(r, host_of(8, 8)).elsewhere);
    r.extra_words = {"--hostfile", "hosts"};
    EXPECT_TRUE(plan_launch(r, host_of(8, 8)).elsewhere);
    EXPECT_TRUE(launches_elsewhere(r));
}

TEST(Launcher, TheClustersLauncherGetsTheRankCountAndNoPlacement) {
    LaunchRequest r = ranks_of(8, 1);
    r.launcher = "sh -c";
    const LaunchPlan other = plan_launch(r, host_of(2, 2));
    EXPECT_EQ(other.kind, LauncherKind::other);
    EXPECT_EQ(other.prefix, (Words{"sh", "-c", "-n", "8"}));
    EXPECT_TRUE(other.env.empty());
    EXPECT_TRUE(other.note.empty());
    // srun places its tasks on the allocation's nodes: elsewhere, whatever its options (a program named
    // srun need not exist here for the request to say so).
    r.launcher = "srun -N 2";
    EXPECT_TRUE(launches_elsewhere(r));
    r.launcher = "/usr/bin/mpirun --host a,b";
    EXPECT_TRUE(launches_elsewhere(r));
}

TEST(Launcher, ErrorsNameTheLauncherBeforeAnythingStarts) {
    LaunchRequest r = ranks_of(2, 1);
    r.launcher = "   ";
    EXPECT_THROW((void)plan_launch(r, host_of(2, 2)), roofcast::core::InputError);
    r.launcher = "no-such-launcher-roofcast -N 2";
    try {
        (void)plan_launch(r, host_of(2, 2));
        FAIL() << "no error";
    } catch (const roofcast::core::InputError& e) {
        EXPECT_EQ(e.field(), "--launcher");
        EXPECT_NE(std::string(e.what()).find("no-such-launcher-roofcast"), std::string::npos) << e.what();
    }
    r.launcher = "./no-such-dir/srun -N 2"; // a path is taken as it is, not looked for on PATH
    EXPECT_THROW((void)plan_launch(r, host_of(2, 2)), roofcast::core::InputError);
    r.launcher = "/bin/sh -c";
    EXPECT_EQ(plan_launch(r, host_of(2, 2)).prefix, (Words{"/bin/sh", "-c", "-n", "2"}));
    LaunchHost none = host_of(2, 2);
    none.mpirun.clear();
    EXPECT_THROW((void)plan_launch(ranks_of(2, 1), none), roofcast::core::Unsupported);
}

TEST(Launcher, WordsSplitAtBlanks) {
    EXPECT_EQ(launcher_words("  srun\t-N 2 "), (Words{"srun", "-N", "2"}));
    EXPECT_TRUE(launcher_words("").empty());
    EXPECT_TRUE(names_placement({"--bind-to=core"}));
    EXPECT_FALSE(names_placement({"--bind-to-core-ish"}));
    EXPECT_TRUE(names_hosts({"-H", "a,b"}));
}

} // namespace
