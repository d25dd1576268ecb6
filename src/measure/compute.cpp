#include "measure/compute.hpp"

#include "core/error.hpp"
#include "core/machine_noise.hpp"
#include "measure/affinity.hpp"
#include "measure/harness.hpp"
#include "measure/peak_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <omp.h>
#include <x86intrin.h>

namespace roofcast::measure {
namespace {

constexpr double k_drift_threshold = 0.05;      // clock readings further apart than this (relative) are drift
constexpr int k_chain_adds = 100;               // dependent adds per trip of the clock loop
constexpr double k_kernel_ops_per_call = 65536; // op applications per kernel call (~10-100 us)
constexpr int k_ceiling_retries = 2;            // re-measurements of a ceiling that disagrees with its kind

template <class T> void keep(const T& v) {
    asm volatile("" : : "r,m"(v) : "memory");
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `trips` x k_chain_adds register-register adds, each depending on the previous one: the chain runs at
// one add per core cycle (add r64, r64 has a latency of 1 cycle on every x86-64 core; Agner Fog,
// "Instruction tables", 2022). Add-immediate chains are avoided on purpose: they are fused or eliminated
// on some cores and can report several times the real clock. `b` is unknown to the compiler, so the
// chain cannot be folded into one multiply.
std::uint64_t dependent_adds(std::uint64_t trips, std::uint64_t b) {
    std::uint64_t a = 0;
    if (trips == 0)
        return a;
    asm volatile("1:\n\t"
                 ".rept 100\n\t"
                 "add %[b], %[a]\n\t"
                 ".endr\n\t"
                 "dec %[n]\n\t"
                 "jnz 1b"
                 : [a] "+r"(a), [n] "+r"(trips)
                 : [b] "r"(b)
                 : "cc");
    return a;
}

// TSC frequency: rdtsc ticks counted over a steady_clock interval.
double calibrate_tsc_ghz(double seconds) {
    const double t0 = now_seconds();
    const std::uint64_t r0 = __rdtsc();
    double t1 = t0;
    while (t1 - t0 < seconds)
        t1 = now_seconds();
    const std::uint64_t r1 = __rdtsc();
    return static_cast<double>(r1 - r0) / (t1 - t0) / 1e9;
}

ClockReading read_clock(const HarnessOptions& h, double tsc_ghz) {
    constexpr std::uint64_t trips_per_call = 1000; // 1e5 cycles per call
    std::uint64_t b = 1;
    keep(b);
    // Every timed part is also timed with rdtsc. The harness runs its epochs last, so the last
    // h.epochs parts are the epochs of the summary: the same epochs timed by two clocks.
    std::vector<double> via_tsc;
    const Timing t = time_repeated(
        [&](std::uint64_t reps) {
            std::uint64_t sink = 0;
            const std::uint64_t r0 = __rdtsc();
            for (std::uint64_t r = 0; r < reps; ++r)
                sink += dependent_adds(trips_per_call, b);
            const std::uint64_t r1 = __rdtsc();
            via_tsc.push_back(static_cast<double>(reps * trips_per_call * k_chain_adds) /
                              (static_cast<double>(r1 - r0) / tsc_ghz));
            keep(sink);
        },
        h);
    ClockReading out;
    out.ghz = core::rate_from_times(t.seconds_per_call, trips_per_call * k_chain_adds / 1e9);
    out.tsc_ghz = tsc_ghz;
    const std::size_t epochs = std::min(via_tsc.size(), out.ghz.n);
    out.ghz_via_tsc = *std::max_element(via_tsc.end() - static_cast<std::ptrdiff_t>(epochs), via_tsc.end());
    return out;
}

// A short clock reading taken between epochs (about 0.17 ms): the best of five runs of 1e5 dependent
// adds. An add chain cannot run faster than the core clock, and descheduling or interrupts only slow it
// down, so the best run is the reading. Taken right after a vector kernel, it also sees that kernel's
// clock, since cores keep a vector frequency licence for a while after the last wide instruction.
double clock_probe(std::uint64_t b) {
    constexpr std::uint64_t trips = 1000;
    double best = 0;
    for (int i = 0; i < 5; ++i) {
        const double t0 = now_seconds();
        keep(dependent_adds(trips, b));
        const double dt = now_seconds() - t0;
        if (dt > 0)
            best = std::max(best, trips * k_chain_adds / dt / 1e9);
    }
    return best;
}

// The second largest value (the largest when there is one): the best figure two timed parts reached.
double best_reached_twice(std::vector<double> v) {
    if (v.empty())
        return 0;
    if (v.size() == 1)
        return v.front();
    std::nth_element(v.begin(), v.begin() + 1, v.end(), std::greater<>());
    return v[1];
}

double ceiling_lanes(const core::ComputeCeiling& c) {
    return static_cast<double>(find_peak_kernel(c.isa, c.precision, c.op)->decl.lanes);
}

void require_known(const std::vector<std::string>& values, const std::vector<std::string>& known,
                   const std::string& field, const std::string& what) {
    if (values.empty())
        throw core::InputError("", field, fmt::format("expected at least one {}", what));
    for (const std::string& v : values)
        if (std::find(known.begin(), known.end(), v) == known.end())
            throw core::InputError(
                "", field,
                fmt::format("unknown {} '{}'; expected one of: {}", what, v, fmt::join(known, ", ")));
}

// The ISAs to measure: the requested ones (validated) or every available one, narrowest first.
std::vector<std::string> select_isas(const std::vector<std::string>& requested) {
    std::vector<std::string> avail = available_isas();
    if (requested.empty())
        return avail;
    require_known(requested, known_isas(), "isa", "ISA");
    std::vector<std::string> out;
    for (const std::string& isa : known_isas()) {
        if (std::find(requested.begin(), requested.end(), isa) == requested.end())
            continue;
        if (std::find(avail.begin(), avail.end(), isa) == avail.end())
            throw core::InputError("", "isa",
                                   fmt::format("ISA '{}' is not supported by this CPU (available: {})", isa,
                                               fmt::join(avail, ", ")));
        out.push_back(isa);
    }
    return out;
}

std::vector<std::string> in_known_order(const std::vector<std::string>& requested,
                                        const std::vector<std::string>& known) {
    std::vector<std::string> out;
    for (const std::string& k : known)
        if (std::find(requested.begin(), requested.end(), k) != requested.end())
            out.push_back(k);
    return out;
}

// Times `reps` calls of the kernel on every thread. The harness sees a clock that advances only between
// the barrier that releases all pinned threads and the barrier that waits for the slowest one, so the
// time per call is the slowest thread's, free of thread start-up. Right before and after each timed part,
// outside the timing, thread 0 probes the core clock, so every ceiling carries the clock seen while it ran.
struct TimedPart {
    double seconds = 0;     // barrier to barrier
    std::uint64_t reps = 0; // kernel calls per thread
    double ghz_before = 0;  // probe right before it
    double ghz_after = 0;   // probe right after it
};

struct KernelTiming {
    Timing timing;                 // seconds per call
    std::uint64_t iterations = 0;  // loop trips per call
    std::vector<double> clock_ghz; // two probes per timed part, before and after
    std::vector<TimedPart> parts;  // every timed part (warm-up, calibration, epochs), in order
};

KernelTiming time_kernel(const PeakKernel& k, int threads, const std::vector<int>& cpus,
                         const HarnessOptions& h) {
    const auto iterations = static_cast<std::uint64_t>(
        std::max(1.0, std::round(k_kernel_ops_per_call / (k.decl.accumulators * k.decl.unroll))));
    double timed = 0;
    const Clock clock = [&timed] { return timed; };
    bool all_threads = true;
    std::vector<double> probes;
    std::vector<TimedPart> parts;
    std::uint64_t b = 1;
    keep(b);
    const auto body = [&](std::uint64_t reps) {
        double t0 = 0;
        double t1 = 0;
        double ghz_before = 0;
        double ghz_after = 0;
#pragma omp parallel num_threads(threads)
        {
            const int tid = omp_get_thread_num();
            if (omp_get_num_threads() != threads) {
#pragma omp atomic write
                all_threads = false;
            }
            pin_current_thread(cpus[static_cast<std::size_t>(tid) % cpus.size()]);
            double sink = 0;
            if (tid == 0)
                ghz_before = clock_probe(b);
#pragma omp barrier
            if (tid == 0)
                t0 = now_seconds();
            for (std::uint64_t r = 0; r < reps; ++r)
                sink += k.run(iterations);
#pragma omp barrier
            if (tid == 0) {
                t1 = now_seconds();
                ghz_after = clock_probe(b);
            }
            keep(sink);
        }
        timed += t1 - t0;
        probes.push_back(ghz_before);
        probes.push_back(ghz_after);
        parts.push_back({t1 - t0, reps, ghz_before, ghz_after});
    };
    const Timing t = time_repeated(body, h, clock);
    if (!all_threads)
        throw core::Error(fmt::format("OpenMP did not start the {} threads requested", threads));
    return {t, iterations, std::move(probes), std::move(parts)};
}

std::string ceiling_label(const core::ComputeCeiling& c) {
    return fmt::format("{} {} {}, {} thread{}", c.precision, c.isa, c.op, c.threads,
                       c.threads == 1 ? "" : "s");
}

struct Measured {
    core::ComputeCeiling ceiling;
    core::Summary clock;        // the probes taken while it ran
    double flops_per_cycle = 0; // best timed part, per core, at the clock probed around it
};

Measured measure_one(const PeakKernel& k, int threads, const std::vector<int>& cpus,
                     const HarnessOptions& h) {
    Measured m;
    core::ComputeCeiling& c = m.ceiling;
    c.precision = k.decl.precision;
    c.isa = k.decl.isa;
    c.op = k.decl.op;
    c.threads = threads;
    const KernelTiming t = time_kernel(k, threads, cpus, h);
    // Seconds per call -> GFLOP/s of all threads; the flops come from the kernel's own declaration.
    c.gflops =
        core::rate_from_times(t.timing.seconds_per_call, peak_flops(k.decl, t.iterations) * threads / 1e9);
    m.clock = *core::summarize(t.clock_ghz, k_drift_threshold);
    c.ghz = m.clock.median;
    // Flops per core and cycle of each timed part at its own clock. A probe can only read low (when it is
    // interrupted), so a part's clock is the higher of the probes around it; parts whose two probes
    // differ by more than 2 % saw the clock move and are left out (unless no part is steady), since
    // dividing by a clock that was not the part's would bias the best part upward. Parts shorter than
    // half an epoch (warm-up, early calibration) are too short to trust. The figure is the best reached
    // by two parts: the maximum of many noisy ratios is biased upward, and one part alone above all the
    // others (a timer step of the virtual machine, two probes both slowed) is not a rate this core ran at.
    const double flops_per_call = peak_flops(k.decl, t.iterations) * threads;
    const double cores = std::min<double>(threads, static_cast<double>(cpus.size()));
    std::vector<double> steady;
    std::vector<double> any;
    for (const TimedPart& p : t.parts) {
        const double ghz = std::max(p.ghz_before, p.ghz_after);
        if (p.seconds < 0.5 * h.min_epoch_seconds || ghz <= 0)
            continue;
        const double fpc = flops_per_call * static_cast<double>(p.reps) / p.seconds / (ghz * 1e9) / cores;
        any.push_back(fpc);
        if (std::fabs(p.ghz_before - p.ghz_after) <= 0.02 * ghz)
            steady.push_back(fpc);
    }
    m.flops_per_cycle = best_reached_twice(steady.empty() ? any : steady);
    return m;
}

HarnessOptions ceiling_options(bool quick) {
    HarnessOptions h;
    // Many short epochs rather than few long ones: on a shared host an epoch shorter than a scheduler
    // time slice (several ms) often runs undisturbed, and the headline of a ceiling is its best epoch.
    // One epoch is still >= 10 kernel calls and >= 1e3 times the timer's overhead.
    h.epochs = quick ? 20 : 60;
    h.min_epoch_seconds = quick ? 0.001 : 0.002;
    return h;
}

} // namespace

const std::vector<std::string>& known_isas() {
    static const std::vector<std::string> v{"scalar", "sse", "avx2", "avx512"};
    return v;
}
const std::vector<std::string>& known_precisions() {
    static const std::vector<std::string> v{"double", "single"};
    return v;
}
const std::vector<std::string>& known_ops() {
    static const std::vector<std::string> v{"fma", "add", "mul", "addmul", "chain"};
    return v;
}

std::vector<std::string> available_isas() {
    // An ISA is usable when its add kernel (which needs only the ISA itself) may run here.
    std::vector<std::string> out;
    for (const std::string& isa : known_isas()) {
        const PeakKernel* k = find_peak_kernel(isa, "double", "add");
        if (k != nullptr && k->available_on_this_cpu())
            out.push_back(isa);
    }
    return out;
}

ClockReading measure_clock(int samples) {
    HarnessOptions h;
    h.epochs = std::max(1, samples);
    h.min_epoch_seconds = 0.001; // short epochs often run undisturbed on a shared host (see ceilings)
    return read_clock(h, calibrate_tsc_ghz(0.02));
}

namespace {

struct ComputeJob {
    const PeakKernel* kernel;
    int threads;
};

// One job per available kernel of the ISAs, precisions and operations asked for, at each thread count; a
// kernel the CPU cannot run is noted and skipped.
std::vector<ComputeJob> plan_compute_jobs(ComputeResult& res, const std::vector<std::string>& precisions,
                                          const std::vector<std::string>& ops,
                                          const std::vector<int>& threads) {
    std::vector<ComputeJob> jobs;
    for (const std::string& isa : res.isas)
        for (const std::string& prec : precisions)
            for (const std::string& op : ops) {
                const PeakKernel* k = find_peak_kernel(isa, prec, op);
                if (k == nullptr || !k->available_on_this_cpu()) {
                    res.notes.push_back(fmt::format("{} {} {}: skipped, the CPU lacks the instructions ({})",
                                                    prec, isa, op, k ? k->decl.target : "no kernel"));
                    continue;
                }
                for (int n : threads)
                    jobs.push_back({k, n});
            }
    return jobs;
}

// A ceiling whose samples fall in two groups: the upper one is what the units attain when no neighbour
// takes the core, the lower what this run got part of the time; the ceiling is the upper group's median
// (as a bandwidth roof is its best epochs' median), and the note says both.
void take_upper_groups(ComputeResult& res) {
    for (core::ComputeCeiling& c : res.ceilings) {
        const double all = c.gflops.median;
        if (const auto g = core::ceiling_from_groups(c))
            res.notes.push_back(fmt::format(
                "{}: samples in two groups, {:.1f}-{:.1f} GFLOP/s ({} samples) and {:.1f}-{:.1f} GFLOP/s "
                "({}): "
                "the ceiling is the upper group's median {:.1f} GFLOP/s (what the units attain when no "
                "neighbour takes the core; the median of all samples was {:.1f})",
                ceiling_label(c), g->lower.min, g->lower.max, g->lower.n, g->upper.min, g->upper.max,
                g->upper.n, g->upper.median, all));
    }
}

} // namespace

ComputeResult measure_compute(const ComputeOptions& opt) {
    require_known(opt.precisions, known_precisions(), "precision", "precision");
    require_known(opt.ops, known_ops(), "op", "op");
    ComputeResult res;
    res.isas = select_isas(opt.isas);
    const std::vector<std::string> precisions = in_known_order(opt.precisions, known_precisions());
    const std::vector<std::string> ops = in_known_order(opt.ops, known_ops());

    const std::vector<int> cpus = core_cpus();
    res.cores = static_cast<int>(cpus.size());
    res.cpu = host_cpu_identity();
    std::vector<int> threads = opt.threads;
    if (threads.empty()) {
        threads = {1};
        if (res.cores > 1)
            threads.push_back(res.cores);
    }
    for (int n : threads)
        if (n < 1)
            throw core::InputError("", "threads", fmt::format("expected a positive thread count, got {}", n));

    // The calling thread becomes OpenMP thread 0 and reads the clock: keep it on the first core for the
    // whole run, and give its affinity back afterwards.
    const AffinityGuard guard;
    pin_current_thread(cpus.front());
    omp_set_dynamic(0);

    const HarnessOptions h = ceiling_options(opt.quick);
    res.tsc_ghz = calibrate_tsc_ghz(opt.quick ? 0.01 : 0.02);

    std::vector<double> all_clock; // one reading per ceiling: the median of its probes

    const std::vector<ComputeJob> jobs = plan_compute_jobs(res, precisions, ops, threads);

    std::size_t done = 0;
    std::size_t moved = 0; // ceilings whose clock probes spread by more than 5 %
    double worst_move = 0;
    std::string worst;
    for (const ComputeJob& job : jobs) {
        if (opt.progress)
            opt.progress(fmt::format("compute: {} {} {}, {} thread{} ({}/{})", job.kernel->decl.precision,
                                     job.kernel->decl.isa, job.kernel->decl.op, job.threads,
                                     job.threads == 1 ? "" : "s", ++done, jobs.size()));
        Measured m = measure_one(*job.kernel, job.threads, cpus, h);
        all_clock.push_back(m.clock.median);
        if (m.clock.noisy) {
            ++moved;
            if (m.clock.spread.value_or(0) > worst_move) {
                worst_move = m.clock.spread.value_or(0);
                worst =
                    fmt::format("{}, {:.2f}-{:.2f} GHz", ceiling_label(m.ceiling), m.clock.min, m.clock.max);
            }
        }
        res.ceilings.push_back(std::move(m.ceiling));
        res.best_flops_per_cycle.push_back(m.flops_per_cycle);
        if (opt.between)
            opt.between();
    }
    // A ceiling that disagrees with its kind is measured again, between the run's other measurements
    // (jobs and ceilings share one order).
    settle_ceilings(
        res,
        [&](std::size_t i) {
            if (opt.progress)
                opt.progress(fmt::format("compute: {} again", ceiling_label(res.ceilings[i])));
            Measured m = measure_one(*jobs[i].kernel, jobs[i].threads, cpus, h);
            all_clock.push_back(m.clock.median);
            if (opt.between)
                opt.between();
            return KernelCeiling{std::move(m.ceiling), m.flops_per_cycle};
        },
        k_ceiling_retries);
    take_upper_groups(res);
    for (const core::ComputeCeiling& c : res.ceilings) {
        double& best = res.best_gflops[c.precision];
        best = std::max(best, c.gflops.max);
    }
    guard.restore_openmp_team(*std::max_element(threads.begin(), threads.end()));
    if (all_clock.empty())
        all_clock.push_back(clock_probe(1));
    res.clock_ghz = *core::summarize(all_clock, k_drift_threshold);
    res.clock_drift = res.clock_ghz.noisy;
    if (moved > 0)
        res.notes.push_back(fmt::format("clock moved by more than 5 % while {} of {} ceilings ran (most: {})",
                                        moved, res.ceilings.size(), worst));
    if (res.clock_drift)
        res.notes.push_back(
            fmt::format("clock drift: readings ranged {:.2f}-{:.2f} GHz ({:.1f} %) during the run",
                        res.clock_ghz.min, res.clock_ghz.max, 100 * res.clock_ghz.spread.value_or(0)));
    derive_theoretical_peak(res);
    return res;
}

namespace {

// Each ceiling's best epoch in flops per core, cycle and SIMD lane over the best of its (ISA, op) group;
// nullopt for a ceiling without a best epoch (best_flops_per_cycle 0), which is not the group's best either.
std::vector<std::optional<double>> fractions_of_kind(const ComputeResult& r) {
    const std::size_t n = std::min(r.ceilings.size(), r.best_flops_per_cycle.size());
    const auto per_lane = [&r](std::size_t i) {
        return r.best_flops_per_cycle[i] / ceiling_lanes(r.ceilings[i]);
    };
    std::map<std::pair<std::string, std::string>, double> best;
    for (std::size_t i = 0; i < n; ++i)
        if (r.best_flops_per_cycle[i] > 0) {
            double& b = best[{r.ceilings[i].isa, r.ceilings[i].op}];
            b = std::max(b, per_lane(i));
        }
    std::vector<std::optional<double>> out(n);
    for (std::size_t i = 0; i < n; ++i)
        if (r.best_flops_per_cycle[i] > 0)
            out[i] = per_lane(i) / best.at({r.ceilings[i].isa, r.ceilings[i].op});
    return out;
}

} // namespace

std::vector<std::size_t> short_ceilings(const ComputeResult& r, double agreement) {
    const std::vector<std::optional<double>> f = fractions_of_kind(r);
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < f.size(); ++i)
        if (r.ceilings[i].op != "addmul" && f[i] && *f[i] < agreement)
            out.push_back(i);
    return out;
}

void settle_ceilings(ComputeResult& r, const std::function<KernelCeiling(std::size_t)>& remeasure,
                     int retries) {
    const std::vector<std::size_t> first = short_ceilings(r);
    if (first.empty())
        return;
    std::vector<std::string> before;
    {
        const std::vector<std::optional<double>> f = fractions_of_kind(r);
        for (std::size_t i : first)
            before.push_back(
                fmt::format("{:.1f} GFLOP/s at best, {:.0f} %", r.ceilings[i].gflops.max, 100 * *f[i]));
    }
    std::vector<int> tries(r.ceilings.size(), 0);
    for (int round = 0; round < retries; ++round) {
        const std::vector<std::size_t> now = short_ceilings(r);
        if (now.empty())
            break;
        for (std::size_t i : now) {
            KernelCeiling k = remeasure(i);
            ++tries[i];
            if (k.best_flops_per_cycle > r.best_flops_per_cycle[i]) {
                r.ceilings[i] = std::move(k.ceiling);
                r.best_flops_per_cycle[i] = k.best_flops_per_cycle;
            }
        }
    }
    const std::vector<std::size_t> still = short_ceilings(r);
    const std::vector<std::optional<double>> f = fractions_of_kind(r);
    for (std::size_t j = 0; j < first.size(); ++j) {
        const std::size_t i = first[j];
        const core::ComputeCeiling& c = r.ceilings[i];
        const bool short_now = std::find(still.begin(), still.end(), i) != still.end();
        r.notes.push_back(fmt::format(
            "{}: its best epoch ({}) fell short of {:.0f} % of the best {} {} ceiling per core, cycle and "
            "lane "
            "(probably something else held the FP units while it ran); measured again {} time{}: {:.1f} "
            "GFLOP/s at "
            "best, {:.0f} %{}",
            ceiling_label(c), before[j], 100 * k_ceiling_agreement, c.isa, c.op, tries[i],
            tries[i] == 1 ? "" : "s", c.gflops.max, 100 * *f[i],
            short_now ? "; still short, kept its best measurement (the threads may share a core, or the host "
                        "stayed busy)"
                      : ""));
    }
}

CeilingPoint measure_ceiling_point(const std::string& precision, const std::string& isa,
                                   const std::string& op, int threads, bool quick) {
    ComputeOptions o;
    o.precisions = {precision};
    o.isas = {isa};
    o.ops = {op};
    o.threads = {threads};
    o.quick = quick;
    ComputeResult r = measure_compute(o);
    if (r.ceilings.empty())
        throw core::InputError("", "isa",
                               fmt::format("no {} {} {} kernel runs on this CPU", precision, isa, op));
    CeilingPoint p;
    p.ceiling = r.ceilings.front();
    core::flag_row_alone(p.ceiling.gflops);
    p.best_flops_per_cycle = r.best_flops_per_cycle.front();
    p.fma_units = r.fma_units;
    p.notes = std::move(r.notes);
    p.peak = judge_against_peak(r.cpu, p.ceiling, p.best_flops_per_cycle);
    return p;
}

KernelCeiling measure_peak_kernel(const PeakKernel& kernel, int threads, bool quick) {
    if (threads < 1)
        throw core::InputError("", "threads",
                               fmt::format("expected a positive thread count, got {}", threads));
    if (!kernel.available_on_this_cpu())
        throw core::Unsupported(fmt::format("{} {} {} kernel: the CPU lacks {}", kernel.decl.precision,
                                            kernel.decl.isa, kernel.decl.op, kernel.decl.target));
    const std::vector<int> cpus = core_cpus();
    const AffinityGuard guard;
    pin_current_thread(cpus.front());
    omp_set_dynamic(0);
    Measured m = measure_one(kernel, threads, cpus, ceiling_options(quick));
    guard.restore_openmp_team(threads);
    return {std::move(m.ceiling), m.flops_per_cycle};
}

} // namespace roofcast::measure
