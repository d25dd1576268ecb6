#include "analysis/stencil/model.hpp"

#include "core/error.hpp"
#include "core/units.hpp"
#include "model/kernel.hpp"
#include "model/predict.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <stdexcept>

namespace roofcast::model::stencil {

double PhaseTimes::block() const {
    if (added)
        return pack + std::max(inner + *added, comm) + unpack + boundary;
    return pack + inner + comm - overlap * std::min(inner, comm) + unpack + boundary;
}

double exchange_seconds(const std::vector<std::pair<double, double>>& points, double bytes) {
    if (points.empty())
        return 0.0;
    if (points.size() == 1)
        return points.front().second;
    // The segment that holds `bytes`, or the first or last one to extend.
    std::size_t i = 1;
    while (i + 1 < points.size() && bytes > points[i].first)
        ++i;
    const auto& [x0, y0] = points[i - 1];
    const auto& [x1, y1] = points[i];
    if (!(x1 > x0))
        return y1;
    return std::max(0.0, y0 + (y1 - y0) * (bytes - x0) / (x1 - x0));
}

namespace {

// The stencils the runner knows: element size and flops per updated point (7-point Jacobi in double: 6
// additions, 2 multiplications; Himeno in single: 34 (Himeno benchmark, jacobi())).
struct StencilKernel {
    const char* name;
    double element_bytes;
    double flops_per_point;
};
constexpr std::array<StencilKernel, 2> k_stencil_kernels{{{"jacobi7", 8, 8}, {"himeno", 4, 34}}};

const StencilKernel& stencil_kernel(const std::string& kernel) {
    for (const auto& k : k_stencil_kernels)
        if (kernel == k.name)
            return k;
    throw core::InputError("", "kernel",
                           fmt::format("expected {}, got '{}'", fmt::join(kernel_names(), " or "), kernel));
}

} // namespace

const std::vector<std::string>& kernel_names() {
    static const std::vector<std::string> k_names = [] {
        std::vector<std::string> names;
        for (const auto& k : k_stencil_kernels)
            names.emplace_back(k.name);
        return names;
    }();
    return k_names;
}

double element_bytes(const std::string& kernel) {
    return stencil_kernel(kernel).element_bytes;
}

double flops_per_point(const std::string& kernel) {
    return stencil_kernel(kernel).flops_per_point;
}

int max_k(const StencilProblem& p) {
    const long limit = smallest_split_extent(p.n, p.dims);
    const long k = (limit - 1) / k_radius;
    return static_cast<int>(std::clamp<long>(k, 0, 1 << 20));
}

PhaseTimes block_times(const StencilProblem& p, const RankGeometry& g, const CostInputs& c, int kb) {
    PhaseTimes t;
    for (int s = 0; s < kb; ++s) {
        const Box ext = extended_box(g, p.n, kb, s, k_radius);
        const Box in = intersect(inner_box(g, p.n, s, k_radius), ext);
        const auto pieces = z_pieces(in, k_progress_pieces);
        const auto shell_boxes = shell(ext, in);
        t.inner += static_cast<double>(in.cells()) * c.seconds_per_cell +
                   static_cast<double>(pieces.size()) * c.sweep_constant_s;
        t.boundary += static_cast<double>(ext.cells() - in.cells()) * c.seconds_per_cell +
                      static_cast<double>(shell_boxes.size()) * c.sweep_constant_s;
    }
    t.overlap = c.overlap;
    const auto messages = halo_messages(g, static_cast<long>(kb) * k_radius);
    if (!c.exchange_points.empty()) {
        // Measured where the run happens: the whole exchange, packing and unpacking included.
        if (!messages.empty()) {
            double bytes = 0;
            for (const auto& m : messages)
                bytes += static_cast<double>(m.cells) * c.element_bytes;
            t.comm = exchange_seconds(c.exchange_points, bytes);
            if (!c.exchange_added_points.empty())
                t.added = exchange_seconds(c.exchange_added_points, bytes);
        }
        return t;
    }
    // The measured exchange holds the start-up times of every message, paid together.
    if (c.exchange_latency_s > 0 && !messages.empty())
        t.comm += c.exchange_latency_s;
    for (const auto& m : messages) {
        const double bytes = static_cast<double>(m.cells) * c.element_bytes;
        // Each value is read from the field and written to the buffer (pack), and back (unpack).
        if (c.copy_bytes_per_second > 0) {
            t.pack += 2 * bytes / c.copy_bytes_per_second;
            t.unpack += 2 * bytes / c.copy_bytes_per_second;
        }
        // Hockney (Parallel Computing 20, 1994): t(m) = alpha + m / beta per message, sent one after another.
        t.comm += (c.exchange_latency_s > 0 ? 0.0 : c.alpha_s) +
                  (c.beta_bytes_per_second > 0 ? bytes / c.beta_bytes_per_second : 0.0);
    }
    return t;
}

namespace {

// One coordinate of each kind a dimension's blocks come in (first, last, inner larger, inner smaller):
// every rank's geometry equals that of a combination of these, so the slowest rank is among them.
std::vector<long> representative_coords(long n, long parts) {
    const long extra = n % parts;
    std::set<long> c{0, 1, parts - 2, parts - 1, extra - 1, extra};
    std::vector<long> out;
    for (long x : c)
        if (x >= 0 && x < parts)
            out.push_back(x);
    return out;
}

} // namespace

KPrediction predict_k(const StencilProblem& p, const CostInputs& c, int k) {
    if (k < 1 || k > max_k(p))
        throw std::invalid_argument(fmt::format("predict_k: k = {} outside 1..{}", k, max_k(p)));
    KPrediction out;
    out.k = k;
    const long blocks = (p.steps + k - 1) / k;
    const int last = p.steps - static_cast<int>(blocks - 1) * k;
    for (long z : representative_coords(p.n[0], p.dims[0]))
        for (long y : representative_coords(p.n[1], p.dims[1]))
            for (long x : representative_coords(p.n[2], p.dims[2])) {
                const RankGeometry g = rank_geometry(p.n, p.dims, {z, y, x});
                const PhaseTimes full = block_times(p, g, c, k);
                const double total = static_cast<double>(blocks - 1) * full.block() +
                                     (last == k ? full : block_times(p, g, c, last)).block();
                if (total > out.seconds) {
                    out.seconds = total;
                    out.first_block = full;
                }
            }
    out.seconds_per_step = out.seconds / p.steps;
    return out;
}

KChoice choose_k(const StencilProblem& p, const CostInputs& c, int kmax) {
    KChoice ch;
    const int top = std::min({kmax, max_k(p), std::max(p.steps, 1), k_max_depth});
    if (top < 1)
        throw std::invalid_argument("choose_k: no k fits the blocks");
    for (int k = 1; k <= top; ++k)
        ch.all.push_back(predict_k(p, c, k));
    std::size_t best = 0;
    for (std::size_t i = 1; i < ch.all.size(); ++i)
        if (ch.all[i].seconds < ch.all[best].seconds)
            best = i;
    ch.best_k = ch.all[best].k;
    const double t1 = ch.all.front().seconds;
    ch.gain_over_k1 = t1 > 0 ? (t1 - ch.all[best].seconds) / t1 : 0.0;
    return ch;
}

namespace {

// The kernel's loop nest at one rank's block, so that the mixed model's layer conditions see the rows and
// planes the sweeps stream through.
KernelSpec loop_kernel(const std::string& kernel, const Index3& extent) {
    KernelSpec k;
    k.name = kernel;
    k.precision = kernel == "himeno" ? "single" : "double";
    k.flops_per_iteration = flops_per_point(kernel);
    const std::string type = kernel == "himeno" ? "float" : "double";
    LoopNest n;
    n.indices = {"k", "j", "i"};
    n.bounds = {std::max<long>(extent[0] - 2, 1), std::max<long>(extent[1] - 2, 1),
                std::max<long>(extent[2] - 2, 1)};
    const std::vector<long> dims{extent[0], extent[1], extent[2]};
    n.arrays = {{"p", type, dims}, {"q", type, dims}};
    std::vector<std::vector<long>> reads{{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                         {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    if (kernel == "himeno") // the twelve edge neighbours of the 19-point stencil
        for (int a = 0; a < 3; ++a)
            for (int b = a + 1; b < 3; ++b)
                for (int sa : {-1, 1})
                    for (int sb : {-1, 1}) {
                        std::vector<long> o{0, 0, 0};
                        o[static_cast<std::size_t>(a)] = sa;
                        o[static_cast<std::size_t>(b)] = sb;
                        reads.push_back(o);
                    }
    for (const auto& o : reads)
        n.accesses.push_back({"p", o, false, {}});
    n.accesses.push_back({"q", {0, 0, 0}, true, {}});
    k.loop = n;
    k.iterations = static_cast<double>(n.bounds[0] * n.bounds[1] * n.bounds[2]);
    return k;
}

} // namespace

MachineCosts machine_costs(const StencilProblem& p, const core::Machine& m, const MachineCostOptions& o) {
    MachineCosts out;
    const std::string file = o.machine_file.empty() ? m.name : o.machine_file;
    out.inputs.element_bytes = element_bytes(p.kernel);
    // The largest block (rank 0's: the first blocks take the remainder) with its deepest halo.
    const RankGeometry g = rank_geometry(p.n, p.dims, {0, 0, 0});
    Index3 extent;
    for (int d = 0; d < 3; ++d)
        extent[d] = g.owned.hi[d] - g.owned.lo[d] + 2 * k_radius;
    const int cores = m.topology ? std::max(1, m.topology->cores) : 1;
    const int busy = std::min(cores, std::max(1, o.ranks_per_node * o.threads));
    PredictOptions po;
    po.threads = busy;
    po.models = {"mixed"};
    po.machine_file = file;
    const auto preds = predict(loop_kernel(p.kernel, extent), m, po);
    // The machine's aggregate rate at `busy` threads is shared by the ranks of a node.
    const double modelled = preds.at(0).seconds_per_iteration * o.ranks_per_node;
    out.cell_source =
        fmt::format("mixed model, {} thread{} for {} rank{}: {:.3g} ns per point and rank", busy,
                    busy == 1 ? "" : "s", o.ranks_per_node, o.ranks_per_node == 1 ? "" : "s", modelled * 1e9);
    out.inputs.seconds_per_cell = modelled;
    if (o.seconds_per_cell && *o.seconds_per_cell > 0) {
        // Measured where the sweeps run (ranks sharing cores and memory, pages and placement as they are):
        // it replaces the machine file's figure, which is kept beside it for comparison.
        out.inputs.seconds_per_cell = *o.seconds_per_cell;
        out.cell_source = fmt::format("measured by roofcast-stencil: {:.3g} ns per point and rank ({})",
                                      *o.seconds_per_cell * 1e9, out.cell_source);
    }

    // Copy bandwidth: the closest level holding both fields of a rank.
    const double fields =
        2.0 * static_cast<double>(extent[0] * extent[1] * extent[2]) * out.inputs.element_bytes;
    const core::Level* chosen = nullptr;
    for (const auto& l : m.levels) {
        const double b = l.effective_bandwidth_gbs.value_or(l.bandwidth_gbs.value_or(0));
        if (b <= 0)
            continue;
        chosen = &l;
        if (l.size_bytes && static_cast<double>(*l.size_bytes) >= fields)
            break;
    }
    if (!chosen)
        throw core::InputError(file, "levels", "expected a bandwidth_gbs for at least one level");
    const double gbs = chosen->effective_bandwidth_gbs.value_or(chosen->bandwidth_gbs.value_or(0));
    out.inputs.copy_bytes_per_second = gbs * core::k_giga / o.ranks_per_node;
    out.copy_source = fmt::format("{} bandwidth {:.3g} GB/s shared by {} rank{}", chosen->name, gbs,
                                  o.ranks_per_node, o.ranks_per_node == 1 ? "" : "s");

    std::optional<double> alpha = o.alpha_s;
    std::optional<double> beta = o.beta_gbs;
    if (m.mpi && !alpha)
        alpha = m.mpi->alpha_s;
    if (m.mpi && !beta)
        beta = m.mpi->beta_gbs;
    if (!alpha || !beta)
        throw core::InputError(file, !alpha ? "mpi.alpha_s" : "mpi.beta_gbs",
                               "expected the MPI Hockney figures (measure them with `roofcast machine`, or "
                               "give alpha and beta as options)");
    if (*alpha < 0 || !(*beta > 0))
        throw core::InputError(file, "mpi", "expected alpha >= 0 s and beta > 0 GB/s");
    out.inputs.alpha_s = *alpha;
    out.inputs.beta_bytes_per_second = *beta * core::k_giga;
    out.comm_source = fmt::format("Hockney alpha {:.3g} us, beta {:.3g} GB/s ({})", *alpha * 1e6, *beta,
                                  o.alpha_s || o.beta_gbs ? "entered" : "machine file mpi section");

    if (o.exchange_latency_s && *o.exchange_latency_s > 0) {
        out.inputs.exchange_latency_s = *o.exchange_latency_s;
        out.comm_source += fmt::format("; start-up per exchange {:.3g} us measured by roofcast-stencil "
                                       "(one-value messages to every neighbour) in place of alpha",
                                       *o.exchange_latency_s * 1e6);
    }
    if (!o.exchange_points.empty()) {
        out.inputs.exchange_points = o.exchange_points;
        out.inputs.overlap = std::min(o.overlap.value_or(1.0), 1.0);
        out.inputs.exchange_added_points = o.exchange_added_points;
        auto list = [](const std::vector<std::pair<double, double>>& points) {
            std::vector<std::string> parts;
            for (const auto& [b, t] : points)
                parts.push_back(fmt::format("{:.3g} us for {:.0f} B", t * 1e6, b));
            return fmt::format("{}", fmt::join(parts, ", "));
        };
        const std::string hidden =
            o.exchange_added_points.empty()
                ? fmt::format("{:.0f} % of it hidden behind the inner sweep", 100 * out.inputs.overlap)
                : fmt::format("adding {} to the inner sweeps of k = 1 run around it (a block: max(inner + "
                              "added, exchange))",
                              list(o.exchange_added_points));
        out.comm_source = fmt::format("exchange measured by roofcast-stencil at {} halo width{} ({}; pack, "
                                      "send, wait, unpack), {}; the machine file's Hockney alpha {:.3g} us, "
                                      "beta {:.3g} GB/s unused",
                                      o.exchange_points.size(), o.exchange_points.size() == 1 ? "" : "s",
                                      list(o.exchange_points), hidden, *alpha * 1e6, *beta);
        out.copy_source += " (unused: the measured exchange holds its copies)";
    }
    if (o.sweep_constant_s) {
        out.inputs.sweep_constant_s = *o.sweep_constant_s;
        out.sweep_source = "measured by roofcast-stencil (one-point sweep)";
    } else {
        const core::ThreadOverhead* near = nullptr;
        for (const auto& t : m.thread_overhead)
            if (t.method == "omp_parallel" &&
                (!near || std::abs(t.threads - o.threads) < std::abs(near->threads - o.threads)))
                near = &t;
        if (near) {
            out.inputs.sweep_constant_s = near->seconds.median;
            out.sweep_source =
                fmt::format("machine file thread_overhead (omp_parallel, {} threads)", near->threads);
        } else {
            out.sweep_source = "none (the machine file has no thread_overhead): 0";
        }
    }
    return out;
}

} // namespace roofcast::model::stencil
