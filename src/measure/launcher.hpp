// The one place MPI programs are launched from (the MPI probe of `machine`, `profile --ranks`, `stencil`):
// Open MPI's mpirun found on PATH, or the cluster's own launcher given by the user (`--launcher 'srun -N 2'`,
// `--launcher 'mpirun --hostfile hosts'`), with one placement policy. plan_launch is a pure function of the
// request and of what the host offers (LaunchHost), so the policy is tested without MPI.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

enum class LauncherKind {
    open_mpi, // mpirun, mpiexec or orterun of Open MPI: -np N, placement options, root permission
    slurm,    // srun: -n N; Slurm places the tasks (its own --cpu-bind and --distribution)
    other,    // another launcher (MPICH's mpiexec, ...): -n N, nothing else added
};

struct LaunchRequest {
    int ranks = 1;
    // Threads each rank runs; nullopt when roofcast cannot know (a user's program under `profile`): the
    // launcher's default binding is then kept, as the program may start threads of its own.
    std::optional<int> threads_per_rank;
    std::string launcher;                 // the launcher's words; empty: mpirun on PATH
    std::vector<std::string> extra_words; // appended after roofcast's options (stencil --mpirun-args)
};

// What the host offers a launch: the cores this process may use (Open MPI's default slots, one per core:
// mpirun(1), "Specifying Host Nodes"), its hardware threads, whether it runs as root, and mpirun's path.
struct LaunchHost {
    int slots = 1;
    int hardware_threads = 1;
    bool root = false;
    std::string mpirun; // empty: no mpirun on PATH
};
LaunchHost launch_host();

struct LaunchPlan {
    LauncherKind kind = LauncherKind::open_mpi;
    std::vector<std::string> prefix; // argv before the program: launcher, rank count, placement
    std::vector<std::string> env;    // environment the launcher needs beside the caller's
    bool shares_cores = false;       // the ranks' threads outnumber this host's hardware threads
    bool elsewhere = false;          // the launch may place ranks on other hosts (host file, srun)
    std::string note;                // "N ranks on C cores: oversubscribed (...)"; empty when they fit
};

// The placement policy (Open MPI only; a launcher whose words already place the ranks — a rank file, a
// mapping or binding policy — is left to them): more ranks than slots are oversubscribed and not bound
// (mpirun refuses more ranks than slots without --oversubscribe); ranks whose threads outnumber the hardware
// threads likewise; ranks of several threads are not bound (one core each would serialise their threads);
// ranks of one thread each are bound to a core apiece (--bind-to core --map-by core); ranks of unknown
// threads keep mpirun's default. Throws core::Unsupported when mpirun is needed and missing, InputError
// (field --launcher) for an empty or unusable launcher.
LaunchPlan plan_launch(const LaunchRequest& r, const LaunchHost& host);

// Whether the launch may place ranks on hosts other than this one (a host file or list, srun), decided from
// the request alone (before any launcher is looked for).
bool launches_elsewhere(const LaunchRequest& r);

// The words of a launcher option ("srun -N 2"), split at blanks; quotes are not interpreted.
std::vector<std::string> launcher_words(const std::string& text);
// Whether launcher words name the ranks' placement themselves, or hosts other than this one.
bool names_placement(const std::vector<std::string>& words);
bool names_hosts(const std::vector<std::string>& words);

} // namespace roofcast::measure
