#include "experiment/bench_phases.hpp"

#include "core/cache_sharing.hpp"
#include "core/error.hpp"
#include "core/machine_noise.hpp"
#include "core/timestamp.hpp"
#include "experiment/diagnosis.hpp"
#include "experiment/round_settle.hpp"
#include "experiment/round_verdict.hpp"
#include "experiment/shared_host.hpp"
#include "experiment/verdict.hpp"
#include "model/derived.hpp"
#include "model/model.hpp"
#include "model/predict.hpp"
#include "roofcast/version.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>
#include <thread>
#include <utility>

namespace roofcast::model::bench_phases {

namespace {

// Threads of the run: --threads, else every core of the machine file, but no more than this host runs at
// once.
int bench_threads(const BenchOptions& o, const core::Machine& m) {
    if (o.threads < 0)
        throw core::InputError("", "threads", fmt::format("expected a thread count >= 1, got {}", o.threads));
    if (o.threads > 0)
        return o.threads;
    // A machine file written by hand may describe a larger machine than this host.
    const int here = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (m.topology && m.topology->cores > 0)
        return std::min(m.topology->cores, here);
    return here;
}

measure::HarnessOptions harness_for(bool quick) {
    measure::HarnessOptions h;
    h.min_epoch_seconds = quick ? 0.01 : 0.05;
    // Three samples per kernel and round: 3 in a quick run, 9 in the default three rounds.
    h.epochs = 3;
    // The harness's first (calibrating) call already warms caches and TLB in quick runs.
    h.warmup_calls = quick ? 0 : 1;
    return h;
}

int rounds_for(const BenchOptions& o) {
    if (o.rounds < 0)
        throw core::InputError("", "rounds", fmt::format("expected a round count >= 1, got {}", o.rounds));
    return o.rounds > 0 ? o.rounds : o.quick ? 1 : 3;
}

// The kind of probe for a calibration loop resident in `level`: memory, a cache shared by several cores
// ("cache", the L3 of these VMs: its neighbours are not memory's, so memory's moves must not judge its rows),
// or a private cache ("core").
std::string resident_kind(const core::Machine& m, const std::string& level) {
    if (level == "MEM")
        return "memory";
    return core::cache_shared_by(m, level) > 1 ? "cache" : "core";
}

bool has_probe(const std::vector<Probe>& probes, const std::string& kind) {
    return std::any_of(probes.begin(), probes.end(), [&](const Probe& p) { return p.epochs.kind == kind; });
}

// The probes: memory (the first memory-resident calibration loop, the copy with fewest flops), cache (the
// first one resident in a shared cache, a read with fewest flops), core (the first L2-resident one) and
// compute (the last L2-resident one, the most multiply-adds per byte: compute-bound, so it sees a core shared
// with a neighbour or a lower clock as the FMA-bound kernels do, which the data probes do not).
std::vector<Probe> reference_probes(const std::vector<SuiteKernel>& catalogue, const core::Machine& m) {
    std::vector<Probe> out;
    std::optional<SuiteKernel> densest_l2;
    auto take = [&](SuiteKernel k, const std::string& kind, double units) {
        Probe p;
        p.epochs.kind = kind;
        p.epochs.kernel = k.name;
        p.units_per_call = units * k.spec.iterations.value_or(1.0);
        p.kernel = std::move(k);
        out.push_back(std::move(p));
    };
    for (const SuiteKernel& k : catalogue) {
        if (k.suite != "calibrate" || k.overlap_reuses > 0)
            continue;
        if (k.resident_level == "L2")
            densest_l2 = k;
        const std::string kind = resident_kind(m, k.resident_level);
        // The core probe is L2's (a private level beyond it would take its place); one probe per kind.
        if ((kind == "core" && k.resident_level != "L2") || has_probe(out, kind))
            continue;
        const auto b = k.spec.explicit_bytes.find(k.resident_level);
        const double bytes = b == k.spec.explicit_bytes.end() ? 0.0 : b->second;
        take(k, kind, bytes);
    }
    if (densest_l2 && densest_l2->spec.flops_per_iteration > 0) {
        const double flops = densest_l2->spec.flops_per_iteration;
        take(std::move(*densest_l2), "compute", flops);
    }
    return out;
}

// One epoch of every probe, appended to round `round` as its next slot.
void run_probes(std::vector<Probe>& probes, int round, bool quick, int threads,
                measure::suite::Workspace& ws) {
    for (auto& p : probes) {
        measure::suite::SuiteOptions so;
        so.threads = threads;
        so.harness.epochs = 1;
        so.harness.warmup_calls = 0;
        so.harness.min_epoch_seconds = quick ? 0.005 : 0.01;
        so.harness.fixed_repetitions = p.repetitions;
        const measure::suite::Measurement run = p.kernel.run(so, ws);
        p.repetitions = run.repetitions;
        if (p.epochs.rounds.size() <= static_cast<std::size_t>(round))
            p.epochs.rounds.resize(static_cast<std::size_t>(round) + 1);
        const double t = run.seconds_per_call.min;
        p.epochs.rounds[static_cast<std::size_t>(round)].push_back(
            t > 0 && p.units_per_call > 0 ? p.units_per_call / t * 1e-9 : 0.0);
    }
}

// The level that bounds a row, for the choice of its probe: a calibration loop's resident level (memory for
// the overlap loops, which stream from it), else the bottleneck of its first prediction in summary order.
std::string bounding_level(const SuiteKernel& k, const core::KernelResult& r) {
    if (k.suite == "calibrate")
        return k.overlap_reuses > 0 ? "MEM" : k.resident_level;
    const core::Prediction* p = model::summary_prediction(r);
    return p ? p->bottleneck : "compute";
}

// How far the probe beside row `row` moved over the rounds (max/min of its round units) and its kind: the
// probe of the row's own kind, else the first.
std::pair<std::optional<double>, std::string> probe_moved(const std::vector<Probe>& probes,
                                                          const std::string& kind, std::size_t row) {
    if (probes.empty())
        return {};
    std::size_t j = 0;
    for (std::size_t p = 0; p < probes.size(); ++p)
        if (probes[p].epochs.kind == kind)
            j = p;
    const std::vector<double> u = probe_units(probes[j].epochs, row, 0);
    const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
    if (u.size() < 2 || !(*lo > 0))
        return {std::nullopt, probes[j].epochs.kind};
    return {*hi / *lo, probes[j].epochs.kind};
}

// Each row's fraction of its bound round by round (experiment/round_verdict.hpp), from `epochs` (each row's
// epochs of the rounds); a probe's best level is the median of its three best units over the run, as a roof
// is chosen. A mixed or hierarchical bound with its compute term is judged term by term: each level's time
// scaled by the probe of that level's resource (memory, a shared cache, a private cache), the compute term by
// the compute probe, and recombined with the machine's exponents (the max for the hierarchical roofline); any
// other row, or a term whose resource has no probe, against the probe of its kind alone.
void round_verdicts(std::vector<core::KernelResult>& rows, const std::vector<std::string>& kinds,
                    const std::vector<ProbeRounds>& probes, std::size_t rounds,
                    const std::vector<std::vector<double>>& epochs, const core::Machine& machine) {
    std::vector<std::vector<std::vector<double>>> units(probes.size()); // [probe][row] one per round
    std::vector<std::optional<double>> refs;
    for (std::size_t j = 0; j < probes.size(); ++j) {
        std::vector<double> all;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            units[j].push_back(probe_units(probes[j], i, 0));
            all.insert(all.end(), units[j].back().begin(), units[j].back().end());
        }
        refs.push_back(core::best_k_median(all, 3));
    }
    auto probe_of = [&](const std::string& kind) -> std::optional<std::size_t> {
        for (std::size_t j = 0; j < probes.size(); ++j)
            if (probes[j].kind == kind && refs[j])
                return j;
        return std::nullopt;
    };
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto& r = rows[i];
        const core::Prediction* b = bound_prediction(r);
        if (!b || !r.measured_seconds)
            continue;
        // Term by term where every term has a probe of its resource.
        if ((b->model == "mixed" || b->model == "hierarchical") && b->compute_seconds_per_iteration) {
            std::vector<ProbedTerm> data;
            bool all_probed = true;
            bool last_is_memory = false;
            for (const auto& t : b->terms) {
                if (!t.seconds_per_iteration || !(*t.seconds_per_iteration > 0))
                    continue;
                const auto j = probe_of(resident_kind(machine, t.level));
                if (!j) {
                    all_probed = false;
                    break;
                }
                data.push_back({*t.seconds_per_iteration * r.iterations, units[*j][i], *refs[*j]});
                last_is_memory = t.level == "MEM";
            }
            const auto jc = probe_of("compute");
            if (all_probed && jc) {
                const ProbedTerm compute{*b->compute_seconds_per_iteration * r.iterations, units[*jc][i],
                                         *refs[*jc]};
                const bool mixed = b->model == "mixed";
                r.bound_fraction_rounds = round_fractions_of_terms(
                    epochs[i], rounds, data, compute, mixed ? machine.overlap_exponent : std::nullopt,
                    mixed ? machine.compute_overlap_exponent : std::nullopt,
                    CacheOverlap{mixed ? machine.cache_overlap_exponent : std::nullopt, last_is_memory});
                r.bound_fraction_median_round = core::median(r.bound_fraction_rounds);
                continue;
            }
        }
        const auto j = probe_of(kinds[i]);
        if (!j)
            continue;
        r.bound_fraction_rounds = round_fractions(epochs[i], rounds, units[*j][i],
                                                  b->seconds_per_iteration * r.iterations, *refs[*j]);
        r.bound_fraction_median_round = core::median(r.bound_fraction_rounds);
    }
}

// One line on the extra rounds: how many kernels needed them, and the kernels that did not settle, widest
// first with the ratio of their two best rounds (the first k_settle_named of them).
inline constexpr std::size_t k_settle_named = 8;
std::string settle_note(const std::vector<SuiteKernel>& kernels,
                        const std::vector<std::vector<double>>& round_best, int rounds, int extra_rounds) {
    std::size_t needed = 0;
    std::vector<std::pair<double, std::string>> open;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        if (round_best[i].size() > static_cast<std::size_t>(rounds))
            ++needed;
        if (round_settled(round_best[i]))
            continue;
        std::vector<double> b = round_best[i];
        std::sort(b.begin(), b.end());
        open.emplace_back(b.size() >= 2 && b[0] > 0 ? b[1] / b[0] : 0.0, kernels[i].name);
    }
    std::string s =
        fmt::format("settling: {} of {} kernels ran extra rounds ({} in all; settled when the two "
                    "best rounds agree within {:.0f} %)",
                    needed, kernels.size(), extra_rounds, 100 * k_round_settle_tolerance);
    if (open.empty())
        return s + "; every kernel settled";
    std::stable_sort(open.begin(), open.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> names;
    for (std::size_t j = 0; j < open.size() && j < k_settle_named; ++j)
        names.push_back(open[j].first > 0 ? fmt::format("{} ({:.2f}x)", open[j].second, open[j].first)
                                          : open[j].second);
    return s + fmt::format(
                   "; {} did not settle within the cap{}: {}{}", open.size(),
                   open.size() > names.size() ? ", widest first" : "",
                   fmt::format("{}", fmt::join(names, ", ")),
                   open.size() > names.size() ? fmt::format(" and {} more", open.size() - names.size()) : "");
}

} // namespace

void plan(BenchRun& run, const BenchOptions& o, const core::Machine& m) {
    run.options = &o;
    run.machine_file = &m;
    run.threads = bench_threads(o, m);
    run.rounds = rounds_for(o);
    run.suite_options.threads = run.threads;
    run.suite_options.harness = harness_for(o.quick);
    require_known_suite(o.suite);
    const std::vector<SuiteKernel> catalogue = suite_catalogue(m, run.threads, o.machine_file);
    run.kernels = select_kernels(catalogue, o.suite, o.kernel);
    run.stat_before = measure::read_proc_stat();
    const std::size_t n = run.kernels.size();
    run.samples.assign(n, {});
    run.imbalance.assign(n, std::nullopt);
    run.probes = o.probes ? reference_probes(catalogue, m) : std::vector<Probe>{};
    run.extra.assign(n, {});
    run.round_best.assign(n, {});
}

namespace {

// One measurement of kernel `i`: its samples go to `into`, its best to the kernel's round bests.
void measure_kernel(BenchRun& run, std::size_t i, std::vector<double>& into) {
    const measure::suite::Measurement m = run.kernels[i].run(run.suite_options, run.workspace);
    const core::Summary& t = m.seconds_per_call;
    into.insert(into.end(), t.samples.begin(), t.samples.end());
    run.round_best[i].push_back(t.min);
    auto& least = run.imbalance[i];
    if (m.thread_imbalance)
        least = least ? std::min(*least, *m.thread_imbalance) : *m.thread_imbalance;
}

} // namespace

// Interleaved rounds: every round runs each kernel once, so the samples of every kernel (the calibration
// loops included) span the whole run. On a shared host whose memory bandwidth moves within a minute, the
// calibrated figures and the kernels they predict then see the same conditions; one pass in suite order
// would calibrate in one state of the host and measure the family in another.
void interleaved_rounds(BenchRun& run, const Progress& progress, const measure::Clock& now) {
    const bool quick = run.options->quick;
    const std::size_t n = run.kernels.size();
    const double pass_start = now();
    for (int round = 0; round < run.rounds; ++round) {
        for (std::size_t i = 0; i < n; ++i) {
            run_probes(run.probes, round, quick, run.threads, run.probe_workspace);
            if (progress)
                progress(run.rounds > 1 ? fmt::format("[round {}/{}] [{}/{}] {}", round + 1, run.rounds,
                                                      i + 1, n, run.kernels[i].name)
                                        : fmt::format("[{}/{}] {}", i + 1, n, run.kernels[i].name));
            measure_kernel(run, i, run.samples[i]);
        }
        // closes the round: after its last kernel
        run_probes(run.probes, round, quick, run.threads, run.probe_workspace);
    }
    run.pass_seconds = now() - pass_start;
}

void settle_rounds(BenchRun& run, const Progress& progress, const measure::Clock& now) {
    const RoundSettleCap cap =
        run.options->settle ? round_settle_cap(run.options->quick) : RoundSettleCap{0, 0.0};
    const double extra_start = now();
    while (another_round(cap, run.extra_rounds, now() - extra_start, run.pass_seconds)) {
        const std::vector<std::size_t> todo = unsettled_kernels(run.round_best);
        if (todo.empty())
            break;
        ++run.extra_rounds;
        for (std::size_t j = 0; j < todo.size(); ++j) {
            if (progress)
                progress(fmt::format("[settling {}] [{}/{}] {}", run.extra_rounds, j + 1, todo.size(),
                                     run.kernels[todo[j]].name));
            measure_kernel(run, todo[j], run.extra[todo[j]]);
        }
    }
}

void kernel_times(BenchRun& run) {
    run.times.clear();
    run.times.reserve(run.kernels.size());
    for (std::size_t i = 0; i < run.kernels.size(); ++i) {
        std::vector<double> all = run.samples[i];
        all.insert(all.end(), run.extra[i].begin(), run.extra[i].end());
        auto t = core::summarize(all);
        if (!t)
            throw std::runtime_error("kernel " + run.kernels[i].name + " returned no timing samples");
        run.times.push_back(std::move(*t));
    }
}

// Calibrate first, then compare every kernel with the calibrated machine.
void calibrate_machine(BenchRun& run, BenchReport& rep) {
    const core::Machine& m = *run.machine_file;
    run.machine = m;
    std::vector<core::KernelResult> calib_results;
    std::vector<SuiteKernel> calib_kernels;
    for (std::size_t i = 0; i < run.kernels.size(); ++i) {
        const SuiteKernel& k = run.kernels[i];
        if (k.suite != "calibrate")
            continue;
        calib_kernels.push_back(k);
        calib_results.push_back(compare_kernel(k.spec, k.suite, run.threads, run.times[i], m));
    }
    if (calib_kernels.empty())
        return;
    rep.calibration = calibrate(calibration_points(calib_kernels, calib_results),
                                overlap_points(calib_kernels, calib_results));
    rep.calibration->threads = run.threads;
    apply_calibration(run.machine, *rep.calibration, run.options->machine_file);
    run.machine.source = core::Provenance::calibrated;
}

void compare_kernels(BenchRun& run, BenchReport& rep) {
    for (std::size_t i = 0; i < run.kernels.size(); ++i) {
        const SuiteKernel& k = run.kernels[i];
        core::KernelResult r = compare_kernel(k.spec, k.suite, run.threads, run.times[i], run.machine);
        if (k.suite == "calibrate") {
            // A calibration loop is judged, as every kernel, against the calibration measured beside it in
            // this run (issue 22 §4): its prediction shows how well the fitted figures explain it, not how
            // far the host moved since the machine file's calibration.
            r.role = "calibration";
            rep.results.kernels.push_back(std::move(r));
            continue;
        }
        r.role = k.untuned ? "untuned" : "validation";
        r.thread_imbalance = run.imbalance[i];
        r.notes.insert(r.notes.end(), k.notes.begin(), k.notes.end());
        // Below its bound: the compiled loop joins the evidence (one objdump of the runner's body), and so
        // does the same body's time with its arrays in L2 where the catalogue has that instance.
        std::optional<CodeEvidence> code;
        if (const auto f = fraction_of_bound(r); f && *f < k_diagnosis_fraction) {
            if (!k.code_symbol.empty())
                code = code_evidence(k.code_symbol);
            if (k.run_in_cache && k.in_cache_iterations > 0)
                r.in_cache_seconds = k.run_in_cache(run.suite_options, run.workspace).seconds_per_call.min /
                                     k.in_cache_iterations;
        }
        diagnose_kernel(r, k.spec, run.machine, code);
        rep.results.kernels.push_back(std::move(r));
    }
}

void record_settling(const BenchRun& run, BenchReport& rep) {
    if (!run.options->settle)
        return;
    for (std::size_t i = 0; i < run.kernels.size(); ++i)
        rep.results.kernels[i].settle =
            core::RoundSettle{static_cast<int>(run.round_best[i].size()), round_settled(run.round_best[i])};
}

void judge_noise(BenchRun& run, BenchReport& rep) {
    run.moved.assign(run.kernels.size(), {});
    if (run.probes.empty())
        return;
    std::vector<std::string> kinds;
    for (std::size_t i = 0; i < run.kernels.size(); ++i) {
        const std::string level = bounding_level(run.kernels[i], rep.results.kernels[i]);
        std::string kind = level == "compute" ? "compute" : resident_kind(run.machine, level);
        if (!has_probe(run.probes,
                       kind)) // no probe of its own kind: memory for a shared cache, core for compute
            kind = level == "compute" ? "core" : core::machine_noise_kind(run.machine, level);
        kinds.push_back(kind);
    }
    std::vector<ProbeRounds> probe_rounds;
    for (const auto& p : run.probes)
        probe_rounds.push_back(p.epochs);
    // The noise statistics compare rows with their probes round by round: they see the run's rounds
    // (`samples`) only, not the extra rounds of settling, which have no probes beside them.
    const auto rounds = static_cast<std::size_t>(run.rounds);
    rep.results.host_noise = assess_noise(rep.results.kernels, kinds, probe_rounds, rounds, run.samples);
    if (run.rounds < 2)
        return;
    round_verdicts(rep.results.kernels, kinds, probe_rounds, rounds, run.samples, run.machine);
    for (std::size_t i = 0; i < run.kernels.size(); ++i)
        run.moved[i] = probe_moved(run.probes, kinds[i], i);
}

void kernel_verdicts(const BenchRun& run, BenchReport& rep) {
    for (std::size_t i = 0; i < rep.results.kernels.size(); ++i) {
        core::KernelResult& r = rep.results.kernels[i];
        if (r.role == "calibration")
            continue;
        const auto& [moved, probe] = run.moved[i];
        r.verdict = kernel_verdict(r, k_diagnosis_fraction, moved, probe);
        if (r.verdict && r.verdict->state != "below")
            r.diagnosis.clear();
    }
}

void summarize(const BenchRun& run, BenchReport& rep) {
    const BenchOptions& o = *run.options;
    rep.threads = run.threads;
    rep.results.roofcast_version = k_version;
    rep.results.created = core::utc_now_iso8601();
    rep.results.machine = run.machine;
    rep.results.accuracy = accuracy_summary(rep.results.kernels);
    const auto stat_after = measure::read_proc_stat();
    rep.results.host = judge_host(
        run.stat_before && stat_after ? measure::steal_fraction(*run.stat_before, *stat_after) : std::nullopt,
        rep.results.host_noise, run.machine);
    const FamilySwitch sw = family_switch(run.kernels, rep.results.kernels);
    if (!sw.members.empty())
        rep.mixed_switch = sw;
    rep.results.notes.push_back(fmt::format("{} threads; {}; {} interleaved round{}", run.threads,
                                            o.quick ? "quick run" : "full run", run.rounds,
                                            run.rounds == 1 ? "" : "s"));
    if (o.settle)
        rep.results.notes.push_back(settle_note(run.kernels, run.round_best, run.rounds, run.extra_rounds));
}

} // namespace roofcast::model::bench_phases
