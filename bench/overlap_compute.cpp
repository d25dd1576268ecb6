// Three-way mixes of memory, cache and compute (bench/overlap-compute.sh; prints figures, not a test).
// For members (n, Q) of the mixed family it times, in one process and alternately, the family loop
// (mixed_body: n neighbour rows of the streamed array from the reuse cache) and the overlap calibration
// loop with Q extra multiply-adds (overlap_body<K = n, Q>: n rows of a per-thread window from the same
// cache, one copy from memory), both through the suite's runners (allocation, first touch, timing
// harness). Sizes follow the suite catalogue's rules (src/experiment/suite_catalogue.cpp): one reuse window
// of 2 x the L2 per thread, rows of an odd number of cache lines, 256 rows per plane, arrays of half the
// memory working set each. Also times each loop with its arrays inside L1 (compute alone), so that the
// share of the arithmetic hidden behind the transfers can be read: hidden = 1 - (t(Q) - t(0)) / t_L1(Q).
//   roofcast-overlap-compute THREADS L2_BYTES_PER_THREAD MEM_BYTES
#include "experiment/suite_catalogue.hpp"
#include "measure/suite/runners.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sw = roofcast::measure::suite;

namespace {

double per_iteration(const sw::Measurement& m, double iterations) {
    return m.seconds_per_call.min / iterations;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s THREADS L2_BYTES_PER_THREAD MEM_BYTES\n", argv[0]);
        return 2;
    }
    const int threads = std::atoi(argv[1]);
    const double l2 = std::atof(argv[2]), mem = std::atof(argv[3]);
    if (threads < 1 || !(l2 >= 4096) || !(mem >= 1 << 20)) {
        std::fprintf(stderr, "roofcast-overlap-compute: expected THREADS >= 1, L2 >= 4096 B, MEM >= 1 MiB\n");
        return 2;
    }
    sw::SuiteOptions opt;
    opt.threads = threads;
    sw::Workspace ws;
    const double window = 2.0 * l2;
    std::printf("%3s %3s %6s %12s %12s %12s %9s %12s %10s\n", "n", "Q", "flops", "overlap_ns", "family_ns",
                "fam/overlap", "L1_ns", "added_ns", "hidden");
    for (const int n : {1, 3, 5, 8, 12}) {
        double t0 = 0; // the overlap loop without extra multiply-adds
        // One row of the reuse window, in elements: the overlap loop's W and the family's ni alike.
        const std::size_t row = roofcast::model::odd_line_bytes(window / (n + 2)) / 8;
        for (int level = 0; level < sw::k_mixed_flop_levels; ++level) {
            const int q = sw::mixed_extra_fmas(n, level);
            // Overlap loop: rows of W elements, blocks shared by the threads, a and b half the memory set.
            const double blocks = std::ceil(0.5 * mem / (8.0 * static_cast<double>(row) * threads));
            const std::size_t len =
                static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads) * row;
            const double t_ov =
                per_iteration(sw::run_overlap(n, len, row, opt, ws, q), static_cast<double>(len));
            // The same loop inside L1: a window row of 64 elements, a and b 8 rows per thread.
            const std::size_t small_row = 64, small_len = 8 * small_row * static_cast<std::size_t>(threads);
            const double t_l1 = per_iteration(sw::run_overlap(n, small_len, small_row, opt, ws, q),
                                              static_cast<double>(small_len));
            // Family member.
            constexpr std::size_t rows = 256;
            const std::size_t ni = row;
            const double plane = static_cast<double>(rows * ni) * 8.0;
            const std::size_t nk =
                static_cast<std::size_t>(std::max(1.0, std::ceil(0.5 * mem / (plane * threads)))) *
                static_cast<std::size_t>(threads);
            const double iters = static_cast<double>(nk * (rows - static_cast<std::size_t>(n)) * ni);
            const double t_fam = per_iteration(sw::run_mixed(n, q, sw::Grid3{nk, rows, ni}, opt, ws), iters);
            if (level == 0)
                t0 = t_ov;
            const double added = t_ov - t0;
            std::printf("%3d %3d %6d %12.3f %12.3f %12.2f %9.3f %12.3f %9.0f%%\n", n, q, n + 2 * q,
                        t_ov * 1e9, t_fam * 1e9, t_fam / t_ov, t_l1 * 1e9, added * 1e9,
                        level == 0 ? 0.0 : 100.0 * (1.0 - added / t_l1));
        }
    }
    return 0;
}
