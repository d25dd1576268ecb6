#include "experiment/suite_catalogue.hpp"
#include "experiment/suite_rows.hpp"

#include "core/cache_sharing.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace roofcast::model {

namespace sw = measure::suite;

namespace suite_rows {

std::size_t round_up(double v, std::size_t multiple) {
    const auto m = static_cast<double>(multiple);
    return static_cast<std::size_t>(std::ceil(v / m) * m);
}

ArrayAccess read(const std::string& array, std::vector<long> offsets) {
    return {array, std::move(offsets), false, {}};
}
ArrayAccess write(const std::string& array, std::vector<long> offsets) {
    return {array, std::move(offsets), true, {}};
}

KernelSpec base_spec(const std::string& name, double flops, double iterations, const std::string& precision) {
    KernelSpec k;
    k.name = name;
    k.precision = precision;
    k.flops_per_iteration = flops;
    k.iterations = iterations;
    k.element_bytes = precision == "single" ? 4 : 8;
    k.source_file = k_source;
    return k;
}

} // namespace suite_rows

namespace {

using namespace suite_rows;

// The suite sizes its arrays from L1 and L2 at least.
void require_sized_caches(const std::vector<CacheLevel>& caches, const std::string& machine_file) {
    for (const char* needed : {"L1", "L2"}) {
        if (!find_cache(caches, needed))
            throw core::InputError(
                machine_file, "topology.caches",
                std::string("the kernel suite sizes its arrays from the caches; no size for ") + needed +
                    " (give topology.caches or levels[].size_bytes)");
    }
}

// Explicit traffic of a loop whose whole working set resides in `resident`: the core loads and stores
// `core_bytes` at L1; every level beyond L1 out to `resident` moves `bytes` (with write-allocate) per
// iteration; the levels beyond move nothing.
std::map<std::string, double> resident_bytes(const core::Machine& m, const std::string& resident,
                                             double core_bytes, double bytes) {
    std::map<std::string, double> out;
    bool beyond = false;
    for (const auto& l : m.levels) {
        out[l.name] = beyond ? 0.0 : l.name == "L1" ? core_bytes : bytes;
        if (l.name == resident)
            beyond = true;
    }
    return out;
}

void add_stream(std::vector<SuiteKernel>& out, const Sizes& s) {
    const std::size_t n = round_up(s.mem_working_set / 24.0, 64);
    struct Op {
        const char* name;
        sw::StreamOp op;
        double flops;
        bool reads_c;
    };
    const Op ops[] = {{"stream-copy", sw::StreamOp::copy, 0, false},
                      {"stream-scale", sw::StreamOp::scale, 1, false},
                      {"stream-add", sw::StreamOp::add, 1, true},
                      {"stream-triad", sw::StreamOp::triad, 2, true}};
    for (const auto& op : ops) {
        SuiteKernel k;
        k.name = op.name;
        k.suite = "stream";
        k.spec = base_spec(op.name, op.flops, static_cast<double>(n));
        const auto len = static_cast<long>(n);
        LoopNest nest;
        nest.indices = {"i"};
        nest.bounds = {len};
        nest.arrays = {{"a", "double", {len}}, {"b", "double", {len}}};
        nest.accesses = {write("a", {0}), read("b", {0})};
        if (op.reads_c) {
            nest.arrays.push_back({"c", "double", {len}});
            nest.accesses.push_back(read("c", {0}));
        }
        k.spec.loop = nest;
        const sw::StreamOp which = op.op;
        k.run = [which, n](const sw::SuiteOptions& o, sw::Workspace& ws) {
            return sw::run_stream(which, n, o, ws);
        };
        out.push_back(std::move(k));
    }
}

void add_calibration(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, int threads) {
    struct Target {
        std::string level;
        double working_set;
    };
    std::vector<Target> targets{{"MEM", s.mem_working_set}};
    const CacheLevel* l2 = find_cache(s.caches, "L2");
    const CacheLevel* l3 = find_cache(s.caches, "L3");
    if (l3 && m.level("L3")) {
        // Beyond every thread's L2, well inside half the L3: the geometric middle of the two. A cyclic
        // sweep over twice an LRU cache's capacity misses on every line, so 2 x the L2s is enough; more
        // margin leaves no room for the L3 point when a VM's usable L3 shrinks to a few MiB of the
        // reported size, and the family and overlap loops would then be predicted with an uncalibrated L3.
        const double lo = 2.0 * l2->per_thread(threads) * threads;
        const double hi = 0.5 * l3->total();
        if (lo < hi)
            targets.push_back({"L3", std::sqrt(lo * hi)});
    }
    if (m.level("L2"))
        targets.push_back({"L2", 0.5 * l2->per_thread(threads) * threads});
    for (const auto& t : targets) {
        // Memory is calibrated with the copy (the mixed model's memory accesses are one stream of loads
        // and one of stores with their write-allocates), the caches with the read-only loop (their
        // accesses are reuse loads): each effective bandwidth is measured with the access mix its term
        // times.
        const bool copy = t.level == "MEM";
        const auto shape = copy ? sw::CalibrationShape::copy : sw::CalibrationShape::load;
        const double requested = copy ? 16.0 : 24.0; // bytes per element the core asks for
        const std::size_t n = round_up(t.working_set / requested, 64);
        for (const int q : sw::k_calibration_fmas) {
            const double flops = (copy ? 2.0 : 3.0) + 2.0 * q;
            SuiteKernel k;
            k.name = fmt::format("calib-{}-{}F", t.level, static_cast<int>(flops));
            k.suite = "calibrate";
            k.spec = base_spec(k.name, flops, static_cast<double>(n));
            // Copy: the core loads b and stores a (2 x 8 requested bytes); beyond L1 the store adds its
            // write-allocate, 3 x 8 bytes out to the level the arrays reside in. Read-only loop: three
            // loads, 3 x 8 bytes at every level out to the resident one.
            k.spec.explicit_bytes = resident_bytes(m, t.level, requested, 24.0);
            k.resident_level = t.level;
            k.requested_bytes = requested;
            k.run = [shape, q, n](const sw::SuiteOptions& o, sw::Workspace& ws) {
                return sw::run_calibration(shape, q, n, o, ws);
            };
            out.push_back(std::move(k));
        }
    }
}

// Level C that serves the reuse loads of the mixed family and of the overlap calibration loops: the
// window of one reuse is set to twice the capacity of the level inside C, so the reuse misses there,
// and must fit half of C (all threads).
struct ReuseCache {
    std::string name;
    double window = 0; // bytes per thread
};

ReuseCache reuse_cache(const core::Machine& m, const Sizes& s, int threads, const std::string& machine_file) {
    const CacheLevel* l1 = find_cache(s.caches, "L1");
    const CacheLevel* l2 = find_cache(s.caches, "L2");
    const CacheLevel* l3 = find_cache(s.caches, "L3");
    if (l3 && m.level("L3") && threads * 2.0 * l2->per_thread(threads) <= 0.5 * l3->total())
        return {"L3", 2.0 * l2->per_thread(threads)};
    if (l1 && 2.0 * l1->per_thread(threads) <= 0.5 * l2->per_thread(threads))
        return {"L2", 2.0 * l1->per_thread(threads)};
    throw core::InputError(machine_file, "topology.caches",
                           "cache sizes leave no level for the reuse loads of the mixed family");
}

void add_overlap(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, int threads,
                 const std::string& machine_file) {
    // a(i) = s b(i) + K rows of a per-thread window: one reuse spans the window's K rows and a block of a
    // and b, (K + 2) rows of W elements, which is set to the reuse window of level C (as the family's
    // n + 2 rows); a and b together beyond every cache.
    const ReuseCache c = reuse_cache(m, s, threads, machine_file);
    // First the loops without arithmetic (the data/data exponent p), then the same loops with 3K extra
    // multiply-adds (the compute/data exponent q), calib-overlap-flops-C-K: each set one series in the
    // charts.
    for (const bool with_compute : {false, true})
        for (const int k : sw::k_overlap_reuses) {
            const int q = with_compute ? sw::overlap_compute_fmas(k) : 0;
            const std::size_t row = odd_line_bytes(c.window / (k + 2)) / 8;
            const double blocks_per_thread = std::ceil(0.5 * s.mem_working_set / (8.0 * row * threads));
            const std::size_t n = static_cast<std::size_t>(std::max(1.0, blocks_per_thread)) *
                                  static_cast<std::size_t>(threads) * row;
            SuiteKernel kn;
            kn.name = fmt::format("calib-overlap-{}{}-K{}", q == 0 ? "" : "flops-", c.name, k);
            kn.suite = "calibrate";
            kn.spec =
                base_spec(kn.name, 1.0 + k + 2.0 * q, static_cast<double>(n)); // 1 multiply + K adds + Q FMAs
            // The core loads b and K window elements and stores a: 16 + 8K bytes at L1; out to C the store's
            // write-allocate adds 8; beyond C only b, a and its write-allocate, 24 bytes.
            bool beyond = false;
            for (const auto& l : m.levels) {
                kn.spec.explicit_bytes[l.name] = beyond           ? 24.0
                                                 : l.name == "L1" ? 16.0 + 8.0 * k
                                                                  : 24.0 + 8.0 * k;
                if (l.name == c.name)
                    beyond = true;
            }
            kn.requested_bytes = 16.0 + 8.0 * k;
            kn.overlap_reuses = k;
            kn.overlap_cache = c.name;
            kn.overlap_row = row;
            kn.overlap_extra_fmas = q;
            kn.run = [k, n, row, q](const sw::SuiteOptions& o, sw::Workspace& ws) {
                return sw::run_overlap(k, n, row, o, ws, q);
            };
            out.push_back(std::move(kn));
        }
}

void add_mixed(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, int threads,
               const std::string& machine_file) {
    // Level C serves the n neighbour rows: the window of one reuse is (n+2) rows (n+1 rows of c and one
    // of a, the layer condition of Stengel et al., ICS 2015, Sect. 3.2).
    const ReuseCache c = reuse_cache(m, s, threads, machine_file);
    constexpr std::size_t k_rows = 256; // rows per plane: the n-row start-up of each plane stays small
    for (const int n : sw::k_mixed_neighbours) {
        const std::size_t row_bytes = odd_line_bytes(c.window / (n + 2));
        const std::size_t ni = row_bytes / 8;
        const double plane_bytes = static_cast<double>(k_rows * row_bytes);
        // Each array alone exceeds every cache together, so a and the leading row stream from memory.
        const auto planes_per_thread =
            static_cast<std::size_t>(std::ceil(0.5 * s.mem_working_set / (plane_bytes * threads)));
        const std::size_t nk =
            std::max<std::size_t>(1, planes_per_thread) * static_cast<std::size_t>(threads);
        const sw::Grid3 g{nk, k_rows, ni};
        for (int level = 0; level < sw::k_mixed_flop_levels; ++level) {
            const int q = sw::mixed_extra_fmas(n, level);
            const double flops = n + 2.0 * q; // n adds + q multiply-adds
            SuiteKernel k;
            k.name = fmt::format("3M-{}{}-{}F", n, c.name, static_cast<int>(flops));
            k.suite = "mixed";
            const long bk = static_cast<long>(nk),
                       bj = static_cast<long>(k_rows - static_cast<std::size_t>(n)),
                       bi = static_cast<long>(ni);
            k.spec = base_spec(k.name, flops, static_cast<double>(bk * bj * bi));
            LoopNest nest;
            nest.indices = {"k", "j", "i"};
            nest.bounds = {bk, bj, bi};
            const std::vector<long> dims{bk, static_cast<long>(k_rows), bi};
            nest.arrays = {{"a", "double", dims}, {"c", "double", dims}};
            nest.accesses.push_back(write("a", {0, 0, 0}));
            for (long d = 0; d <= n; ++d)
                nest.accesses.push_back(read("c", {0, d, 0}));
            k.spec.loop = nest;
            k.mixed_n = n;
            k.mixed_flop_level = level;
            k.mixed_cache = c.name;
            k.run = [n, q, g](const sw::SuiteOptions& o, sw::Workspace& ws) {
                return sw::run_mixed(n, q, g, o, ws);
            };
            out.push_back(std::move(k));
        }
    }
}

} // namespace

using suite_rows::find_cache;
using suite_rows::Sizes;

std::size_t odd_line_bytes(double bytes) {
    constexpr double k_line = 64;
    auto lines = static_cast<std::size_t>(std::ceil(bytes / k_line));
    lines += 1 - lines % 2;
    return lines * static_cast<std::size_t>(k_line);
}

std::vector<SuiteKernel> suite_catalogue(const core::Machine& m, int threads,
                                         const std::string& machine_file) {
    threads = std::max(1, threads);
    Sizes s;
    s.caches = core::cache_levels(m);
    require_sized_caches(s.caches, machine_file);
    double all = 0;
    for (const auto& c : s.caches)
        all += c.total();
    // Memory-resident data must overflow every cache the hardware reports, not only the part one core was
    // measured to use: in a VM that sees the host's L3 and uses only part of it, the cores together still
    // hit in the rest of it, which would make memory kernels run at L3 speed.
    double reported = 0;
    if (m.topology)
        for (const auto& c : m.topology->caches)
            reported += static_cast<double>(c.size_bytes) * std::max(1, c.instances);
    s.mem_working_set = 4.0 * std::max(all, reported);
    // And at least memory's own working set from the machine run (measure::find_memory_plateau: doubled
    // until its double streams within 5 %), where a victim last level serves more than the reported caches:
    // at four times them the copy calibrating B_MEM could be served partly by the host's L3, and its
    // bandwidth then changed from run to run with what the neighbours left there (docs/bench.md).
    if (const core::Level* mem = m.level("MEM"))
        for (const auto& p : mem->measurements)
            s.mem_working_set = std::max(s.mem_working_set, static_cast<double>(p.working_set_bytes));
    std::vector<SuiteKernel> out;
    add_stream(out, s);
    add_calibration(out, m, s, threads);
    add_overlap(out, m, s, threads, machine_file);
    add_mixed(out, m, s, threads, machine_file);
    suite_rows::add_apps(out, m, s, threads);
    for (const auto& k : out)
        check_kernel(k.spec);
    return out;
}

void require_known_suite(const std::string& suite) {
    if (suite != "all" && std::find(k_suite_names.begin(), k_suite_names.end(), suite) == k_suite_names.end())
        throw core::InputError(
            "", "suite",
            fmt::format("unknown suite '{}'; valid: {}, all", suite, fmt::join(k_suite_names, ", ")));
}

std::vector<SuiteKernel> select_kernels(std::vector<SuiteKernel> catalogue, const std::string& suite,
                                        const std::string& kernel) {
    const bool all = suite == "all";
    std::vector<SuiteKernel> out;
    if (!kernel.empty()) {
        for (auto& k : catalogue)
            if (k.name == kernel)
                out.push_back(std::move(k));
        if (out.empty()) {
            std::vector<std::string> names;
            for (const auto& k : catalogue)
                names.push_back(k.name);
            throw core::InputError(
                "", "kernel", fmt::format("unknown kernel '{}'; valid: {}", kernel, fmt::join(names, ", ")));
        }
        return out;
    }
    for (auto& k : catalogue)
        if (k.suite == "calibrate" && (all || suite == "calibrate"))
            out.push_back(k);
    for (auto& k : catalogue)
        if (k.suite != "calibrate" && (all || suite == k.suite))
            out.push_back(k);
    return out;
}

} // namespace roofcast::model
