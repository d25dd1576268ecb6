#include "measure/launcher.hpp"

#include "core/error.hpp"
#include "core/process.hpp"
#include "measure/affinity.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace roofcast::measure {

namespace {

bool names_option(const std::vector<std::string>& words, std::initializer_list<const char*> options) {
    for (const auto& w : words)
        for (const char* opt : options)
            if (w == opt || w.rfind(std::string(opt) + "=", 0) == 0)
                return true;
    return false;
}

LauncherKind kind_of(const std::string& program) {
    const std::string name = std::filesystem::path(program).filename().string();
    if (name == "srun")
        return LauncherKind::slurm;
    if (name == "mpirun" || name == "orterun" || name == "mpiexec")
        return LauncherKind::open_mpi; // Debian's mpiexec and mpirun are both Open MPI's (orterun)
    return LauncherKind::other;
}

// Open MPI's placement for ranks that fit, under the policy of plan_launch.
std::vector<std::string> open_mpi_placement(const LaunchRequest& r, const LaunchHost& host,
                                            LaunchPlan& plan) {
    if (r.ranks > host.slots) {
        plan.note =
            fmt::format("{} ranks on {} cores: oversubscribed (mpirun --oversubscribe)", r.ranks, host.slots);
        return {"--oversubscribe", "--bind-to", "none"};
    }
    if (!r.threads_per_rank)
        return {};
    if (plan.shares_cores)
        return {"--oversubscribe", "--bind-to", "none"};
    if (*r.threads_per_rank > 1)
        return {"--bind-to", "none"};
    return {"--bind-to", "core", "--map-by", "core"};
}

} // namespace

std::vector<std::string> launcher_words(const std::string& text) {
    std::vector<std::string> words;
    std::stringstream in(text);
    for (std::string w; in >> w;)
        words.push_back(w);
    return words;
}

bool names_placement(const std::vector<std::string>& words) {
    return names_option(words, {"--rankfile", "-rf", "--map-by", "--bind-to"});
}

bool names_hosts(const std::vector<std::string>& words) {
    return names_option(words, {"--host", "-H", "-host", "--hostfile", "-hostfile", "--machinefile",
                                "-machinefile", "--default-hostfile"});
}

bool launches_elsewhere(const LaunchRequest& r) {
    std::vector<std::string> words = launcher_words(r.launcher);
    const bool slurm = !words.empty() && kind_of(words.front()) == LauncherKind::slurm;
    words.insert(words.end(), r.extra_words.begin(), r.extra_words.end());
    return slurm || names_hosts(words);
}

LaunchHost launch_host() {
    LaunchHost h;
    h.slots = std::max(1, static_cast<int>(core_cpus().size()));
    h.hardware_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    h.root = ::geteuid() == 0;
    if (const auto mpirun = core::find_in_path("mpirun"))
        h.mpirun = mpirun->string();
    return h;
}

LaunchPlan plan_launch(const LaunchRequest& r, const LaunchHost& host) {
    LaunchPlan plan;
    std::vector<std::string> words = launcher_words(r.launcher);
    if (!r.launcher.empty() && words.empty())
        throw core::InputError("", "--launcher", "an empty launcher: expected a command such as 'srun -N 2'");
    if (words.empty()) {
        if (host.mpirun.empty())
            throw core::Unsupported(fmt::format("{} ranks: no mpirun on PATH (scripts/install-deps.sh "
                                                "installs Open MPI; or give the cluster's "
                                                "launcher with --launcher)",
                                                r.ranks));
        words = {host.mpirun};
    } else if (words.front().find('/') != std::string::npos ? ::access(words.front().c_str(), X_OK) != 0
                                                            : !core::find_in_path(words.front())) {
        throw core::InputError("", "--launcher",
                               fmt::format("'{}' is not an executable program (on PATH or by its path): "
                                           "expected a launcher such as mpirun "
                                           "or srun",
                                           words.front()));
    }
    plan.kind = kind_of(words.front());
    std::vector<std::string> all_words = words;
    all_words.insert(all_words.end(), r.extra_words.begin(), r.extra_words.end());
    plan.elsewhere = launches_elsewhere(r);
    plan.shares_cores = r.threads_per_rank && static_cast<long>(r.ranks) * *r.threads_per_rank >
                                                  static_cast<long>(host.hardware_threads);
    plan.prefix = words;
    if (plan.kind == LauncherKind::open_mpi) {
        if (host.root)
            plan.prefix.push_back("--allow-run-as-root");
        plan.prefix.insert(plan.prefix.end(), {"-np", std::to_string(r.ranks)});
        if (!names_placement(all_words)) {
            const std::vector<std::string> place = open_mpi_placement(r, host, plan);
            plan.prefix.insert(plan.prefix.end(), place.begin(), place.end());
        }
        // Open MPI refuses to start as root unless told it is intended (CI containers run as root).
        plan.env = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                    "OMPI_MCA_btl_base_warn_component_unused=0"};
    } else {
        plan.prefix.insert(plan.prefix.end(), {"-n", std::to_string(r.ranks)});
    }
    plan.prefix.insert(plan.prefix.end(), r.extra_words.begin(), r.extra_words.end());
    return plan;
}

} // namespace roofcast::measure
