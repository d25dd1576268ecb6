#include "core/machine.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine_noise.hpp"
#include "core/machine_sections.hpp"
#include "core/names.hpp"
#include "core/range.hpp"
#include "core/stream_catalogue.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

namespace roofcast::core {

std::vector<std::pair<std::string, std::optional<double>>> exponent_fields(const Machine& m) {
    return {{"overlap_exponent", m.overlap_exponent},
            {"overlap_exponent_low", m.overlap_exponent_low},
            {"overlap_exponent_high", m.overlap_exponent_high},
            {"compute_overlap_exponent", m.compute_overlap_exponent},
            {"compute_overlap_exponent_low", m.compute_overlap_exponent_low},
            {"compute_overlap_exponent_high", m.compute_overlap_exponent_high},
            {"cache_overlap_exponent", m.cache_overlap_exponent},
            {"cache_overlap_exponent_low", m.cache_overlap_exponent_low},
            {"cache_overlap_exponent_high", m.cache_overlap_exponent_high}};
}

namespace {

constexpr NameTable<Provenance, 3> k_provenance_names{{{Provenance::measured, "measured"},
                                                       {Provenance::entered, "entered"},
                                                       {Provenance::calibrated, "calibrated"}}};

} // namespace

std::string to_string(Provenance p) {
    return std::string(name_of(k_provenance_names, p));
}

namespace {

Provenance provenance_from(const YamlField& f) {
    const std::string s = f.as_string();
    if (const auto p = value_named(k_provenance_names, s))
        return *p;
    f.fail(expected_one_of(names(k_provenance_names), s));
}

const std::set<std::string> k_precisions{"double", "single"};
const std::set<std::string> k_isas{"scalar", "sse", "avx2", "avx512"};
const std::set<std::string> k_ops{"fma", "add", "mul", "addmul", "chain"};
// Kernel names a measurement may carry: the catalogue's (alphabetical, as the error lists them).
const std::set<std::string> k_kernels = [] {
    std::set<std::string> names;
    for (const auto& d : k_stream_catalogue)
        names.emplace(d.name);
    return names;
}();

std::map<std::string, double> precision_map(const YamlField& f) {
    std::map<std::string, double> out;
    for (const auto& k : f.keys()) {
        if (!k_precisions.count(k))
            f[k].fail("unknown precision '" + k + "', expected double or single");
        out[k] = f[k].as_positive_at_most(k_max_gflops);
    }
    return out;
}

BandwidthPoint point_from(const YamlField& f) {
    BandwidthPoint p;
    p.kernel = one_of(f["kernel"], k_kernels);
    p.threads = static_cast<int>(f["threads"].as_int_in(1, k_max_count));
    if (p.threads < 1)
        f["threads"].fail("expected a thread count >= 1");
    p.working_set_bytes = f["working_set_bytes"].as_size();
    p.gbs = summary_from_yaml(f["gbs"]);
    if (auto m = f.optional("moved_per_requested"))
        p.moved_per_requested = m->as_positive();
    return p;
}

BandwidthCurve curve_from(const YamlField& f) {
    BandwidthCurve c;
    if (auto x = f.optional("x")) {
        c.x = x->as_string();
        if (c.x != "working_set" && c.x != "volume")
            x->fail("expected working_set or volume, got '" + c.x + "'");
    }
    if (auto pts = f.optional("points")) {
        for (std::size_t i = 0; i < pts->size(); ++i) {
            const YamlField p = pts->at(i);
            if (!p.is_sequence() || p.size() != 2)
                p.fail("expected a pair [bytes, GB/s]");
            c.points.emplace_back(p.at(0).as_non_negative(), p.at(1).as_positive());
        }
        std::sort(c.points.begin(), c.points.end());
        if (c.points.empty())
            pts->fail("expected at least one point");
    }
    if (auto a = f.optional("affine"))
        c.affine = std::make_pair((*a)["a"].as_double(), (*a)["b"].as_double());
    if (c.points.empty() && !c.affine)
        f.fail("expected 'points' or 'affine'");
    return c;
}

} // namespace

std::string one_of(const YamlField& f, const std::set<std::string>& allowed) {
    std::string s = f.as_string();
    if (!allowed.count(s))
        f.fail(expected_one_of(allowed, s));
    return s;
}

double BandwidthCurve::eval(double bytes) const {
    if (affine)
        return affine->first * bytes + affine->second;
    if (points.empty())
        return 0.0;
    if (bytes <= points.front().first)
        return points.front().second;
    if (bytes >= points.back().first)
        return points.back().second;
    for (std::size_t i = 1; i < points.size(); ++i) {
        if (bytes <= points[i].first) {
            const auto& [x0, y0] = points[i - 1];
            const auto& [x1, y1] = points[i];
            return x1 == x0 ? y1 : y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
        }
    }
    return points.back().second;
}

const Level* Machine::level(const std::string& level_name) const {
    for (const auto& l : levels)
        if (l.name == level_name)
            return &l;
    return nullptr;
}

double Machine::peak(const std::string& precision) const {
    auto it = peak_gflops.find(precision);
    if (it == peak_gflops.end())
        throw InputError(name, "compute.peak_gflops." + precision,
                         "missing: the machine has no compute peak");
    return it->second;
}

double Machine::effective(const std::string& precision) const {
    auto it = effective_gflops.find(precision);
    return it != effective_gflops.end() ? it->second : peak(precision);
}

int isa_bits(const std::string& isa) {
    return isa == "avx512" ? 512 : isa == "avx2" ? 256 : isa == "sse" ? 128 : isa == "scalar" ? 64 : 0;
}

std::string isa_label(const std::string& isa) {
    return isa == "avx512" ? "AVX-512" : isa == "avx2" ? "AVX2" : isa == "sse" ? "SSE" : isa;
}

nlohmann::ordered_json summary_tree(const Summary& s) {
    nlohmann::ordered_json n;
    n["median"] = s.median;
    n["min"] = s.min;
    n["max"] = s.max;
    n["n"] = s.n;
    if (s.spread)
        n["spread"] = *s.spread;
    n["noisy"] = s.noisy;
    if (!s.samples.empty())
        n["samples"] = s.samples;
    return n;
}

Summary summary_from_yaml(const YamlField& f) {
    // Every summary of a machine file is a rate, a time or a clock: positive and finite.
    if (f.is_scalar()) {
        auto s = summarize({f.as_positive()});
        return *s;
    }
    // The statistics written beside the samples are part of the format but derived again from the samples
    // (and the noise flag from the machine file's rule, core/machine_noise.hpp): read, not trusted.
    for (const char* derived : {"median", "min", "max", "n", "spread", "noisy"})
        (void)f.has(derived);
    if (auto samples = f.optional("samples")) {
        std::vector<double> v;
        for (std::size_t i = 0; i < samples->size(); ++i)
            v.push_back(samples->at(i).as_positive());
        if (v.empty())
            samples->fail("expected at least one sample");
        return *summarize(v);
    }
    return summary_of_statistics(
        f, [](const YamlField& x) { return x.as_positive(); },
        [](const YamlField& x, std::int64_t most) { return x.as_int_in(1, most); });
}

nlohmann::json summary_to_json(const Summary& s) {
    nlohmann::json j{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"n", s.n}, {"noisy", s.noisy}};
    j["spread"] = s.spread ? nlohmann::json(*s.spread) : nlohmann::json(nullptr);
    j["samples"] = s.samples;
    return j;
}

namespace {

// The sections of the machine file (docs/machine-file.md), each read by one function below, in the
// order machine_from_yaml reads them.
CacheInfo cache_entry(const YamlField& c) {
    CacheInfo ci;
    ci.name = c["name"].as_string();
    ci.size_bytes = c["size_bytes"].as_size();
    if (ci.size_bytes == 0)
        c["size_bytes"].fail("expected a positive size");
    if (auto l = c.optional("line_bytes"))
        ci.line_bytes = static_cast<std::uint32_t>(l->as_size());
    if (auto a = c.optional("associativity"))
        ci.associativity = static_cast<int>(a->as_int_in(1, k_max_count));
    if (auto s = c.optional("shared_by_cores"))
        ci.shared_by_cores = static_cast<int>(s->as_int_in(1, k_max_count));
    if (auto s = c.optional("instances"))
        ci.instances = static_cast<int>(s->as_int_in(1, k_max_count));
    if (auto e = c.optional("effective_size_bytes"))
        ci.effective_size_bytes = e->as_size();
    if (auto r = c.optional("effective_size_range_bytes")) {
        if (!r->is_sequence() || r->size() != 2)
            r->fail("expected [low, high] sizes around effective_size_bytes");
        const std::uint64_t lo = r->at(0).as_size(), hi = r->at(1).as_size();
        if (!ci.effective_size_bytes || lo > *ci.effective_size_bytes || hi < *ci.effective_size_bytes)
            r->fail("expected [low, high] with low <= effective_size_bytes <= high");
        ci.effective_size_range_bytes = std::pair{lo, hi};
    }
    ci.note = c.get_string("note", "");
    return ci;
}

Topology topology_section(const YamlField& t) {
    Topology topo;
    topo.cpu_model = t.get_string("cpu_model", "");
    read_cpu_identity(t, topo);
    if (auto isa = t.optional("isa"))
        for (std::size_t i = 0; i < isa->size(); ++i)
            topo.isa.push_back(one_of(isa->at(i), k_isas));
    topo.packages = static_cast<int>(t.has("packages") ? t["packages"].as_int_in(1, k_max_count) : 1);
    topo.cores = static_cast<int>(t["cores"].as_int_in(1, k_max_count));
    topo.hw_threads =
        static_cast<int>(t.has("hw_threads") ? t["hw_threads"].as_int_in(1, k_max_count) : topo.cores);
    topo.numa_nodes = static_cast<int>(t.has("numa_nodes") ? t["numa_nodes"].as_int_in(1, k_max_count) : 1);
    if (topo.cores < 1)
        t["cores"].fail("expected at least 1 core");
    if (auto caches = t.optional("caches"))
        for (std::size_t i = 0; i < caches->size(); ++i)
            topo.caches.push_back(cache_entry(caches->at(i)));
    if (auto tlb = t.optional("tlb"))
        topo.tlb = tlb_from_yaml(*tlb);
    if (auto hp = t.optional("huge_pages"))
        topo.huge_pages = huge_pages_from_yaml(*hp);
    return topo;
}

// An exponent of the mixed model with its optional interval (p: data/data, q: compute/data).
void exponent_entry(const YamlField& compute, const std::string& name, std::optional<double>& value,
                    std::optional<double>& low, std::optional<double>& high) {
    if (auto e = compute.optional(name)) {
        value = e->as_double();
        if (!(*value >= 1.0) || !std::isfinite(*value))
            e->fail("expected a finite number >= 1 (1: the terms add up; larger: they overlap more)");
    }
    if (auto e = compute.optional(name + "_low")) {
        low = e->as_double();
        if (!(*low >= 1.0) || !std::isfinite(*low))
            e->fail("expected a finite number >= 1, the lower end of the " + name + "'s interval");
    }
    if (auto e = compute.optional(name + "_high")) {
        high = e->as_double();
        if (!low || !(*high >= *low) || !std::isfinite(*high))
            e->fail("expected a finite number >= " + name +
                    "_low (which must be given too), the upper end "
                    "of the " +
                    name + "'s interval");
    }
}

ComputeCeiling ceiling_entry(const YamlField& c) {
    ComputeCeiling cc;
    cc.precision = one_of(c["precision"], k_precisions);
    cc.isa = one_of(c["isa"], k_isas);
    cc.op = one_of(c["op"], k_ops);
    cc.threads = static_cast<int>(c["threads"].as_int_in(1, k_max_count));
    cc.gflops = summary_from_yaml(c["gflops"]);
    ceiling_from_groups(cc);
    if (auto g = c.optional("ghz"))
        cc.ghz = g->as_positive_at_most(k_max_ghz);
    if (auto s = c.optional("source"))
        cc.source = provenance_from(*s);
    return cc;
}

void compute_section(const YamlField& compute, Machine& m) {
    m.peak_gflops = precision_map(compute["peak_gflops"]);
    if (m.peak_gflops.empty())
        compute["peak_gflops"].fail("expected at least one precision (double or single)");
    if (auto e = compute.optional("effective_gflops"))
        m.effective_gflops = precision_map(*e);
    exponent_entry(compute, "overlap_exponent", m.overlap_exponent, m.overlap_exponent_low,
                   m.overlap_exponent_high);
    exponent_entry(compute, "compute_overlap_exponent", m.compute_overlap_exponent,
                   m.compute_overlap_exponent_low, m.compute_overlap_exponent_high);
    exponent_entry(compute, "cache_overlap_exponent", m.cache_overlap_exponent, m.cache_overlap_exponent_low,
                   m.cache_overlap_exponent_high);
    if (auto ceil = compute.optional("ceilings"))
        for (std::size_t i = 0; i < ceil->size(); ++i)
            m.ceilings.push_back(ceiling_entry(ceil->at(i)));
}

RoofChoice roof_choice_entry(const YamlField& rc) {
    RoofChoice c;
    c.method = rc["method"].as_string();
    c.epochs = rc["epochs"].as_size();
    c.best = rc["best"].as_size();
    c.tolerance = rc["tolerance"].as_non_negative();
    c.settled = rc["settled"].as_bool();
    if (auto v = rc.optional("visits"))
        c.visits = static_cast<std::size_t>(v->as_int_in(0, 1000000));
    if (auto w = rc.optional("window_seconds"))
        c.window_seconds = w->as_non_negative_at_most(86400.0);
    if (auto g = rc.optional("visit_gbs"))
        c.visit_gbs = summary_from_yaml(*g);
    if ((c.visits > 0) != c.visit_gbs.has_value())
        rc["visits"].fail("expected visits > 0 exactly when visit_gbs is given");
    if (auto s = rc.optional("thread_scaling"))
        c.thread_scaling = s->as_non_negative_at_most(1024.0);
    return c;
}

// One level; `seen` holds the names of the levels before it (a name may appear once).
Level level_entry(const YamlField& l, std::set<std::string>& seen) {
    Level lv;
    lv.name = l["name"].as_string();
    if (!seen.insert(lv.name).second)
        l["name"].fail("duplicate level '" + lv.name + "'");
    if (auto b = l.optional("bandwidth_gbs"))
        lv.bandwidth_gbs = b->as_positive_at_most(k_max_gbs);
    lv.bandwidth_kernel = l.get_string("bandwidth_kernel", "");
    if (auto s = l.optional("source"))
        lv.source = provenance_from(*s);
    if (auto b = l.optional("bandwidth"))
        lv.bandwidth = summary_from_yaml(*b);
    if (auto rc = l.optional("roof_choice"))
        lv.roof_choice = roof_choice_entry(*rc);
    if (auto e = l.optional("effective_bandwidth_gbs"))
        lv.effective_bandwidth_gbs = e->as_positive_at_most(k_max_gbs);
    if (auto e = l.optional("effective_bandwidth_half_width_gbs")) {
        lv.effective_bandwidth_half_width_gbs = e->as_non_negative();
        if (!lv.effective_bandwidth_gbs || *lv.effective_bandwidth_half_width_gbs > k_max_gbs)
            e->fail("expected a half-width from 0 to 1e6 GB/s beside effective_bandwidth_gbs");
    }
    if (auto c = l.optional("curve"))
        lv.curve = curve_from(*c);
    if (auto s = l.optional("size_bytes"))
        lv.size_bytes = s->as_size();
    if (auto ms = l.optional("measurements"))
        for (std::size_t k = 0; k < ms->size(); ++k)
            lv.measurements.push_back(point_from(ms->at(k)));
    if (!lv.bandwidth_gbs && !lv.curve && !lv.effective_bandwidth_gbs)
        l.fail("level '" + lv.name + "' needs bandwidth_gbs, effective_bandwidth_gbs or a curve");
    return lv;
}

void levels_section(const YamlField& levels, Machine& m) {
    if (levels.size() == 0)
        levels.fail("expected at least one level (MEM)");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < levels.size(); ++i)
        m.levels.push_back(level_entry(levels.at(i), seen));
    if (m.levels.back().name != "MEM")
        levels.at(levels.size() - 1)["name"].fail(
            "expected the last level to be MEM (closest to the core first)");
}

ThreadOverhead thread_overhead_entry(const YamlField& o) {
    ThreadOverhead to;
    to.method = o["method"].as_string();
    to.threads = static_cast<int>(o["threads"].as_int_in(1, k_max_count));
    to.seconds = summary_from_yaml(o["seconds"]);
    return to;
}

MpiFigures mpi_section(const YamlField& mp) {
    MpiFigures f;
    if (auto l = mp.optional("latency_s"))
        f.latency_s = summary_from_yaml(*l);
    if (auto b = mp.optional("bandwidth_gbs"))
        f.bandwidth_gbs = summary_from_yaml(*b);
    if (auto r = mp.optional("ranks")) {
        f.ranks = static_cast<int>(r->as_int_in(1, k_max_count));
        if (f.ranks < 2)
            r->fail("expected at least 2 ranks, got " + std::to_string(f.ranks));
    }
    if (auto s = mp.optional("source"))
        f.source = provenance_from(*s);
    if (auto a = mp.optional("alpha_s"))
        f.alpha_s = a->as_non_negative();
    if (f.alpha_s && *f.alpha_s > k_max_seconds)
        mp["alpha_s"].fail("expected at most " + std::to_string(static_cast<int>(k_max_seconds)) + " s");
    if (auto b = mp.optional("beta_gbs"))
        f.beta_gbs = b->as_positive_at_most(k_max_gbs);
    if (auto pts = mp.optional("points"))
        for (std::size_t i = 0; i < pts->size(); ++i) {
            const YamlField p = pts->at(i);
            MpiPoint mpt;
            mpt.bytes = p["bytes"].as_size();
            mpt.seconds = summary_from_yaml(p["seconds"]);
            if (!f.points.empty() && mpt.bytes <= f.points.back().bytes)
                p["bytes"].fail("expected message sizes in increasing order");
            f.points.push_back(std::move(mpt));
        }
    if (auto l = mp.optional("library"))
        f.library = l->as_string();
    if (auto pl = mp.optional("placement"))
        f.placement = pl->as_string();
    if (!f.latency_s && !f.bandwidth_gbs && !f.alpha_s && f.points.empty())
        mp.fail("expected latency_s, bandwidth_gbs, alpha_s/beta_gbs or points");
    return f;
}

} // namespace

Machine machine_from_yaml(const YamlField& root) {
    Machine m;
    m.format_version = static_cast<int>(root["format_version"].as_int());
    if (m.format_version != k_machine_format_version)
        root["format_version"].fail("unsupported version " + std::to_string(m.format_version) +
                                    ", expected " + std::to_string(k_machine_format_version));
    m.name = root["name"].as_string();
    m.created = root.get_string("created", "");
    m.roofcast_version = root.get_string("roofcast_version", "");
    if (auto r = root.optional("measurement_revision"))
        m.measurement_revision = static_cast<int>(r->as_int_in(1, k_max_count));
    if (auto s = root.optional("source"))
        m.source = provenance_from(*s);
    if (auto t = root.optional("topology"))
        m.topology = topology_section(*t);
    if (auto c = root.optional("clock_ghz"))
        m.clock_ghz = summary_from_yaml(*c);
    if (auto c = root.optional("tsc_ghz"))
        m.tsc_ghz = c->as_positive_at_most(k_max_ghz);
    if (auto c = root.optional("clock_drift"))
        m.clock_drift = c->as_bool();
    compute_section(root["compute"], m);
    levels_section(root["levels"], m);
    if (auto s = root.optional("sweep"))
        for (std::size_t i = 0; i < s->size(); ++i)
            m.sweep.push_back(point_from(s->at(i)));
    if (auto t = root.optional("thread_overhead"))
        for (std::size_t i = 0; i < t->size(); ++i)
            m.thread_overhead.push_back(thread_overhead_entry(t->at(i)));
    if (auto mp = root.optional("mpi"))
        m.mpi = mpi_section(*mp);
    if (auto sc = root.optional("stream_capacity"))
        m.stream_capacity = stream_capacity_from_yaml(*sc);
    if (auto v = root.optional("validity")) {
        m.validity.l1_short_per_mem = v->get_double("l1_short_per_mem", m.validity.l1_short_per_mem);
        m.validity.l1_long_per_traffic = v->get_double("l1_long_per_traffic", m.validity.l1_long_per_traffic);
        m.validity.l1_long_cache_bound = v->get_double("l1_long_cache_bound", m.validity.l1_long_cache_bound);
    }
    if (auto n = root.optional("notes"))
        for (std::size_t i = 0; i < n->size(); ++i)
            m.notes.push_back(n->at(i).as_string());
    flag_machine_noise(m);
    return m;
}

Machine load_machine(const std::string& path, std::vector<std::string>* unread_keys) {
    const YamlField root = YamlField::load_file(path);
    Machine m = machine_from_yaml(root);
    if (unread_keys)
        *unread_keys = root.unread_keys();
    return m;
}

Machine machine_from_json(const nlohmann::json& j, const std::string& label,
                          std::vector<std::string>* unread_keys) {
    std::function<YAML::Node(const nlohmann::json&)> conv = [&](const nlohmann::json& v) -> YAML::Node {
        YAML::Node n;
        if (v.is_object()) {
            for (const auto& [k, e] : v.items())
                n[k] = conv(e);
        } else if (v.is_array()) {
            n = YAML::Node(YAML::NodeType::Sequence);
            for (const auto& e : v)
                n.push_back(conv(e));
        } else if (v.is_string()) {
            n = v.get<std::string>();
        } else if (v.is_boolean()) {
            n = v.get<bool>();
        } else if (v.is_number()) {
            n = v.get<double>();
        }
        return n;
    };
    if (!j.is_object())
        throw InputError(label, "machine", "expected a JSON object");
    const YamlField root(conv(j), label);
    Machine m = machine_from_yaml(root);
    if (unread_keys)
        *unread_keys = root.unread_keys();
    return m;
}

std::optional<SampleGroups> ceiling_from_groups(ComputeCeiling& c) {
    auto g = split_groups(c.gflops.samples);
    if (g)
        c.gflops.median = g->upper.median;
    return g;
}

} // namespace roofcast::core
