// The theoretical peak of a compute run and the judgement of one ceiling against its op's peak: the parts
// of measure/compute.hpp that only compute (no timing). The figures come from fp_peak.hpp's one rule.
#include "measure/compute.hpp"

#include "core/error.hpp"
#include "measure/fp_peak.hpp"
#include "measure/peak_kernels.hpp"

#include <cmath>
#include <fmt/format.h>

namespace roofcast::measure {

namespace {

int lanes_of(const core::ComputeCeiling& c) {
    const PeakKernel* k = find_peak_kernel(c.isa, c.precision, c.op);
    if (k == nullptr)
        throw core::InputError(
            "", "isa",
            fmt::format("no {} {} {} kernel (ISA, precision or op unknown)", c.isa, c.precision, c.op));
    return k->decl.lanes;
}

std::string label(const core::ComputeCeiling& c) {
    return fmt::format("{} {} {}, {} thread{}", c.precision, c.isa, c.op, c.threads,
                       c.threads == 1 ? "" : "s");
}

std::string rate_text(const IssueRate& r) {
    return r.lo == r.hi ? fmt::format("{:g}", r.hi) : fmt::format("{:g}-{:g}", r.lo, r.hi);
}

std::string rates_text(const FpIssue& f, const std::string& isa) {
    return fmt::format("{} FMA, {} add, {} mul per cycle on {} ({} add or mul at once)", rate_text(f.fma),
                       rate_text(f.add), rate_text(f.mul), isa, rate_text(f.add_or_mul));
}

// The widest ISA with an FMA ceiling and, among its FMA ceilings (every precision and thread count), the
// best epoch in FMA units' worth (flops per core and cycle over the lanes x 2 flops one unit retires):
// interference on a shared host only ever lowers a rate, so the best epoch is the least disturbed.
struct FmaProbe {
    std::size_t index = 0;
    double units = 0; // 0: no FMA ceiling was measured
};
FmaProbe best_fma_epoch(const ComputeResult& r) {
    FmaProbe p;
    for (auto it = r.isas.rbegin(); it != r.isas.rend() && p.units <= 0; ++it)
        for (std::size_t i = 0; i < r.ceilings.size(); ++i) {
            const core::ComputeCeiling& c = r.ceilings[i];
            if (c.isa != *it || c.op != "fma")
                continue;
            const double x = r.best_flops_per_cycle[i] / (2.0 * lanes_of(c));
            if (x > p.units)
                p = {i, x};
        }
    return p;
}

// FMA units inferred from the best epoch, for a CPU without a documented count: the nearest whole number
// (2 from a ratio of 1.5). Interference lowers a rate, but the cycles are counted with the clock probed
// around the epoch, not during it, and the best epoch is the one whose clock was most underestimated: one
// 512-bit unit (two 256-bit halves on AMD Zen 4) read above 1.05 units' worth in one or more of five runs on
// a shared host, and a "clearly above 1 means two" rule doubled the peak there.
int inferred_units(double ratio) {
    return ratio >= 1.5 ? 2 : 1;
}

// Sets r.fma_units for `isa` (documented, clamped to a documented range, or inferred) and notes how.
// Returns false (with a note) where no count can be had.
bool settle_fma_units(ComputeResult& r, const std::string& isa, const std::optional<FpIssue>& doc,
                      const FmaProbe& probe) {
    const bool measured = probe.units > 0;
    const std::string measured_text = measured
                                          ? fmt::format("the second-best epoch of {}, {:.2f} units' worth",
                                                        label(r.ceilings[probe.index]), probe.units)
                                          : std::string("no FMA ceiling measured");
    if (doc && doc->fma.lo == doc->fma.hi) {
        r.fma_units = static_cast<int>(doc->fma.hi);
        r.notes.push_back(fmt::format("fma_units = {}: documented for {} on {} ({}; {}); measured: {}",
                                      r.fma_units, doc->core, isa, describe(r.cpu), doc->source,
                                      measured_text));
        return true;
    }
    if (!measured) {
        r.notes.push_back(
            fmt::format("theoretical peak: not derived, no FMA ceiling was measured (include op "
                        "'fma') and {} has no documented FMA count on {}",
                        describe(r.cpu), isa));
        return false;
    }
    const int guess = inferred_units(probe.units);
    if (doc) {
        r.fma_units = std::clamp(guess, static_cast<int>(doc->fma.lo), static_cast<int>(doc->fma.hi));
        r.notes.push_back(fmt::format("fma_units = {}: {} has {} FMA units per core on {} by model ({}); "
                                      "chosen by {}",
                                      r.fma_units, doc->core, rate_text(doc->fma), isa, doc->source,
                                      measured_text));
    } else {
        r.fma_units = guess;
        const core::ComputeCeiling& pc = r.ceilings[probe.index];
        r.notes.push_back(
            fmt::format("fma_units = {}: inferred from the second-best epoch of {}, {:.1f} flops per core "
                        "and cycle = {:.2f} x the {} flops of one unit ({} is not in the table of "
                        "documented FP rates, and CPUID does not report FMA units)",
                        r.fma_units, label(pc), probe.units * 2 * lanes_of(pc), probe.units, 2 * lanes_of(pc),
                        describe(r.cpu)));
    }
    if (std::fabs(probe.units - r.fma_units) > 0.1)
        r.notes.push_back(fmt::format("fma_units: the best FMA epoch is {:.2f} units' worth, not close to a "
                                      "whole number; the host was probably busy and the theoretical peak may "
                                      "be off",
                                      probe.units));
    return true;
}

} // namespace

PeakJudgement judge_against_peak(const CpuIdentity& cpu, const core::ComputeCeiling& c,
                                 double best_flops_per_cycle) {
    PeakJudgement j;
    const int lanes = lanes_of(c);
    if (const auto doc = documented_fp_issue(cpu, c.isa)) {
        j.peak_flops_per_cycle = peak_flops_per_cycle(*doc, c.op, lanes);
        j.basis = fmt::format("documented for {} ({}): {}; {}", doc->core, describe(cpu),
                              rates_text(*doc, c.isa), doc->source);
    } else {
        const FpIssue bound = widest_fp_issue(c.isa);
        j.peak_flops_per_cycle = peak_flops_per_cycle(bound, c.op, lanes);
        j.basis =
            fmt::format("{} is not in the table of documented FP rates: the most any listed core issues, "
                        "{}",
                        describe(cpu), rates_text(bound, c.isa));
    }
    j.fraction = j.peak_flops_per_cycle > 0 ? best_flops_per_cycle / j.peak_flops_per_cycle : 0.0;
    return j;
}

// Theoretical peak = cores x SIMD lanes x 2 flops per FMA x FMA units per core x clock (the in-core peak of
// Williams, Waterman & Patterson, CACM 2009, section 4), on the widest ISA with an FMA ceiling (else the
// widest measured), at the run's median clock.
void derive_theoretical_peak(ComputeResult& r) {
    const FmaProbe probe = best_fma_epoch(r);
    if (r.isas.empty() || r.ceilings.empty()) {
        r.notes.push_back("theoretical peak: not derived, no ceiling was measured");
        return;
    }
    const std::string isa = probe.units > 0 ? r.ceilings[probe.index].isa : r.isas.back();
    const std::optional<FpIssue> doc = documented_fp_issue(r.cpu, isa);
    if (!settle_fma_units(r, isa, doc, probe))
        return;
    FpIssue used = doc.value_or(FpIssue{});
    used.fma = {static_cast<double>(r.fma_units), static_cast<double>(r.fma_units)};
    for (const std::string& prec : known_precisions()) {
        const PeakKernel* k = find_peak_kernel(isa, prec, "fma");
        r.peak_gflops[prec] = r.cores * peak_flops_per_cycle(used, "fma", k->decl.lanes) * r.clock_ghz.median;
    }
    for (std::size_t i = 0; i < r.ceilings.size(); ++i) {
        const core::ComputeCeiling& c = r.ceilings[i];
        const double best = r.best_flops_per_cycle[i];
        if (c.isa != isa || best <= 0)
            continue;
        // Measured / theoretical, both per core and cycle at the clock probed around the epoch; an op whose
        // peak is not documented for this CPU is judged only where it is an FMA (the units just settled).
        const bool known = doc.has_value() || c.op == "fma";
        if (known) {
            const double peak = peak_flops_per_cycle(used, c.op, lanes_of(c));
            r.notes.push_back(fmt::format(
                "{}: second-best epoch {:.2f} flops per core and cycle = {:.1f} % of the "
                "theoretical {:.0f} at the probed clock (best {:.1f} GFLOP/s){}",
                label(c), best, 100 * best / peak, peak, c.gflops.max,
                best > k_peak_margin * peak ? "; above the peak: the threads shared cores or the clock probe "
                                              "missed the clock the epoch ran at"
                                            : ""));
        }
        if (c.op == "chain" && c.threads == 1) {
            // The no-ILP chain runs at one FMA per FMA latency, so its rate in measured cycles is a second
            // check of the clock under vector load: it should be a whole number of cycles (4 on recent
            // Intel and AMD cores, Agner Fog, "Instruction tables").
            r.notes.push_back(fmt::format("{}: one dependent FMA every {:.2f} cycles (the FMA latency)",
                                          label(c), 2.0 * lanes_of(c) / best));
        }
    }
}

} // namespace roofcast::measure
