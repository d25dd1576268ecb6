// The diagnosis rules (experiment/diagnosis.hpp, docs/diagnosis.md): each rule looks at its evidence, says it
// checked it, and names a cause where the evidence explains a kernel below k_diagnosis_fraction of its bound.
// diagnose() applies them in this order; the last names the kernel unexplained when none fired.
#include "experiment/diagnosis.hpp"

#include "core/units.hpp"
#include "model/calibration.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace roofcast::model {

namespace {

std::string percent_of(double x) {
    return fmt::format("{:.0f} %", 100.0 * x);
}

void drift_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                std::vector<std::string>& checked) {
    // The bound itself: a memory bandwidth calibrated in one minute of a run and a kernel measured in another
    // see different memory on a shared host (issue 22; docs/noise.md). Named where the calibrated figure is
    // more than k_memory_drift_limit times the machine run's measurement for the kernel's access mix and the
    // kernel, held against that measurement instead, reaches k_diagnosis_fraction of its prediction.
    if (e.memory_calibrated_gbs && e.memory_measured_gbs && *e.memory_measured_gbs > 0 &&
        e.fraction_with_measured_memory) {
        checked.push_back("calibrated against measured memory bandwidth");
        const double ratio = *e.memory_calibrated_gbs / *e.memory_measured_gbs;
        if (!(ratio > k_memory_drift_limit && *e.fraction_with_measured_memory >= k_diagnosis_fraction))
            return;
        // Copy loops that disagree among themselves (the calibration's own "wide") saw memory move within the
        // run, not only since the machine file.
        const std::optional<double> hw = e.memory_calibrated_half_width_gbs;
        const std::string why =
            hw && wide_calibration(*e.memory_calibrated_gbs, *hw)
                ? fmt::format(
                      "the copy loops themselves disagreed (± {:.1f} GB/s, 95 %): memory moved while the "
                      "suite ran, and the calibration took its faster minutes",
                      *hw)
                : std::string("memory moved between the two measurements");
        out.push_back(
            {"memory-drift",
             fmt::format("at {} of its bound against the machine file's {:.1f} GB/s of memory, where its "
                         "prediction took {:.1f} GB/s from the suite's copy loops ({:.2f} x; the file's "
                         "figure: {}{}): {}",
                         percent_of(*e.fraction_with_measured_memory), *e.memory_measured_gbs,
                         *e.memory_calibrated_gbs, ratio, e.memory_measured_source,
                         e.memory_measured_when.empty() ? "" : ", measured " + e.memory_measured_when, why),
             ratio, k_memory_drift_limit});
    }
}

void set_conflict_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                       std::vector<std::string>& checked) {
    // Cache thrashing (Minami et al. §6: program A's L1 miss ratio; Hager & Wellein §3.3): more streams in
    // one set than the set has ways evict each other's lines before the next element of a line is used.
    for (const auto& s : e.sets) {
        checked.push_back(s.level + " sets");
        if (s.associativity > 0 && s.streams_per_set > s.associativity)
            out.push_back({"cache-conflict",
                           fmt::format("{} streams of the innermost loop map into one {} set of {} ways "
                                       "(arrays or rows a multiple of {} apart, arrays taken as equally "
                                       "aligned as large allocations are); pad the leading dimension or "
                                       "merge arrays",
                                       s.streams_per_set, s.level, s.associativity,
                                       s.span_bytes > 0 ? core::format_size(s.span_bytes) : "the set span"),
                           s.streams_per_set, s.associativity});
    }
}

void stream_capacity_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                          std::vector<std::string>& checked) {
    // Concurrent streams beyond what the memory system sustains (the machine's stream-capacity curve).
    if (e.streams && e.stream_capacity) {
        checked.push_back("stream capacity");
        // Named only where the bandwidth lost at that stream count alone would put a kernel below
        // k_diagnosis_fraction of a bound: a few per cent past the knee explain nothing.
        // Too few streams as well: at or below the capacity a count that reaches less than
        // k_diagnosis_fraction of the best lies below the curve's knee, where the memory system has fewer
        // requests in flight than it needs (Little's law: bandwidth = bytes in flight / latency).
        // Either way the loss must lie beyond the curve's own spread: a best point that a burst of the host
        // lifted (its range clear of its neighbours' medians, their ranges reaching it) explains nothing.
        const bool beyond_spread =
            !e.capacity_upper_fraction || *e.capacity_upper_fraction < k_diagnosis_fraction;
        if (*e.streams <= *e.stream_capacity && e.capacity_fraction &&
            *e.capacity_fraction < k_diagnosis_fraction && beyond_spread)
            out.push_back(
                {"stream-capacity",
                 fmt::format(
                     "the innermost loop runs {} concurrent stream{}; {} delivers {} of its best "
                     "bandwidth at that count{}, fewer requests in flight than it needs (its best comes "
                     "with more streams, up to {}); split the loop into independent blocks or prefetch",
                     *e.streams, *e.streams == 1 ? "" : "s", e.capacity_level,
                     percent_of(*e.capacity_fraction),
                     e.capacity_upper_fraction ? fmt::format(" (at most {} within the points' own ranges)",
                                                             percent_of(*e.capacity_upper_fraction))
                                               : "",
                     *e.stream_capacity),
                 *e.capacity_fraction, k_diagnosis_fraction});
        else if (*e.streams > *e.stream_capacity &&
                 (!e.capacity_fraction || (*e.capacity_fraction < k_diagnosis_fraction && beyond_spread)))
            out.push_back(
                {"stream-capacity",
                 fmt::format(
                     "the innermost loop runs {} concurrent streams; {} sustains {} at 90 % of its best "
                     "bandwidth{}; merge arrays or split the loop",
                     *e.streams, e.capacity_level, *e.stream_capacity,
                     e.capacity_fraction ? fmt::format(" and {} of it at {} streams",
                                                       percent_of(*e.capacity_fraction), *e.streams)
                                         : ""),
                 static_cast<double>(*e.streams), static_cast<double>(*e.stream_capacity)});
    }
}

void tlb_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
              std::vector<std::string>& checked) {
    // TLB thrashing (Minami et al. §6): more pages in flight than first-level TLB entries.
    if (e.pages && e.tlb_entries) {
        checked.push_back("TLB reach");
        if (*e.pages > *e.tlb_entries)
            out.push_back(
                {"tlb-reach",
                 fmt::format("the innermost loop touches {} distinct 4 KiB pages per iteration; the "
                             "first-level data TLB holds {}{}",
                             *e.pages, *e.tlb_entries,
                             e.huge_pages == "always"
                                 ? ""
                                 : " (transparent huge pages: " +
                                       (e.huge_pages.empty() ? std::string("unknown") : e.huge_pages) + ")"),
                 static_cast<double>(*e.pages), static_cast<double>(*e.tlb_entries)});
    }
}

void code_rules(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                std::vector<std::string>& checked) {
    if (e.code) {
        const CodeEvidence& c = *e.code;
        checked.push_back("disassembly of " + c.function);
        // Only where FP issue matters: with the flops at the code's own ceiling taking under half the time,
        // a narrower width or a missing FMA cannot explain the shortfall.
        const bool fp_matters = !e.fp_share || (*e.fp_share >= k_code_share && *e.fp_share <= 1.1);
        if (fp_matters && c.fp_scalar + c.fp_vector > 0 && e.machine_vector_bits > 0 &&
            std::max(64, c.vector_bits) < e.machine_vector_bits)
            out.push_back({"vector-width",
                           fmt::format("the compiled loop's FP arithmetic is {} ({} scalar, {} packed "
                                       "instructions); the machine offers {}-bit vectors",
                                       c.vector_bits == 0 ? std::string("scalar")
                                                          : fmt::format("{}-bit at widest", c.vector_bits),
                                       c.fp_scalar, c.fp_vector, e.machine_vector_bits),
                           static_cast<double>(std::max(64, c.vector_bits)),
                           static_cast<double>(e.machine_vector_bits)});
        if (fp_matters && c.fma == 0 && c.mul > 0 && c.add > 0)
            out.push_back(
                {"fp-mix",
                 fmt::format("no FMA in the loop: {} multiplies and {} adds issue separately, half the "
                             "FMA peak at best",
                             c.mul, c.add),
                 static_cast<double>(c.fma), static_cast<double>(std::min(c.mul, c.add))});
        if (c.gathers > 0)
            out.push_back({"gather",
                           fmt::format("{} gather instruction{} per pass: indirect loads run far below the "
                                       "unit-stride load ceiling",
                                       c.gathers, c.gathers == 1 ? "" : "s"),
                           static_cast<double>(c.gathers), 0.0});
    }
}

void in_core_share_rules(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                         std::vector<std::string>& checked) {
    // In-core limits (Williams et al. §4 in-core ceilings): a resource that alone takes most of the time.
    if (e.l1_share) {
        checked.push_back("L1 loads/stores");
        if (*e.l1_share >= k_in_core_share)
            out.push_back(
                {"in-core",
                 fmt::format("the loop's L1 loads and stores at the measured L1 bandwidth take {} of "
                             "its time: register blocking would cut them",
                             percent_of(*e.l1_share)),
                 *e.l1_share, k_in_core_share});
    }
    // A share above 1 means the measured loop ran faster than that ceiling allows: the inspected code is
    // not what ran (another clone, a different path), so it proves nothing either way.
    if (e.fp_share && *e.fp_share <= 1.1) {
        checked.push_back("FP issue");
        if (*e.fp_share >= k_in_core_share)
            out.push_back({"in-core",
                           fmt::format("its flops at the {} ceiling take {} of its time", e.fp_ceiling,
                                       percent_of(*e.fp_share)),
                           *e.fp_share, k_in_core_share});
    }
}

void under_ceiling_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                        std::vector<std::string>& checked) {
    // Williams et al. §4: a kernel close under an in-core ceiling below the peak is held there by what
    // that ceiling leaves out (ILP, SIMD, FMA).
    // Skipped where the FP-issue rule above already names the compute limit.
    const bool fp_fired = e.fp_share && *e.fp_share >= k_in_core_share && *e.fp_share <= 1.1;
    // Needs the compiled loop: a compute ceiling of about the kernel's height is otherwise a coincidence
    // of numbers, not evidence.
    if (e.code && e.under_share && !e.under_ceiling.empty() && !fp_fired) {
        checked.push_back("ceilings");
        if (*e.under_share >= k_in_core_share) {
            const std::string& n = e.under_ceiling;
            // The compiled loop, where known, says which omission it is; the ceiling's name otherwise. A
            // full-width FMA loop says more with its accumulators counted against those the FMA latency
            // needs (Williams et al. §4: the ILP ceiling): too few is a dependency chain; none carried leaves
            // the passes free to overlap, so loads and stores (or an update through memory) hold it; enough
            // clears the loop itself.
            const bool fma_loop = e.code && e.code->vector_bits > 0 && e.code->fma > 0;
            const bool chains_known = fma_loop && e.fma_chains_needed && *e.fma_chains_needed > 0;
            const std::string why =
                chains_known && e.code->fma_chains >= *e.fma_chains_needed
                    ? fmt::format(
                          "its innermost loop is {}-bit with FMA into {} independent accumulators, as "
                          "many as the {} that hide the FMA latency here (the FMA ceiling over the "
                          "one-chain ceiling), so neither a dependency chain nor the loop's width holds "
                          "it: the work around that loop (packing, edge blocks, loading and storing "
                          "results) or its {} loads per {} FMAs do",
                          e.code->vector_bits, e.code->fma_chains, *e.fma_chains_needed, e.code->loads,
                          e.code->fma)
                : chains_known && e.code->fma_chains > 0
                    ? fmt::format(
                          "its loop is {}-bit with FMA into only {} accumulator(s), where {} hide the "
                          "FMA latency here: a dependency chain holds it; more independent "
                          "accumulators (unroll, register blocking)",
                          e.code->vector_bits, e.code->fma_chains, *e.fma_chains_needed)
                : chains_known
                    ? fmt::format("its loop is {}-bit with FMA and carries no FMA accumulator from one "
                                  "pass to the next, so no register dependency chain holds it: its {} loads "
                                  "and {} store(s) per pass do, or a value stored in one pass and loaded "
                                  "again in the next (an update through memory): fewer loads per FMA "
                                  "(register blocking, merged arrays)",
                                  e.code->vector_bits, e.code->loads, e.code->stores)
                : fma_loop
                    ? fmt::format("its loop is {}-bit with FMA, so a dependency chain (an accumulator, or an "
                                  "update through memory each iteration) or its loads and stores hold it: "
                                  "independent accumulators or register blocking",
                                  e.code->vector_bits)
                : e.code && e.code->vector_bits == 0 && e.code->fp_scalar > 0
                    ? "scalar code: vectorise the loop"
                // Without the compiled loop: what that ceiling leaves out, as a lead, not a finding.
                : n.find("without ILP") != std::string::npos
                    ? "that ceiling leaves out instruction-level parallelism (look for a dependency chain)"
                : n.find("scalar") != std::string::npos
                    ? "that ceiling leaves out SIMD (look for scalar code)"
                : n.find("without FMA") != std::string::npos
                    ? "that ceiling leaves out FMA (look for unfused multiplies and adds)"
                    : "that ceiling leaves out the widest vectors";
            out.push_back({"in-core",
                           fmt::format("it runs at {} of the {} ceiling, the lowest ceiling above it: {}",
                                       percent_of(*e.under_share), n, why),
                           *e.under_share, k_in_core_share});
        }
    }
}

void in_cache_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                   std::vector<std::string>& checked) {
    // The same body with its arrays in L2: a loop nearly as slow there is held by its in-core work and its L1
    // and L2 transfers; one whose in-cache time and memory term add up to its measured time (within the
    // diagnosis' 85 %, either way) has the two not overlapping, as the ECM model composes a core's time
    // (Stengel, Treibig, Hager & Wellein, ICS 2015, Sect. 2: T = max(T_OL, T_nOL + T_L1L2 + T_L2L3 +
    // T_L3Mem)), where the mixed model's calibrated overlap lets the larger hide the smaller.
    if (e.in_cache_seconds && e.measured_seconds > 0) {
        checked.push_back("in-cache time");
        const double share = *e.in_cache_seconds / e.measured_seconds;
        const double added = (*e.in_cache_seconds + e.memory_seconds) / e.measured_seconds;
        if (share >= k_in_core_share)
            out.push_back(
                {"in-core",
                 fmt::format("its in-core work and L1/L2 transfers hold it, not memory: with its arrays in "
                             "L2 the loop still takes {:.3g} ns per iteration, {} of its {:.3g} ns here",
                             *e.in_cache_seconds * 1e9, percent_of(share), e.measured_seconds * 1e9),
                 share, k_in_core_share});
        else if (e.memory_seconds > 0 && added >= k_diagnosis_fraction && added <= 1.0 / k_diagnosis_fraction)
            out.push_back(
                {"in-core",
                 fmt::format(
                     "its in-core work and L1/L2 transfers hide little behind its memory transfers: with "
                     "its arrays in L2 the loop takes {:.3g} ns per iteration, with memory's term "
                     "({:.3g} ns) {} of its {:.3g} ns here, as the ECM model adds them; fewer "
                     "instructions and less L1/L2 traffic per iteration gain about as much as memory "
                     "bandwidth would",
                     *e.in_cache_seconds * 1e9, e.memory_seconds * 1e9, percent_of(added),
                     e.measured_seconds * 1e9),
                 added, k_diagnosis_fraction});
    }
}

void imbalance_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                    std::vector<std::string>& checked) {
    if (e.imbalance) {
        checked.push_back("per-thread times");
        if (*e.imbalance > k_imbalance_limit)
            out.push_back({"load-imbalance",
                           fmt::format("the slowest thread is busy {:.2f} x the mean", *e.imbalance),
                           *e.imbalance, k_imbalance_limit});
    }
}

void overlap_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                  std::vector<std::string>& checked) {
    // Partial overlap (model/overlap.hpp): the measured time lies between the largest of the mixed model's
    // terms and their sum, where only the overlap exponent decides; the calibration loops' p puts the
    // prediction near the largest term, the kernel's own terms combine as if p were lower. Its transfers
    // between levels serialise more than the calibration loops' (Hofmann et al. 2020, Sect. 3: which parts
    // overlap is a property of machine and code): every level's term then adds to its time, so shortening
    // the inner levels' terms (blocking that keeps the reuse in L1 or L2) gains as much as memory bandwidth.
    if (e.overlap_calibrated && e.measured_seconds > 0) {
        checked.push_back("term overlap");
        if (e.overlap_equivalent && *e.overlap_equivalent < *e.overlap_calibrated) {
            const std::string calibrated =
                e.overlap_calibrated_high
                    ? fmt::format("p = {:.2f} (95 % interval {:.2f}-{:.2f})", e.overlap_fitted,
                                  *e.overlap_calibrated, *e.overlap_calibrated_high)
                    : fmt::format("p = {:.2f} (at least {:.2f})", e.overlap_fitted, *e.overlap_calibrated);
            out.push_back(
                {"overlap",
                 fmt::format(
                     "its measured {:.3g} ns per iteration lies between its largest term ({} {:.3g} ns) "
                     "and the sum of its terms ({:.3g} ns): they overlap as if p = {:.2f}, where the "
                     "calibration loops give {}; its transfers between levels serialise more than "
                     "theirs, so every level's traffic adds to its time and keeping reuse closer to the "
                     "core gains as much as memory bandwidth would",
                     e.measured_seconds * 1e9, e.largest_term, e.largest_seconds * 1e9,
                     e.terms_sum_seconds * 1e9, *e.overlap_equivalent, calibrated),
                 *e.overlap_equivalent, *e.overlap_calibrated});
        }
    }
}

void memory_rate_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                      std::vector<std::string>& checked) {
    // Memory's own part (the ECM composition again, Stengel et al. 2015, Sect. 2, with nothing overlapping):
    // the time the loop takes beyond its in-cache time is the most its memory transfers can have taken, so
    // its bytes from memory over that time are the least rate they ran at. Below 85 % of the bandwidth the
    // bound used, its memory transfers themselves run slower than the calibration loops' even where no other
    // part of its time hides behind them: the access pattern (block or page boundaries the prefetchers stop
    // at, streams started and ended per row) gets less from memory. Named where no other rule names a
    // cause: the stream-capacity, TLB and drift rules explain such a rate where their evidence does, and the
    // in-cache rule where the two times add up to the measured one (below that, under 85 % of it together,
    // memory's rate is under 85 % as well).
    if (out.empty() && e.in_cache_seconds && e.memory_seconds > 0 && e.memory_bytes > 0 &&
        e.measured_seconds > *e.in_cache_seconds) {
        checked.push_back("memory's part of the time");
        const double left = e.measured_seconds - *e.in_cache_seconds;
        const double rate = e.memory_seconds / left;
        if (rate < k_diagnosis_fraction)
            out.push_back(
                {"memory-rate",
                 fmt::format(
                     "its memory transfers run below the bandwidth of its bound even with nothing "
                     "overlapping: after its in-L2 time ({:.3g} ns) the {:.3g} ns left of its {:.3g} ns "
                     "per iteration move its {:.3g} B from memory at {:.1f} GB/s or more, {} of the "
                     "{:.1f} GB/s its bound used; its access pattern (block, row or page boundaries "
                     "that end the prefetchers' streams) draws less from memory than the calibration "
                     "loops'",
                     *e.in_cache_seconds * 1e9, left * 1e9, e.measured_seconds * 1e9, e.memory_bytes,
                     e.memory_bytes / left / 1e9, percent_of(rate), e.memory_bytes / e.memory_seconds / 1e9),
                 rate, k_diagnosis_fraction});
    }
}

void unexplained_rule(const DiagnosisEvidence& e, std::vector<core::Diagnosis>& out,
                      std::vector<std::string>& checked) {
    if (out.empty()) {
        std::string list;
        for (const auto& c : checked)
            list += (list.empty() ? "" : ", ") + c;
        out.push_back(
            {"unexplained",
             fmt::format("at {} of its prediction with no measured cause (checked: {})",
                         percent_of(e.fraction), list.empty() ? "nothing: no evidence available" : list),
             e.fraction, k_diagnosis_fraction});
    }
}

using Rule = void (*)(const DiagnosisEvidence&, std::vector<core::Diagnosis>&, std::vector<std::string>&);

// The rules in the order their causes are listed; the catch-all, which names what the others checked, last.
constexpr std::array<Rule, 12> k_rules = {drift_rule,         set_conflict_rule, stream_capacity_rule,
                                          tlb_rule,           code_rules,        in_core_share_rules,
                                          under_ceiling_rule, in_cache_rule,     imbalance_rule,
                                          overlap_rule,       memory_rate_rule,  unexplained_rule};

} // namespace

std::vector<core::Diagnosis> diagnose(const DiagnosisEvidence& e) {
    std::vector<core::Diagnosis> out;
    if (e.fraction >= k_diagnosis_fraction)
        return out;
    std::vector<std::string> checked;
    for (const Rule rule : k_rules)
        rule(e, out, checked);
    return out;
}

} // namespace roofcast::model
