#include "measure/thread_sweep.hpp"

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/io.hpp"
#include "core/process.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <omp.h>
#include <set>
#include <thread>
#include <unistd.h>

namespace roofcast::measure {

namespace {

// Elements [lo, hi) of thread t when n elements are split into s nearly equal blocks.
std::pair<std::size_t, std::size_t> block(std::size_t n, int s, int t) {
    const std::size_t q = n / static_cast<std::size_t>(s), r = n % static_cast<std::size_t>(s);
    const auto tt = static_cast<std::size_t>(t);
    const std::size_t lo = tt * q + std::min(tt, r);
    return {lo, lo + q + (tt < r ? 1 : 0)};
}

struct Arrays {
    std::vector<double> a, b, c;
};

// One thread's share of a kernel. norm2 returns its partial sum of squares; triad returns a[lo].
double part(const std::string& kernel, Arrays& v, std::size_t lo, std::size_t hi) {
    if (kernel == "norm2") {
        double sum = 0.0;
        const double* x = v.b.data();
        for (std::size_t i = lo; i < hi; ++i)
            sum += x[i] * x[i];
        return sum;
    }
    double* a = v.a.data();
    const double* b = v.b.data();
    const double* c = v.c.data();
    for (std::size_t i = lo; i < hi; ++i)
        a[i] = b[i] + 0.5 * c[i];
    return hi > lo ? a[lo] : 0.0;
}

// A sink the optimiser cannot see through, so that the kernels are not removed.
volatile double g_sink = 0.0;

} // namespace

const char* to_string(ThreadApi api) {
    return api == ThreadApi::omp ? "omp" : "pthread";
}

const std::vector<std::string>& sweep_kernel_names() {
    static const std::vector<std::string> k_names{"norm2", "triad"};
    return k_names;
}

double kernel_bytes_per_element(const std::string& kernel) {
    if (kernel == "norm2")
        return 8.0;
    if (kernel == "triad")
        return 24.0;
    throw core::InputError(
        "", "kernel", fmt::format("expected {}, got '{}'", fmt::join(sweep_kernel_names(), " or "), kernel));
}

SweepResult sweep_kernel(const std::string& kernel, ThreadApi api, const std::vector<std::uint64_t>& sizes,
                         const std::vector<int>& threads, const HarnessOptions& opt) {
    kernel_bytes_per_element(kernel); // validates the name
    // Interleaved passes (docs/threads.md, "Measurement"): each pass times one epoch of every (n, s), so
    // a neighbour's burst slows one sample of many points rather than every sample of the points measured
    // during it, and the median over the passes leaves it out. Within a pass the thread count is the outer
    // loop: a team that shrinks from oversubscribed to fewer threads than the cores leaves the runtime's
    // spare threads busy for several milliseconds (the first calls at the smaller count run slow), so each
    // thread count starts with an untimed settling run. Every size uses a prefix of one set of arrays sized
    // for the largest. The first pass calibrates each point's repetitions; later passes reuse them.
    const std::size_t points = sizes.size() * threads.size();
    std::vector<std::vector<double>> samples(points);
    std::vector<std::uint64_t> reps(points, 0);
    const std::uint64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    Arrays v;
    v.b.assign(static_cast<std::size_t>(largest), 1.0 / 3.0);
    if (kernel == "triad") {
        v.a.assign(static_cast<std::size_t>(largest), 0.0);
        v.c.assign(static_cast<std::size_t>(largest), 2.0);
    }
    auto run = [&](std::size_t len, int s, std::uint64_t count) {
        std::vector<double> partial(static_cast<std::size_t>(s) * 8, 0.0); // one cache line each
        for (std::uint64_t r = 0; r < count; ++r) {
            if (api == ThreadApi::omp) {
#pragma omp parallel num_threads(s)
                {
                    const int id = omp_get_thread_num();
                    const auto [lo, hi] = block(len, s, id);
                    partial[static_cast<std::size_t>(id) * 8] = part(kernel, v, lo, hi);
                }
            } else {
                std::vector<std::thread> pool;
                pool.reserve(static_cast<std::size_t>(s));
                for (int id = 0; id < s; ++id)
                    pool.emplace_back([&, id] {
                        const auto [lo, hi] = block(len, s, id);
                        partial[static_cast<std::size_t>(id) * 8] = part(kernel, v, lo, hi);
                    });
                for (auto& th : pool)
                    th.join();
            }
            double sum = 0.0;
            for (int id = 0; id < s; ++id)
                sum += partial[static_cast<std::size_t>(id) * 8];
            g_sink = kernel == "norm2" ? std::sqrt(sum) : sum;
        }
    };
    const int passes = std::max(1, opt.epochs);
    for (int pass = 0; pass < passes; ++pass) {
        for (std::size_t j = 0; j < threads.size(); ++j) {
            const int s = threads[j];
            // Settle the runtime at this thread count: calls of the first size for 4 epochs' time.
            if (!sizes.empty()) {
                const auto until = std::chrono::steady_clock::now() +
                                   std::chrono::duration<double>(4 * opt.min_epoch_seconds);
                while (std::chrono::steady_clock::now() < until)
                    run(static_cast<std::size_t>(sizes.front()), s, 1);
            }
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                const std::size_t at = i * threads.size() + j;
                HarnessOptions one = opt;
                one.epochs = 1;
                one.settle_best = 0;
                one.fixed_repetitions = reps[at];
                const auto len = static_cast<std::size_t>(sizes[i]);
                const Timing t = time_repeated([&](std::uint64_t count) { run(len, s, count); }, one);
                reps[at] = t.repetitions;
                samples[at].insert(samples[at].end(), t.seconds_per_call.samples.begin(),
                                   t.seconds_per_call.samples.end());
            }
        }
    }
    SweepResult out;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        for (std::size_t j = 0; j < threads.size(); ++j)
            out.points.push_back(
                {sizes[i], threads[j], *core::summarize(std::move(samples[i * threads.size() + j]))});
    return out;
}

namespace {

// The program's output as the time is looked for in it: the whole log, or its last
// k_time_output_max_bytes (a time is printed at the end) when it is longer.
std::string read_run_output(const std::filesystem::path& log) {
    std::ifstream in(log, std::ios::binary);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const std::streamoff keep =
        std::min<std::streamoff>(size, static_cast<std::streamoff>(k_time_output_max_bytes));
    std::string text(static_cast<std::size_t>(std::max<std::streamoff>(keep, 0)), '\0');
    in.seekg(size - keep);
    in.read(text.data(), keep);
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return text;
}

} // namespace

SweepResult sweep_command(const CommandOptions& opt, const std::vector<std::uint64_t>& sizes,
                          const std::vector<int>& threads) {
    check_time_regex(opt.time_regex);
    // A signal between two runs stops the sweep at the next run, the private directory removed on the way
    // out (core/interrupt.hpp).
    const core::InterruptScope interrupts;
    const core::TempDirectory dir("roofcast-threads");
    const auto log = dir.path() / "run.log";
    // Interleaved passes, as for the built-in kernels: repetition r of every point before repetition r + 1
    // of any, so a slow stretch of the host costs one sample of many points. A point that fails once is
    // left out of the later passes.
    const std::size_t points = sizes.size() * threads.size();
    std::vector<std::vector<double>> samples(points);
    std::vector<std::string> failure(points);
    for (int r = 0; r < std::max(1, opt.repetitions); ++r) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            for (std::size_t j = 0; j < threads.size(); ++j) {
                const std::size_t at = i * threads.size() + j;
                if (!failure[at].empty())
                    continue;
                const std::uint64_t n = sizes[i];
                const int s = threads[j];
                const std::vector<std::string> args = substitute(opt.args, n, s);
                core::RunOptions ro;
                ro.extra_env = {fmt::format("OMP_NUM_THREADS={}", s)};
                ro.output_log = log.string();
                ro.timeout_s = opt.timeout_s;
                const auto t0 = std::chrono::steady_clock::now();
                const int rc = core::run_program(args, ro);
                const double wall =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                if (rc != 0) {
                    failure[at] = rc == core::k_timed_out ? fmt::format("killed after {:g} s", opt.timeout_s)
                                  : rc < 0                ? fmt::format("could not start {}", args[0])
                                                          : fmt::format("exit status {}", rc);
                    continue;
                }
                if (opt.time_regex.empty()) {
                    samples[at].push_back(wall);
                    continue;
                }
                const std::string text = read_run_output(log);
                std::size_t long_lines = 0;
                const auto t = parse_printed_time(text, opt.time_regex, &long_lines);
                if (!t) {
                    std::string shown = text.substr(0, 80);
                    std::replace(shown.begin(), shown.end(), '\n', ' ');
                    throw core::InputError(
                        "", "time_regex",
                        fmt::format("expected a non-negative number matching '{}' in the output of "
                                    "the run at n={} s={}; it printed '{}'{}",
                                    opt.time_regex, n, s, shown,
                                    long_lines == 0 ? ""
                                                    : fmt::format(" ({} line(s) longer than {} characters "
                                                                  "were not searched)",
                                                                  long_lines, k_time_line_max_chars)));
                }
                samples[at].push_back(*t);
            }
        }
    }
    SweepResult out;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        for (std::size_t j = 0; j < threads.size(); ++j) {
            const std::size_t at = i * threads.size() + j;
            if (!failure[at].empty())
                out.failures.push_back({sizes[i], threads[j], failure[at]});
            else
                out.points.push_back({sizes[i], threads[j], *core::summarize(std::move(samples[at]))});
        }
    core::throw_if_interrupted();
    if (out.points.empty() && out.failures.empty())
        throw core::InputError("", "sizes", "expected at least one size and one thread count");
    if (out.points.empty())
        throw core::Error(fmt::format("the program failed at every point (first: n={} s={}: {})",
                                      out.failures.front().n, out.failures.front().threads,
                                      out.failures.front().reason));
    return out;
}

std::vector<std::uint64_t> auto_sizes(const std::vector<double>& cache_bytes, double bytes_per_element,
                                      int per_octave, double max_bytes) {
    // An infinite or NaN size per element made both bounds 0 and the loop below endless.
    if (!(bytes_per_element > 0 && std::isfinite(bytes_per_element)))
        return {};
    const double first = cache_bytes.empty() ? 32768.0 : cache_bytes.front();
    const double last = cache_bytes.empty() ? 32.0 * 1048576.0 : cache_bytes.back();
    const double lo = std::max(64.0, first / 4.0) / bytes_per_element;
    const double hi = std::min(std::min(4.0 * last, max_bytes) / bytes_per_element, k_max_auto_size);
    std::set<std::uint64_t> out;
    const double step = std::pow(2.0, 1.0 / std::max(1, per_octave));
    for (double n = lo; n <= hi * 1.0001; n *= step)
        if (n >= 1.0)
            out.insert(static_cast<std::uint64_t>(std::llround(n)));
    return {out.begin(), out.end()};
}

std::vector<int> auto_threads(int cores, int hw_threads) {
    hw_threads = std::max(1, hw_threads);
    const int top = 4 * hw_threads;
    std::set<int> out{cores, hw_threads, top};
    for (int s = 1; s <= std::min(16, top); ++s)
        out.insert(s);
    for (double s = 16; s < top; s *= 1.25)
        out.insert(static_cast<int>(std::lround(s)));
    std::erase_if(out, [&](int s) { return s < 1 || s > top; });
    return {out.begin(), out.end()};
}

} // namespace roofcast::measure
