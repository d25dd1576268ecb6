#include "measure/compute.hpp"

#include "core/error.hpp"
#include "measure/affinity.hpp"
#include "measure/harness.hpp"
#include "measure/peak_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <omp.h>
#include <x86intrin.h>

namespace roofcast::measure {
namespace {

constexpr double k_drift_threshold = 0.05;      // clock readings further apart than this (relative) are drift
constexpr int k_chain_adds = 100;               // dependent adds per trip of the clock loop
constexpr double k_kernel_ops_per_call = 65536; // op applications per kernel call (~10-100 us)

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
    std::uint64_t trips_total = 0;
    std::uint64_t b = 1;
    keep(b);
    const std::uint64_t r0 = __rdtsc();
    const Timing t = time_repeated(
        [&](std::uint64_t reps) {
            std::uint64_t sink = 0;
            for (std::uint64_t r = 0; r < reps; ++r)
                sink += dependent_adds(trips_per_call, b);
            trips_total += reps * trips_per_call;
            keep(sink);
        },
        h);
    const std::uint64_t r1 = __rdtsc();
    ClockReading out;
    out.ghz = core::rate_from_times(t.seconds_per_call, trips_per_call * k_chain_adds / 1e9);
    out.tsc_ghz = tsc_ghz;
    const double tsc_seconds = static_cast<double>(r1 - r0) / (tsc_ghz * 1e9);
    if (tsc_seconds > 0)
        out.ghz_via_tsc = static_cast<double>(trips_total) * k_chain_adds / tsc_seconds / 1e9;
    return out;
}

// A short clock reading taken between epochs (about 0.1 ms): the best of three runs of 1e5 dependent
// adds. An add chain cannot run faster than the core clock, and descheduling or interrupts only slow it
// down, so the best run is the reading. Taken right after a vector kernel, it also sees that kernel's
// clock, since cores keep a vector frequency licence for a while after the last wide instruction.
double clock_probe(std::uint64_t b) {
    constexpr std::uint64_t trips = 1000;
    double best = 0;
    for (int i = 0; i < 3; ++i) {
        const double t0 = now_seconds();
        keep(dependent_adds(trips, b));
        const double dt = now_seconds() - t0;
        if (dt > 0)
            best = std::max(best, trips * k_chain_adds / dt / 1e9);
    }
    return best;
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
    const std::vector<std::string> avail = available_isas();
    if (requested.empty())
        return avail;
    require_known(requested, known_isas(), "--isa", "ISA");
    std::vector<std::string> out;
    for (const std::string& isa : known_isas()) {
        if (std::find(requested.begin(), requested.end(), isa) == requested.end())
            continue;
        if (std::find(avail.begin(), avail.end(), isa) == avail.end())
            throw core::InputError("", "--isa",
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
// time per call is the slowest thread's, free of thread start-up. After each timed part, outside the
// timing, thread 0 probes the core clock, so every ceiling carries the clock seen while it ran.
struct KernelTiming {
    Timing timing;                 // seconds per call
    std::uint64_t iterations = 0;  // loop trips per call
    std::vector<double> clock_ghz; // one probe per timed part
};

KernelTiming time_kernel(const PeakKernel& k, int threads, const std::vector<int>& cpus,
                         const HarnessOptions& h) {
    const auto iterations = static_cast<std::uint64_t>(
        std::max(1.0, std::round(k_kernel_ops_per_call / (k.decl.accumulators * k.decl.unroll))));
    double timed = 0;
    const Clock clock = [&timed] { return timed; };
    bool all_threads = true;
    std::vector<double> probes;
    std::uint64_t b = 1;
    keep(b);
    const auto body = [&](std::uint64_t reps) {
        double t0 = 0;
        double t1 = 0;
#pragma omp parallel num_threads(threads)
        {
            const int tid = omp_get_thread_num();
            if (omp_get_num_threads() != threads) {
#pragma omp atomic write
                all_threads = false;
            }
            pin_current_thread(cpus[static_cast<std::size_t>(tid) % cpus.size()]);
            double sink = 0;
#pragma omp barrier
            if (tid == 0)
                t0 = now_seconds();
            for (std::uint64_t r = 0; r < reps; ++r)
                sink += k.run(iterations);
#pragma omp barrier
            if (tid == 0) {
                t1 = now_seconds();
                probes.push_back(clock_probe(b));
            }
            keep(sink);
        }
        timed += t1 - t0;
    };
    const Timing t = time_repeated(body, h, clock);
    if (!all_threads)
        throw core::Error(fmt::format("OpenMP did not start the {} threads requested", threads));
    return {t, iterations, std::move(probes)};
}

const core::ComputeCeiling* find_ceiling(const ComputeResult& r, const std::string& precision,
                                         const std::string& isa, const std::string& op, int threads) {
    for (const core::ComputeCeiling& c : r.ceilings)
        if (c.precision == precision && c.isa == isa && c.op == op && c.threads == threads)
            return &c;
    return nullptr;
}

std::string ceiling_label(const core::ComputeCeiling& c) {
    return fmt::format("{} {} {}, {} thread{}", c.precision, c.isa, c.op, c.threads,
                       c.threads == 1 ? "" : "s");
}

// Theoretical peak = cores x SIMD lanes x 2 flops per FMA x FMA units per core x clock (the in-core
// peak of Williams, Waterman & Patterson, CACM 2009, section 4). CPUID does not tell how many FMA units a
// core has, so they are inferred from the best single-thread FMA rate on the widest vectors, in flops per
// measured cycle, divided by the flops one unit delivers per cycle (lanes x 2), rounded to 1 or 2.
void derive_theoretical_peak(ComputeResult& r) {
    const double clock = r.clock_ghz.median;
    std::string widest;
    const core::ComputeCeiling* probe = nullptr;
    for (auto it = r.isas.rbegin(); it != r.isas.rend() && probe == nullptr; ++it)
        for (const std::string& prec : known_precisions())
            if ((probe = find_ceiling(r, prec, *it, "fma", 1)) != nullptr)
                break;
    if (probe == nullptr || !probe->ghz || *probe->ghz <= 0) {
        r.notes.push_back("theoretical peak: not derived, no single-thread FMA ceiling was measured "
                          "(include op 'fma' and 1 thread)");
        return;
    }
    const PeakKernel* pk = find_peak_kernel(probe->isa, probe->precision, "fma");
    const double per_unit = 2.0 * pk->decl.lanes; // flops one FMA unit retires per cycle
    const double ratio = probe->gflops.max / *probe->ghz / per_unit;
    r.fma_units = ratio < 1.5 ? 1 : 2;
    r.notes.push_back(fmt::format("fma_units = {}: inferred from {} {} fma on 1 thread, {:.1f} flops per "
                                  "cycle at {:.2f} GHz = {:.2f} x the {} flops of one unit (CPUID does not "
                                  "report FMA units)",
                                  r.fma_units, probe->precision, probe->isa, probe->gflops.max / *probe->ghz,
                                  *probe->ghz, ratio, per_unit));
    for (const std::string& prec : known_precisions()) {
        const PeakKernel* k = find_peak_kernel(probe->isa, prec, "fma");
        r.peak_gflops[prec] = r.cores * k->decl.lanes * 2.0 * r.fma_units * clock;
    }
    // Measured/theoretical at the clock seen around each widest-FMA ceiling (best epoch, as in the headline).
    for (const core::ComputeCeiling& c : r.ceilings) {
        if (c.isa != probe->isa || c.op != "fma" || !c.ghz)
            continue;
        const PeakKernel* k = find_peak_kernel(c.isa, c.precision, "fma");
        const double at_clock = std::min(c.threads, r.cores) * k->decl.lanes * 2.0 * r.fma_units * *c.ghz;
        r.notes.push_back(
            fmt::format("{}: best {:.1f} GFLOP/s = {:.1f} % of the theoretical {:.1f} at {:.2f} GHz",
                        ceiling_label(c), c.gflops.max, 100 * c.gflops.max / at_clock, at_clock, *c.ghz));
    }
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
    h.min_epoch_seconds = 0.005;
    return read_clock(h, calibrate_tsc_ghz(0.02));
}

ComputeResult measure_compute(const ComputeOptions& opt) {
    require_known(opt.precisions, known_precisions(), "--precision", "precision");
    require_known(opt.ops, known_ops(), "--op", "op");
    ComputeResult res;
    res.isas = select_isas(opt.isas);
    const std::vector<std::string> precisions = in_known_order(opt.precisions, known_precisions());
    const std::vector<std::string> ops = in_known_order(opt.ops, known_ops());

    const std::vector<int> cpus = core_cpus();
    res.cores = static_cast<int>(cpus.size());
    std::vector<int> threads = opt.threads;
    if (threads.empty()) {
        threads = {1};
        if (res.cores > 1)
            threads.push_back(res.cores);
    }
    for (int n : threads)
        if (n < 1)
            throw core::InputError("", "--threads",
                                   fmt::format("expected a positive thread count, got {}", n));

    // The calling thread becomes OpenMP thread 0 and reads the clock: keep it on the first core for the
    // whole run, and give its affinity back afterwards.
    const AffinityGuard guard;
    pin_current_thread(cpus.front());
    omp_set_dynamic(0);

    HarnessOptions h;
    // Many short epochs rather than few long ones: on a shared host an epoch is more likely to run
    // undisturbed when it is short, and the headline of a ceiling is its best epoch.
    h.epochs = opt.quick ? 5 : 15;
    h.min_epoch_seconds = opt.quick ? 0.005 : 0.01;
    res.tsc_ghz = calibrate_tsc_ghz(opt.quick ? 0.01 : 0.02);

    std::vector<double> all_clock; // every probe of the run

    struct Job {
        const PeakKernel* kernel;
        int threads;
    };
    std::vector<Job> jobs;
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

    std::size_t done = 0;
    for (const Job& job : jobs) {
        core::ComputeCeiling c;
        c.precision = job.kernel->decl.precision;
        c.isa = job.kernel->decl.isa;
        c.op = job.kernel->decl.op;
        c.threads = job.threads;
        if (opt.progress)
            opt.progress(fmt::format("compute: {} ({}/{})", ceiling_label(c), ++done, jobs.size()));
        const KernelTiming t = time_kernel(*job.kernel, job.threads, cpus, h);
        // Seconds per call -> GFLOP/s of all threads; the flops come from the kernel's own declaration.
        c.gflops = core::rate_from_times(t.timing.seconds_per_call,
                                         peak_flops(job.kernel->decl, t.iterations) * job.threads / 1e9);
        all_clock.insert(all_clock.end(), t.clock_ghz.begin(), t.clock_ghz.end());
        const core::Summary clock = *core::summarize(t.clock_ghz, k_drift_threshold);
        c.ghz = clock.median;
        if (clock.noisy)
            res.notes.push_back(fmt::format("{}: clock moved {:.1f} % while it ran ({:.2f}-{:.2f} GHz)",
                                            ceiling_label(c), 100 * clock.spread.value_or(0), clock.min,
                                            clock.max));
        res.ceilings.push_back(std::move(c));
    }
    if (all_clock.empty())
        all_clock.push_back(clock_probe(1));
    res.clock_ghz = *core::summarize(all_clock, k_drift_threshold);
    res.clock_drift = res.clock_ghz.noisy;
    if (res.clock_drift)
        res.notes.push_back(
            fmt::format("clock drift: readings ranged {:.2f}-{:.2f} GHz ({:.1f} %) during the run",
                        res.clock_ghz.min, res.clock_ghz.max, 100 * res.clock_ghz.spread.value_or(0)));
    derive_theoretical_peak(res);
    return res;
}

} // namespace roofcast::measure
