#include "experiment/bench.hpp"

#include "core/error.hpp"
#include "core/machine_noise.hpp"
#include "core/timestamp.hpp"
#include "experiment/diagnosis.hpp"
#include "experiment/noise.hpp"
#include "experiment/round_settle.hpp"
#include "experiment/round_verdict.hpp"
#include "experiment/shared_host.hpp"
#include "experiment/verdict.hpp"
#include "measure/harness.hpp"
#include "measure/host_noise.hpp"
#include "model/derived.hpp"
#include "model/predict.hpp"
#include "roofcast/version.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <stdexcept>
#include <thread>
#include <utility>

namespace roofcast::model {

namespace {

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
        throw core::InputError("", "rounds", "expected a round count >= 1, got " + std::to_string(o.rounds));
    return o.rounds > 0 ? o.rounds : o.quick ? 1 : 3;
}

// A reference probe of the run (experiment/noise.hpp): a calibration loop, timed for one short epoch before
// every kernel of every round, with its own arrays. Its rate is bytes per second of its resident level, or
// for the compute probe flops per second.
struct Probe {
    SuiteKernel kernel;
    ProbeRounds epochs;
    double units_per_call = 0;     // bytes (memory, cache, core) or flops (compute) per call
    std::uint64_t repetitions = 0; // calibrated by the first epoch, then fixed so every epoch is alike
};

// The kind of probe for a calibration loop resident in `level`: memory, a cache shared by several cores
// ("cache", the L3 of these VMs: its neighbours are not memory's, so memory's moves must not judge its rows),
// or a private cache ("core").
std::string resident_kind(const core::Machine& m, const std::string& level) {
    if (level == "MEM")
        return "memory";
    return core::machine_noise_kind(m, level) == "memory" ? "cache" : "core";
}

bool has_probe(const std::vector<Probe>& probes, const std::string& kind) {
    return std::any_of(probes.begin(), probes.end(), [&](const Probe& p) { return p.epochs.kind == kind; });
}

// The probes: memory (the first memory-resident calibration loop, the copy with fewest flops), cache (the
// first one resident in a shared cache, a read with fewest flops), core (the first L2-resident one) and
// compute (the last L2-resident one, the most multiply-adds per byte: compute-bound, so it sees a core shared
// with a neighbour or a lower clock as the FMA-bound kernels do, which the data probes do not).
std::vector<Probe> reference_probes(const BenchOptions& o, const core::Machine& m, int threads) {
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
    for (auto& k : suite_catalogue(m, threads, o.machine_file)) {
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
        take(std::move(k), kind, bytes);
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
// the overlap loops, which stream from it), else the mixed (or hierarchical) prediction's bottleneck.
std::string bounding_level(const SuiteKernel& k, const core::KernelResult& r) {
    if (k.suite == "calibrate")
        return k.overlap_reuses > 0 ? "MEM" : k.resident_level;
    const core::Prediction* p = core::find_prediction(r, "mixed");
    if (!p)
        p = core::find_prediction(r, "hierarchical");
    return p ? p->bottleneck : "compute";
}

// Each row's fraction of its bound round by round (experiment/round_verdict.hpp), from `epochs` (each row's
// epochs of the rounds); a probe's best level is the median of its three best units over the run, as a roof
// is chosen. A mixed or hierarchical bound with its compute term is judged term by term: each level's time
// scaled by the probe of that level's resource (memory, a shared cache, a private cache), the compute term by
// the compute probe, and recombined with the machine's exponents (the max for the hierarchical roofline); any
// other row, or a term whose resource has no probe, against the probe of its kind alone.
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

int bench_threads(const BenchOptions& o, const core::Machine& m) {
    if (o.threads < 0)
        throw core::InputError("", "threads",
                               "expected a thread count >= 1, got " + std::to_string(o.threads));
    if (o.threads > 0)
        return o.threads;
    // Every core of the machine file, but no more than this host can run at once (a machine file
    // written by hand may describe a larger machine).
    const int here = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (m.topology && m.topology->cores > 0)
        return std::min(m.topology->cores, here);
    return here;
}

std::vector<SuiteKernel> select_kernels(const BenchOptions& o, const core::Machine& m, int threads) {
    const bool all = o.suite == "all";
    if (!all && std::find(k_suite_names.begin(), k_suite_names.end(), o.suite) == k_suite_names.end())
        throw core::InputError("", "suite",
                               "unknown suite '" + o.suite + "'; valid: " +
                                   fmt::format("{}", fmt::join(k_suite_names, ", ")) + ", all");
    std::vector<SuiteKernel> cat = suite_catalogue(m, threads, o.machine_file);
    std::vector<SuiteKernel> out;
    if (!o.kernel.empty()) {
        for (auto& k : cat)
            if (k.name == o.kernel)
                out.push_back(std::move(k));
        if (out.empty()) {
            std::vector<std::string> names;
            for (const auto& k : cat)
                names.push_back(k.name);
            throw core::InputError("", "kernel",
                                   "unknown kernel '" + o.kernel +
                                       "'; valid: " + fmt::format("{}", fmt::join(names, ", ")));
        }
        return out;
    }
    for (auto& k : cat)
        if (k.suite == "calibrate" && (all || o.suite == "calibrate"))
            out.push_back(k);
    for (auto& k : cat)
        if (k.suite != "calibrate" && (all || o.suite == k.suite))
            out.push_back(k);
    return out;
}

BenchReport run_bench(const BenchOptions& o, const core::Machine& m, const Progress& progress) {
    BenchReport rep;
    rep.threads = bench_threads(o, m);
    const std::vector<SuiteKernel> kernels = select_kernels(o, m, rep.threads);
    const int rounds = rounds_for(o);
    const auto stat_before = measure::read_proc_stat(); // steal time over the suite (judge_host)
    measure::suite::SuiteOptions so;
    so.threads = rep.threads;
    so.harness = harness_for(o.quick);
    // Interleaved rounds: every round runs each kernel once, so the samples of every kernel (the
    // calibration loops included) span the whole run. On a shared host whose memory bandwidth moves
    // within a minute, the calibrated figures and the kernels they predict then see the same
    // conditions; one pass in suite order would calibrate in one state of the host and measure the
    // family in another.
    std::vector<std::vector<double>> samples(kernels.size());
    std::vector<std::optional<double>> imbalance(kernels.size());
    measure::suite::Workspace ws;
    std::vector<Probe> probes = o.probes ? reference_probes(o, m, rep.threads) : std::vector<Probe>{};
    measure::suite::Workspace probe_ws;
    // Extra rounds of unsettled kernels (experiment/round_settle.hpp) add to `extra`, outside the rounds'
    // layout.
    std::vector<std::vector<double>> extra(kernels.size());
    std::vector<std::vector<double>> round_best(kernels.size());
    const auto measure_kernel = [&](std::size_t i, std::vector<double>& into) {
        const measure::suite::Measurement run = kernels[i].run(so, ws);
        const core::Summary& t = run.seconds_per_call;
        into.insert(into.end(), t.samples.begin(), t.samples.end());
        round_best[i].push_back(t.min);
        if (run.thread_imbalance)
            imbalance[i] =
                imbalance[i] ? std::min(*imbalance[i], *run.thread_imbalance) : *run.thread_imbalance;
    };
    const measure::Clock now = measure::steady_clock();
    const double pass_start = now();
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            run_probes(probes, round, o.quick, rep.threads, probe_ws);
            if (progress)
                progress(rounds > 1 ? fmt::format("[round {}/{}] [{}/{}] {}", round + 1, rounds, i + 1,
                                                  kernels.size(), kernels[i].name)
                                    : fmt::format("[{}/{}] {}", i + 1, kernels.size(), kernels[i].name));
            measure_kernel(i, samples[i]);
        }
        run_probes(probes, round, o.quick, rep.threads, probe_ws); // closes the round: after its last kernel
    }
    const double pass_seconds = now() - pass_start;
    const RoundSettleCap cap = o.settle ? round_settle_cap(o.quick) : RoundSettleCap{0, 0.0};
    int extra_rounds = 0;
    const double extra_start = now();
    while (another_round(cap, extra_rounds, now() - extra_start, pass_seconds)) {
        const std::vector<std::size_t> todo = unsettled_kernels(round_best);
        if (todo.empty())
            break;
        ++extra_rounds;
        for (std::size_t j = 0; j < todo.size(); ++j) {
            if (progress)
                progress(fmt::format("[settling {}] [{}/{}] {}", extra_rounds, j + 1, todo.size(),
                                     kernels[todo[j]].name));
            measure_kernel(todo[j], extra[todo[j]]);
        }
    }
    std::vector<core::Summary> times;
    times.reserve(kernels.size());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        std::vector<double> all = samples[i];
        all.insert(all.end(), extra[i].begin(), extra[i].end());
        auto t = core::summarize(all);
        if (!t)
            throw std::runtime_error("kernel " + kernels[i].name + " returned no timing samples");
        times.push_back(std::move(*t));
    }
    // Calibrate first, then compare every kernel with the calibrated machine.
    core::Machine machine = m;
    std::vector<core::KernelResult> calib_results;
    std::vector<SuiteKernel> calib_kernels;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        if (kernels[i].suite != "calibrate")
            continue;
        calib_kernels.push_back(kernels[i]);
        calib_results.push_back(compare_kernel(kernels[i].spec, kernels[i].suite, rep.threads, times[i], m));
    }
    if (!calib_kernels.empty()) {
        rep.calibration = calibrate(calibration_points(calib_kernels, calib_results),
                                    overlap_points(calib_kernels, calib_results));
        rep.calibration->threads = rep.threads;
        apply_calibration(machine, *rep.calibration, o.machine_file);
        machine.source = core::Provenance::calibrated;
    }
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        if (kernels[i].suite == "calibrate") {
            // A calibration loop is judged, as every kernel, against the calibration measured beside it in
            // this run (issue 22 §4): its prediction shows how well the fitted figures explain it, not how
            // far the host moved since the machine file's calibration.
            rep.results.kernels.push_back(
                compare_kernel(kernels[i].spec, kernels[i].suite, rep.threads, times[i], machine));
            rep.results.kernels.back().role = "calibration";
        } else {
            core::KernelResult r =
                compare_kernel(kernels[i].spec, kernels[i].suite, rep.threads, times[i], machine);
            r.role = kernels[i].untuned ? "untuned" : "validation";
            r.thread_imbalance = imbalance[i];
            r.notes.insert(r.notes.end(), kernels[i].notes.begin(), kernels[i].notes.end());
            // Below its bound: the compiled loop joins the evidence (one objdump of the runner's body), and
            // so does the same body's time with its arrays in L2 where the catalogue has that instance.
            std::optional<CodeEvidence> code;
            if (const auto f = fraction_of_bound(r); f && *f < k_diagnosis_fraction) {
                if (!kernels[i].code_symbol.empty())
                    code = code_evidence(kernels[i].code_symbol);
                if (kernels[i].run_in_cache && kernels[i].in_cache_iterations > 0)
                    r.in_cache_seconds =
                        kernels[i].run_in_cache(so, ws).seconds_per_call.min / kernels[i].in_cache_iterations;
            }
            diagnose_kernel(r, kernels[i].spec, machine, code);
            rep.results.kernels.push_back(std::move(r));
        }
    }
    if (o.settle)
        for (std::size_t i = 0; i < kernels.size(); ++i)
            rep.results.kernels[i].settle =
                core::RoundSettle{static_cast<int>(round_best[i].size()), round_settled(round_best[i])};
    std::vector<std::pair<std::optional<double>, std::string>> moved(kernels.size());
    if (!probes.empty()) {
        std::vector<std::string> kinds;
        std::vector<ProbeRounds> probe_rounds;
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            const std::string level = bounding_level(kernels[i], rep.results.kernels[i]);
            std::string kind = level == "compute" ? "compute" : resident_kind(machine, level);
            if (!has_probe(probes,
                           kind)) // no probe of its own kind: memory for a shared cache, core for compute
                kind = level == "compute" ? "core" : core::machine_noise_kind(machine, level);
            kinds.push_back(kind);
        }
        for (const auto& p : probes)
            probe_rounds.push_back(p.epochs);
        // The noise statistics compare rows with their probes round by round: they see the run's rounds
        // (`samples`) only, not the extra rounds of settling, which have no probes beside them.
        rep.results.host_noise =
            assess_noise(rep.results.kernels, kinds, probe_rounds, static_cast<std::size_t>(rounds), samples);
        if (rounds >= 2) {
            round_verdicts(rep.results.kernels, kinds, probe_rounds, static_cast<std::size_t>(rounds),
                           samples, machine);
            for (std::size_t i = 0; i < kernels.size(); ++i)
                moved[i] = probe_moved(probes, kinds[i], i);
        }
    }
    // Three-valued verdicts: causes are named for a kernel whose whole interval lies below its bound only.
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        core::KernelResult& r = rep.results.kernels[i];
        if (r.role == "calibration")
            continue;
        r.verdict = kernel_verdict(r, k_diagnosis_fraction, moved[i].first, moved[i].second);
        if (r.verdict && r.verdict->state != "below")
            r.diagnosis.clear();
    }
    rep.results.roofcast_version = k_version;
    rep.results.created = core::utc_now_iso8601();
    rep.results.machine = machine;
    rep.results.accuracy = accuracy_summary(rep.results.kernels);
    const auto stat_after = measure::read_proc_stat();
    rep.results.host = judge_host(
        stat_before && stat_after ? measure::steal_fraction(*stat_before, *stat_after) : std::nullopt,
        rep.results.host_noise, machine);
    const FamilySwitch sw = family_switch(kernels, rep.results.kernels);
    if (!sw.members.empty())
        rep.mixed_switch = sw;
    rep.results.notes.push_back(fmt::format("{} threads; {}; {} interleaved round{}", rep.threads,
                                            o.quick ? "quick run" : "full run", rounds,
                                            rounds == 1 ? "" : "s"));
    if (o.settle)
        rep.results.notes.push_back(settle_note(kernels, round_best, rounds, extra_rounds));
    return rep;
}

} // namespace roofcast::model
