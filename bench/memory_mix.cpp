// Memory streaming beside cache-resident reuse (bench/memory-mix.sh; prints figures, not a test). The mixed
// model's memory term is calibrated with a copy and its overlap exponents with loops whose reuse comes from
// the last cache (docs/models.md, "Overlap exponent"); no calibration loop reuses L1 or L2 while it streams
// from memory, as the stencils do. This tool times, in one process and round after round, the suite's own
// kernels from its catalogue for MACHINE (experiment/suite_catalogue.hpp: the memory copy calib-MEM-2F, the
// read-only loops calib-L2-3F and calib-L3-3F, the overlap loops calib-overlap-L3-K*, jacobi-3d-7pt and
// jacobi-3d-7pt-tuned) and the same overlap loops with their window in L1 and in L2 (a window that misses in
// the level inside and fits half of its own, the catalogue's rule). Each round's copy tells the host's
// memory state (a shared host's memory bandwidth can move 2x within minutes); bench/memory-mix.sh
// splits the rounds by it.
//   roofcast-memory-mix MACHINE THREADS ROUNDS
// Output: a header line, then one line per round and loop: "round name seconds_per_iteration
// copy_seconds_per_iteration", the copy timed just before the loop.
#include "core/machine.hpp"
#include "experiment/suite_catalogue.hpp"
#include "measure/suite/runners.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sw = roofcast::measure::suite;
namespace model = roofcast::model;

namespace {

double per_iteration(const sw::Measurement& m, double iterations) {
    return m.seconds_per_call.min / iterations;
}

struct Loop {
    std::string name;
    std::function<double()> time; // seconds per iteration, best epoch
};

} // namespace

int main(int argc, char** argv) try {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s MACHINE THREADS ROUNDS\n", argv[0]);
        return 2;
    }
    const std::string file = argv[1];
    const int threads = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
    if (threads < 1 || rounds < 1) {
        std::fprintf(stderr, "roofcast-memory-mix: expected THREADS >= 1 and ROUNDS >= 1\n");
        return 2;
    }
    const auto machine = roofcast::core::load_machine(file);
    const auto catalogue = model::suite_catalogue(machine, threads, file); // needs L1 and L2
    const auto caches = roofcast::core::cache_levels(machine);
    sw::SuiteOptions opt;
    opt.threads = threads;
    opt.harness.epochs = 5;
    sw::Workspace ws;
    std::vector<Loop> loops;
    const double l1 = caches[0].per_thread(threads);
    const std::vector<std::string> wanted{"calib-MEM-2F", "calib-L2-3F", "calib-L3-3F", "jacobi-3d-7pt",
                                          "jacobi-3d-7pt-tuned"};
    for (const auto& k : catalogue) {
        const bool overlap = k.overlap_reuses > 0 && k.overlap_extra_fmas == 0;
        if (!overlap && std::find(wanted.begin(), wanted.end(), k.name) == wanted.end())
            continue;
        const double iterations = model::iterations_of(k.spec).value_or(1.0);
        auto run = k.run;
        loops.push_back(
            {k.name, [run, iterations, &opt, &ws] { return per_iteration(run(opt, ws), iterations); }});
        if (!overlap)
            continue;
        // The same loop with its window in L1 and in L2 (the catalogue's window for a reuse level: twice the
        // level inside, or half of L1 for L1 itself), the same blocks of a and b from memory.
        const int reuses = k.overlap_reuses;
        for (const auto& [level, window] :
             {std::pair<std::string, double>{"L1", 0.5 * l1}, {"L2", 2.0 * l1}}) {
            const std::size_t row = model::odd_line_bytes(window / (reuses + 2)) / 8;
            const double n_blocks = std::ceil(iterations / static_cast<double>(row) / threads);
            const auto n = static_cast<std::size_t>(n_blocks) * static_cast<std::size_t>(threads) * row;
            loops.push_back({"calib-overlap-" + level + "-K" + std::to_string(reuses), [=, &opt, &ws] {
                                 return per_iteration(sw::run_overlap(reuses, n, row, opt, ws),
                                                      static_cast<double>(n));
                             }});
        }
    }
    std::printf("# %s, %d threads, %zu loops per round, rounds %d\n", file.c_str(), threads, loops.size(),
                rounds);
    // The host's memory state moves within seconds: every loop is timed right after a copy, which gives
    // the state it ran in.
    const auto copy_it =
        std::find_if(loops.begin(), loops.end(), [](const Loop& l) { return l.name == "calib-MEM-2F"; });
    if (copy_it == loops.end())
        throw std::runtime_error("the suite catalogue has no calib-MEM-2F for this machine");
    const Loop copy = *copy_it;
    for (int r = 0; r < rounds; ++r) {
        for (const auto& l : loops) {
            const double before = copy.time();
            std::printf("%d %s %.6e %.6e\n", r, l.name.c_str(), l.time(), before);
        }
        std::fflush(stdout);
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "roofcast-memory-mix: %s\n", e.what());
    return 1;
}
