#include "experiment/diagnosis.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "measure/disasm.hpp"
#include "model/access_streams.hpp"
#include "model/bandwidth.hpp"
#include "model/calibration.hpp"
#include "model/model.hpp"
#include "model/overlap.hpp"
#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace roofcast::model {

namespace {

// The overlap evidence of a mixed prediction with a calibrated p: its data terms (every timed level), its
// compute term, the largest of them and their sum, and the exponent at which they give the measured time.
void overlap_evidence(DiagnosisEvidence& e, const core::Prediction& p, const core::Machine& m,
                      double measured) {
    if (p.model != "mixed" || !m.overlap_exponent)
        return;
    // The terms as the prediction combined them (overlap.hpp, data_terms), so pc applies as it did there.
    const DataTerms data = data_terms(p);
    if (data.seconds.empty())
        return;
    for (const auto& term : p.terms)
        if (term.seconds_per_iteration && *term.seconds_per_iteration > e.largest_seconds) {
            e.largest_seconds = *term.seconds_per_iteration;
            e.largest_term = term.level;
        }
    const double t_c = p.compute_seconds_per_iteration.value_or(0.0);
    if (t_c > e.largest_seconds) {
        e.largest_seconds = t_c;
        e.largest_term = "compute";
    }
    e.terms_sum_seconds = t_c;
    for (const double x : data.seconds)
        e.terms_sum_seconds += x;
    e.overlap_fitted = *m.overlap_exponent;
    e.overlap_calibrated = m.overlap_exponent_low.value_or(*m.overlap_exponent);
    if (m.overlap_exponent_low && m.overlap_exponent_high)
        e.overlap_calibrated_high = *m.overlap_exponent_high;
    e.overlap_equivalent =
        overlap_exponent_for(data.seconds, t_c, m.compute_overlap_exponent, measured, k_overlap_p_max,
                             CacheOverlap{m.cache_overlap_exponent, data.last_is_memory});
}

// The prediction's memory term, if it has one.
const core::LevelTerm* memory_term(const core::Prediction& p) {
    for (const auto& x : p.terms)
        if (x.level == "MEM")
            return &x;
    return nullptr;
}

// The memory-drift evidence of a prediction p whose memory term took the calibrated effective bandwidth: the
// machine run's measurement the bandwidth choice would take without it, and the bound predicted again with
// that.
void memory_drift_evidence(DiagnosisEvidence& e, const core::KernelResult& k, const core::Prediction& p,
                           const KernelSpec& spec, const core::Machine& m, double measured) {
    const core::Level* mem = m.level("MEM");
    if (!mem || !mem->effective_bandwidth_gbs)
        return;
    const core::LevelTerm* term = memory_term(p);
    if (!term || !term->seconds_per_iteration || !term->bandwidth_gbs ||
        !calibrated_source(term->bandwidth_source))
        return;
    core::Machine uncalibrated = m;
    for (auto& l : uncalibrated.levels)
        if (l.name == "MEM") {
            l.effective_bandwidth_gbs.reset();
            l.effective_bandwidth_half_width_gbs.reset();
        }
    PredictOptions po;
    po.threads = k.threads;
    po.models = {p.model};
    std::vector<core::Prediction> again;
    try {
        again = predict(spec, uncalibrated, po);
    } catch (const core::InputError&) {
        return; // no measured memory figure to hold the calibration against
    }
    if (again.empty() || !(again.front().seconds_per_iteration > 0))
        return;
    const core::LevelTerm* file_term = memory_term(again.front());
    if (!file_term || !file_term->bandwidth_gbs)
        return;
    e.memory_measured_gbs = *file_term->bandwidth_gbs;
    e.memory_measured_source = file_term->bandwidth_source;
    e.memory_calibrated_gbs = *term->bandwidth_gbs;
    e.memory_calibrated_half_width_gbs = mem->effective_bandwidth_half_width_gbs;
    e.memory_measured_when = m.created;
    e.fraction_with_measured_memory = again.front().seconds_per_iteration / measured;
}

} // namespace

std::optional<CodeEvidence> code_evidence(const std::string& symbol, std::string* why) {
    static const std::string self = measure::self_binary();
    const measure::CodeInspection ci = measure::inspect_function(self, symbol);
    if (ci.loops.empty()) {
        if (why)
            *why = ci.unavailable.empty() ? "no loop found in " + symbol : ci.unavailable;
        return std::nullopt;
    }
    const measure::LoopInspection& l = ci.loops.front();
    CodeEvidence c;
    const auto colon = symbol.rfind("::");
    c.function = (colon == std::string::npos ? symbol : symbol.substr(colon + 2)) + " (innermost loop)";
    c.vector_bits = l.vector_bits();
    for (const auto& [bits, count] : l.fp_by_width)
        (bits == 0 ? c.fp_scalar : c.fp_vector) += count;
    c.fma = l.fma;
    c.add = l.add;
    c.mul = l.mul;
    c.gathers = l.gathers;
    c.fma_chains = l.fma_chains;
    c.loads = l.loads;
    c.stores = l.stores;
    return c;
}

int machine_vector_bits(const core::Machine& m) {
    int bits = 0;
    if (m.topology)
        for (const auto& isa : m.topology->isa)
            bits = std::max(bits, core::isa_bits(isa));
    return bits;
}

std::vector<core::Ceiling> kernel_ceilings(const core::KernelResult& k, const core::Machine& m,
                                           std::optional<double> measured_gflops) {
    std::vector<core::Ceiling> compute, bandwidth;
    if (k.flops_per_iteration > 0) {
        bool exact = false;
        for (const auto& c : m.ceilings)
            exact = exact || (c.precision == k.precision && c.threads == k.threads);
        for (const auto& c : m.ceilings) {
            if (c.precision != k.precision || (c.op != "fma" && c.op != "addmul" && c.op != "chain"))
                continue;
            if (exact ? c.threads != k.threads : c.threads != 1)
                continue;
            const double scale = exact ? 1.0 : static_cast<double>(k.threads);
            const std::string what = c.op == "fma" ? "FMA" : c.op == "addmul" ? "without FMA" : "without ILP";
            compute.push_back(
                {fmt::format("{} {}", core::isa_label(c.isa), what), "compute", c.gflops.median * scale});
        }
        std::stable_sort(compute.begin(), compute.end(),
                         [](const auto& a, const auto& b) { return a.gflops > b.gflops; });
        for (const auto& [level, bytes] : k.bytes_per_iteration) {
            const core::Level* l = m.level(level);
            if (bytes <= 0 || !l || !l->bandwidth_gbs)
                continue;
            bandwidth.push_back(
                {level + " bandwidth", "bandwidth", *l->bandwidth_gbs * k.flops_per_iteration / bytes});
        }
        std::stable_sort(bandwidth.begin(), bandwidth.end(),
                         [](const auto& a, const auto& b) { return a.gflops > b.gflops; });
    }
    std::vector<core::Ceiling> out = compute;
    out.insert(out.end(), bandwidth.begin(), bandwidth.end());
    for (auto& c : out)
        c.above = measured_gflops && c.gflops > *measured_gflops;
    return out;
}

const core::Prediction* bound_prediction(const core::KernelResult& k) {
    return model::summary_prediction(
        k, [](const core::Prediction& p) { return p.valid && p.seconds_per_iteration > 0; });
}

std::optional<double> fraction_of_bound(const core::KernelResult& k) {
    const core::Prediction* p = bound_prediction(k);
    if (!p || !k.measured_seconds || k.iterations <= 0 || k.measured_seconds->min <= 0)
        return std::nullopt;
    return p->seconds_per_iteration / (k.measured_seconds->min / k.iterations); // best epoch, as the errors
}

namespace {

// The in-core ceiling a kernel sits under: the lowest ceiling above its measured rate, when that is a
// compute ceiling below the top one. Only for a kernel no bandwidth ceiling holds: near a level's
// bandwidth, a compute ceiling of similar height is a coincidence, not a cause.
void under_ceiling_evidence(DiagnosisEvidence& e, const std::vector<core::Ceiling>& ceilings,
                            std::optional<double> gflops) {
    const core::Ceiling* lowest = nullptr;
    double top_compute = 0;
    for (const auto& c : ceilings) {
        if (c.kind == "compute")
            top_compute = std::max(top_compute, c.gflops);
        if (c.above && (!lowest || c.gflops < lowest->gflops))
            lowest = &c;
    }
    double lowest_bandwidth = std::numeric_limits<double>::infinity();
    for (const auto& c : ceilings)
        if (c.kind == "bandwidth")
            lowest_bandwidth = std::min(lowest_bandwidth, c.gflops);
    if (lowest && gflops && lowest->kind == "compute" && lowest->gflops < top_compute &&
        *gflops < k_in_core_share * lowest_bandwidth) {
        e.under_ceiling = lowest->name;
        e.under_share = *gflops / lowest->gflops;
    }
}

// Streams against the capacity of the level the prediction says bounds the kernel (MEM when that is
// compute or a level without a capacity curve): reads against the read curve, else writes against the
// write curve.
void stream_capacity_evidence(DiagnosisEvidence& e, const StreamSummary& s, const core::Machine& m,
                              const core::Prediction& p) {
    std::string level = p.bottleneck;
    if (!m.stream_capacity_of(level, "read") && !m.stream_capacity_of(level, "write"))
        level = "MEM";
    for (const auto& [access, count] : {std::pair<std::string, int>{"read", s.reads}, {"write", s.writes}}) {
        const core::StreamCapacity* c = m.stream_capacity_of(level, access);
        if (!c || !c->capacity || count <= 0)
            continue;
        // The first access past its capacity; else the access at the lowest fraction of its best.
        const auto f = c->fraction_at(count);
        const bool over = count > *c->capacity;
        if (!e.streams || over || (f && (!e.capacity_fraction || *f < *e.capacity_fraction))) {
            e.streams = count;
            e.stream_capacity = *c->capacity;
            e.capacity_level = level + " (" + access + " streams)";
            e.capacity_fraction = f;
            e.capacity_upper_fraction = c->upper_fraction_at(count);
        }
        if (over)
            break;
    }
}

// The machine's page and set limits the loop's streams meet: the 4 KiB L1 TLB, the huge-page setting, and
// the streams that fall in one set of L1 and L2.
void cache_evidence(DiagnosisEvidence& e, const StreamSummary& s, const core::Machine& m) {
    if (!m.topology)
        return;
    for (const auto& t : m.topology->tlb)
        if (t.level == "L1d" && t.page_bytes == 4096 && t.entries > 0)
            e.tlb_entries = t.entries;
    e.huge_pages = m.topology->huge_pages;
    for (const auto& c : m.topology->caches)
        if (c.associativity && *c.associativity > 0 && (c.name == "L1" || c.name == "L2"))
            e.sets.push_back({c.name,
                              max_streams_per_set(s, static_cast<double>(c.size_bytes), *c.associativity,
                                                  static_cast<double>(c.line_bytes)),
                              *c.associativity, static_cast<double>(c.size_bytes) / *c.associativity});
}

// What the kernel's loop nest says about its streams: pages in flight, stream capacity, TLB and sets.
void loop_evidence(DiagnosisEvidence& e, const KernelSpec& spec, const core::Machine& m,
                   const core::Prediction& p) {
    if (!spec.loop)
        return;
    const StreamSummary s = innermost_streams(*spec.loop, spec.source_file);
    e.pages = pages_in_flight(s);
    stream_capacity_evidence(e, s, m, p);
    cache_evidence(e, s, m);
}

// The time per iteration a prediction gives its L1 term, where it times L1.
std::optional<double> l1_seconds(const core::Prediction& q) {
    for (const auto& term : q.terms)
        if (term.level == "L1" && term.seconds_per_iteration && *term.seconds_per_iteration > 0)
            return *term.seconds_per_iteration;
    return std::nullopt;
}

// L1 loads and stores at the L1 roof: the bound prediction's L1 term, else that of the first prediction in
// summary order that times L1 (the mixed model leaves L1 untimed, docs/models.md; the hierarchical times it).
void l1_share_evidence(DiagnosisEvidence& e, const core::KernelResult& k, const core::Prediction& p,
                       double t) {
    std::optional<double> l1 = l1_seconds(p);
    if (!l1)
        if (const core::Prediction* q = model::summary_prediction(
                k, [](const core::Prediction& r) { return l1_seconds(r).has_value(); }))
            l1 = l1_seconds(*q);
    if (l1 && !e.l1_share)
        e.l1_share = *l1 / t;
}

// FP issue at the ceiling of the width and operation mix the compiled loop uses (Williams et al. §4:
// the in-core ceilings below the peak).
void fp_issue_evidence(DiagnosisEvidence& e, const core::KernelResult& k, const core::Machine& m,
                       const CodeEvidence& code, double t) {
    if (k.flops_per_iteration <= 0)
        return;
    const int bits = std::max(64, code.vector_bits);
    const std::string isa = bits >= 512 ? "avx512" : bits >= 256 ? "avx2" : bits >= 128 ? "sse" : "scalar";
    const std::string op = code.fma > 0 ? "fma" : "addmul";
    // Accumulators that hide the FMA latency: the one-thread FMA ceiling over the one-chain ceiling.
    const core::ComputeCeiling *fma = nullptr, *chain = nullptr;
    for (const auto& c : m.ceilings) {
        if (c.isa != isa || c.precision != k.precision || c.threads != 1)
            continue;
        if (c.op == "fma")
            fma = &c;
        else if (c.op == "chain")
            chain = &c;
    }
    if (fma && chain && chain->gflops.median > 0 && fma->gflops.median > 0)
        e.fma_chains_needed =
            std::max(1, static_cast<int>(std::lround(fma->gflops.median / chain->gflops.median)));
    for (const auto& c : k.ceilings)
        if (c.kind == "compute" && c.name == core::isa_label(isa) + (op == "fma" ? " FMA" : " without FMA") &&
            c.gflops > 0) {
            e.fp_share = k.flops_per_iteration / (c.gflops * 1e9) / t;
            e.fp_ceiling = c.name;
        }
}

} // namespace

void diagnose_kernel(core::KernelResult& k, const KernelSpec& spec, const core::Machine& m,
                     const std::optional<CodeEvidence>& code) {
    k.bound_fraction = fraction_of_bound(k);
    if (!k.bound_fraction)
        return;
    const core::Prediction* p = bound_prediction(k);
    const double t = k.measured_seconds->min / k.iterations;
    std::optional<double> gflops;
    if (k.flops_per_iteration > 0)
        gflops = k.flops_per_iteration / t / 1e9;
    k.ceilings = kernel_ceilings(k, m, gflops);
    DiagnosisEvidence e;
    e.fraction = *k.bound_fraction;
    e.machine_vector_bits = machine_vector_bits(m);
    e.code = code;
    e.imbalance = k.thread_imbalance;
    under_ceiling_evidence(e, k.ceilings, gflops);
    loop_evidence(e, spec, m, *p);
    l1_share_evidence(e, k, *p, t);
    if (code)
        fp_issue_evidence(e, k, m, *code, t);
    e.measured_seconds = t;
    e.in_cache_seconds = k.in_cache_seconds;
    if (const core::LevelTerm* mem = memory_term(*p); mem && mem->seconds_per_iteration) {
        e.memory_seconds = *mem->seconds_per_iteration;
        e.memory_bytes = mem->bytes_per_iteration;
    }
    overlap_evidence(e, *p, m, t);
    if (e.fraction < k_diagnosis_fraction) // a copy of the machine and a prediction: only where it is read
        memory_drift_evidence(e, k, *p, spec, m, t);
    k.diagnosis = diagnose(e);
}

} // namespace roofcast::model
