// roofcast-stencil: the MPI runner `roofcast stencil` launches with mpirun (roofcast itself never links
// MPI). It runs a 3-D stencil (7-point Jacobi in double, Himeno in single precision) on a Cartesian process
// grid with deep-halo temporal blocking (Kawamura, Maruyama & Matsuoka): k sweeps per halo exchange of
// width k r, the ghost zone computed redundantly, the exchange overlapped with the inner region, then the
// boundary shell. It times every phase of every block and, with --check, compares the field with a serial
// reference computed on rank 0. Contract: rank 0 writes one JSON document to --out (docs/stencil.md);
// a bad argument prints one line "roofcast-stencil: error: ..." on rank 0 and exits 2.
#include "analysis/stencil/geometry.hpp"
#include "stencil/exchange.hpp"
#include "stencil/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <string>
#include <vector>

namespace {

using namespace roofcast;
using namespace roofcast::stencil;
using model::stencil::Box;
using model::stencil::Index3;
using model::stencil::RankGeometry;

struct Args {
    std::string kernel;
    Index3 n{0, 0, 0}; // z, y, x
    Index3 dims{1, 1, 1};
    std::vector<int> ks{1};
    int steps = 8;
    int reps = 3;
    int threads = 1;
    bool check = false;
    std::string out;
};

[[noreturn]] void fail(int rank, const std::string& what) {
    if (rank == 0)
        std::fprintf(stderr, "roofcast-stencil: error: %s\n", what.c_str());
    MPI_Finalize();
    std::exit(2);
}

std::vector<long> parse_list(const std::string& s, char sep) {
    std::vector<long> v;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        const auto next = s.find(sep, pos);
        const std::string item = s.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        std::size_t used = 0;
        const long x = std::stol(item, &used);
        if (used != item.size())
            throw std::invalid_argument(item);
        v.push_back(x);
        if (next == std::string::npos)
            break;
        pos = next + 1;
    }
    return v;
}

Args parse(int argc, char** argv, int rank) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "--check") {
            a.check = true;
            continue;
        }
        if (i + 1 >= argc)
            fail(rank, opt + ": expected a value");
        const std::string val = argv[++i];
        try {
            if (opt == "--kernel")
                a.kernel = val;
            else if (opt == "--grid") { // NXxNYxNZ
                const auto v = parse_list(val, 'x');
                if (v.size() != 3)
                    throw std::invalid_argument(val);
                a.n = {v[2], v[1], v[0]};
            } else if (opt == "--dims") { // pz,py,px
                const auto v = parse_list(val, ',');
                if (v.size() != 3)
                    throw std::invalid_argument(val);
                a.dims = {v[0], v[1], v[2]};
            } else if (opt == "--k") {
                a.ks.clear();
                for (long k : parse_list(val, ','))
                    a.ks.push_back(static_cast<int>(k));
            } else if (opt == "--steps")
                a.steps = static_cast<int>(parse_list(val, ',').at(0));
            else if (opt == "--reps")
                a.reps = static_cast<int>(parse_list(val, ',').at(0));
            else if (opt == "--threads")
                a.threads = static_cast<int>(parse_list(val, ',').at(0));
            else if (opt == "--out")
                a.out = val;
            else
                fail(rank, "unknown option " + opt);
        } catch (const std::exception&) {
            fail(rank, opt + ": cannot read '" + val + "'");
        }
    }
    if (a.kernel != "jacobi7" && a.kernel != "himeno")
        fail(rank, "--kernel: expected jacobi7 or himeno, got '" + a.kernel + "'");
    for (int d = 0; d < 3; ++d)
        if (a.n[d] < 3)
            fail(rank, "--grid: expected at least 3 points per dimension");
    if (a.steps < 1 || a.reps < 1 || a.threads < 1)
        fail(rank, "--steps, --reps, --threads: expected integers >= 1");
    if (a.out.empty())
        fail(rank, "--out: expected a file name");
    for (int k : a.ks)
        if (k < 1)
            fail(rank, "--k: expected k >= 1");
    return a;
}

struct Stat {
    double median = 0, min = 0, max = 0, mean = 0;
    int n = 0;
};

Stat summarize(std::vector<double> v) {
    Stat s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    s.n = static_cast<int>(v.size());
    s.min = v.front();
    s.max = v.back();
    s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    for (double x : v)
        s.mean += x / static_cast<double>(v.size());
    return s;
}

nlohmann::json to_json(const Stat& s) {
    return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"n", s.n}};
}

enum Phase { k_pack, k_inner, k_mpi, k_unpack, k_boundary, k_phases };
const char* const k_phase_names[k_phases] = {"pack", "inner", "mpi", "unpack", "boundary"};

template <typename K> struct Runner {
    using Real = typename K::Real;
    const Args& a;
    MPI_Comm cart;
    int rank;
    RankGeometry g;
    std::vector<int> neighbour;
    Field<Real> buf[2];

    void init(long halo) {
        Index3 origin, extent;
        for (int d = 0; d < 3; ++d) {
            origin[d] = g.owned.lo[d] - halo;
            extent[d] = g.owned.hi[d] - g.owned.lo[d] + 2 * halo;
        }
        // Every allocated point inside the global grid, ghosts included, in both buffers: the ghost layers
        // hold fixed boundary values too (a global boundary plane crossing a neighbour's block), which
        // no exchange refreshes in the second buffer.
        const Box inside = model::stencil::intersect(
            Box{origin, {origin[0] + extent[0], origin[1] + extent[1], origin[2] + extent[2]}},
            Box{{0, 0, 0}, a.n});
        for (auto& f : buf) {
            f.allocate(origin, extent);
            for (long z = inside.lo[0]; z < inside.hi[0]; ++z)
                for (long y = inside.lo[1]; y < inside.hi[1]; ++y)
                    for (long x = inside.lo[2]; x < inside.hi[2]; ++x)
                        f.data[f.at(z, y, x)] = static_cast<Real>(stencil::initial_value(z, y, x));
        }
    }

    // Runs a.steps sweeps in blocks of k; returns the wall time (this rank) and appends per-block phase
    // times; `gosa` receives the local sum of squared residuals of the last sweep (owned points only).
    double run(int k, std::vector<std::array<double, k_phases>>& phases, double& gosa, int& cur) {
        const long r = K::k_radius;
        HaloExchange<Real> ex(cart, g, neighbour);
        cur = 0;
        MPI_Barrier(cart);
        const double t_start = MPI_Wtime();
        for (int done = 0; done < a.steps; done += k) {
            const int kb = std::min(k, a.steps - done);
            std::array<double, k_phases> t{};
            double t0 = MPI_Wtime();
            ex.start(buf[cur], kb * r);
            double t1 = MPI_Wtime();
            t[k_pack] = t1 - t0;
            const bool last_block = done + kb >= a.steps;
            for (int s = 0; s < kb; ++s) {
                double* gs = last_block && s == kb - 1 ? &gosa : nullptr;
                const Box in = model::stencil::inner_box(g, a.n, s, static_cast<int>(r));
                for (const Box& piece : model::stencil::z_pieces(in, model::stencil::k_progress_pieces)) {
                    stencil::sweep<K>(piece, buf[(cur + s) % 2], buf[(cur + s + 1) % 2], gs);
                    ex.progress();
                }
            }
            t0 = MPI_Wtime();
            t[k_inner] = t0 - t1;
            ex.wait();
            t1 = MPI_Wtime();
            t[k_mpi] = t1 - t0;
            ex.unpack(buf[cur]);
            t0 = MPI_Wtime();
            t[k_unpack] = t0 - t1;
            for (int s = 0; s < kb; ++s) {
                double* gs = last_block && s == kb - 1 ? &gosa : nullptr;
                const Box ext = model::stencil::extended_box(g, a.n, kb, s, static_cast<int>(r));
                const Box in = model::stencil::inner_box(g, a.n, s, static_cast<int>(r));
                for (const Box& b : model::stencil::shell(ext, model::stencil::intersect(in, ext)))
                    stencil::sweep<K>(b, buf[(cur + s) % 2], buf[(cur + s + 1) % 2], gs);
            }
            t[k_boundary] = MPI_Wtime() - t0;
            phases.push_back(t);
            cur = (cur + kb) % 2;
        }
        return MPI_Wtime() - t_start;
    }

    // Rank 0: the whole final field (gathered) against a serial run of the same sweeps.
    nlohmann::json check(int cur, double gosa_total) {
        std::vector<Real> mine;
        copy_box(g.owned, buf[cur], mine, false);
        long box[6];
        for (int d = 0; d < 3; ++d) {
            box[d] = g.owned.lo[d];
            box[3 + d] = g.owned.hi[d];
        }
        int size = 1;
        MPI_Comm_size(cart, &size);
        if (rank != 0) {
            MPI_Send(box, 6, MPI_LONG, 0, 1, cart);
            MPI_Send(mine.data(), static_cast<int>(mine.size()), mpi_type<Real>(), 0, 2, cart);
            return {};
        }
        Field<Real> whole;
        whole.allocate({0, 0, 0}, a.n);
        copy_box(g.owned, whole, mine, true);
        for (int src = 1; src < size; ++src) {
            MPI_Recv(box, 6, MPI_LONG, src, 1, cart, MPI_STATUS_IGNORE);
            const Box b{{box[0], box[1], box[2]}, {box[3], box[4], box[5]}};
            std::vector<Real> part(static_cast<std::size_t>(b.cells()));
            MPI_Recv(part.data(), static_cast<int>(part.size()), mpi_type<Real>(), src, 2, cart,
                     MPI_STATUS_IGNORE);
            copy_box(b, whole, part, true);
        }
        Field<Real> ref[2];
        for (auto& f : ref) {
            f.allocate({0, 0, 0}, a.n);
            for (long z = 0; z < a.n[0]; ++z)
                for (long y = 0; y < a.n[1]; ++y)
                    for (long x = 0; x < a.n[2]; ++x)
                        f.data[f.at(z, y, x)] = static_cast<Real>(stencil::initial_value(z, y, x));
        }
        double gosa_ref = 0;
        for (int s = 0; s < a.steps; ++s)
            stencil::sweep<K>(model::stencil::interior(a.n), ref[s % 2], ref[(s + 1) % 2],
                              s == a.steps - 1 ? &gosa_ref : nullptr);
        const auto& expect = ref[a.steps % 2].data;
        long differ = 0;
        double max_abs = 0;
        nlohmann::json first = nullptr;
        for (std::size_t i = 0; i < expect.size(); ++i)
            // Bitwise equality is the promise (issue 17 §2), so the representations are compared.
            // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
            if (std::memcmp(&expect[i], &whole.data[i], sizeof(Real)) != 0) {
                if (differ == 0) {
                    const long li = static_cast<long>(i);
                    first = {li % a.n[2], li / a.n[2] % a.n[1], li / (a.n[1] * a.n[2])};
                }
                ++differ;
                max_abs = std::max(max_abs, std::abs(static_cast<double>(expect[i] - whole.data[i])));
            }
        nlohmann::json j{{"points", expect.size()},
                         {"points_differing", differ},
                         {"max_abs_difference", max_abs},
                         {"first_difference_xyz", first},
                         {"bitwise_equal", differ == 0}};
        if (a.kernel == "himeno") {
            // gosa: a double sum over each grid point once; ranks and threads add in another order.
            const double rel = std::abs(gosa_total - gosa_ref) / std::max(std::abs(gosa_ref), 1e-300);
            j["gosa"] = gosa_total;
            j["gosa_reference"] = gosa_ref;
            j["gosa_relative_difference"] = rel;
            j["gosa_tolerance"] = k_gosa_tolerance;
            j["gosa_within_tolerance"] = rel <= k_gosa_tolerance;
        }
        return j;
    }

    // Relative tolerance of gosa against the serial sum: a double sum of n float squares in another order
    // differs by at most about n * 2^-53 relative; 1e-9 covers grids up to 10^7 points.
    static constexpr double k_gosa_tolerance = 1e-9;

    // The fork-join and loop set-up cost of one sweep call (a one-point box), the model's per-sweep
    // constant: measured once, here, where the sweeps run. The point is the first interior point of the
    // rank's block: the block's own first point lies on the global boundary on the first rank, where the
    // sweep would be empty and return before any set-up.
    Stat sweep_overhead() {
        const Box in = model::stencil::intersect(g.owned, model::stencil::interior(a.n));
        const Box b{in.lo, {in.lo[0] + 1, in.lo[1] + 1, in.lo[2] + 1}};
        std::vector<double> samples;
        for (int i = 0; i < 41; ++i) {
            const double t0 = MPI_Wtime();
            for (int j = 0; j < 20; ++j)
                stencil::sweep<K>(b, buf[0], buf[1], nullptr);
            samples.push_back((MPI_Wtime() - t0) / 20);
        }
        return summarize(samples);
    }

    // The fixed cost of one exchange, the model's per-exchange latency: a one-value message to and from
    // each neighbour, all ranks at once, posted as the halo exchange posts them (Irecv, Isend, Waitall).
    // It holds the transport's start-up times and, where ranks share cores, the wait for a partner that
    // is not running; measured once, here, with the run's ranks, placement and transport. Each sample is
    // the mean of 20 rounds on the slowest rank.
    Stat exchange_overhead() {
        std::vector<int> peers, send_tags, recv_tags;
        for (const auto& msg : model::stencil::halo_messages(g, 1)) {
            peers.push_back(neighbour[HaloExchange<Real>::index(msg.dir)]);
            send_tags.push_back(HaloExchange<Real>::index(msg.dir));
            recv_tags.push_back(HaloExchange<Real>::index(HaloExchange<Real>::negate(msg.dir)));
        }
        std::vector<Real> out(peers.size(), Real(1)), in(peers.size());
        std::vector<MPI_Request> req(2 * peers.size());
        return slowest_samples(
            [&] {
                for (std::size_t p = 0; p < peers.size(); ++p)
                    MPI_Irecv(&in[p], 1, mpi_type<Real>(), peers[p], recv_tags[p], cart, &req[p]);
                for (std::size_t p = 0; p < peers.size(); ++p)
                    MPI_Isend(&out[p], 1, mpi_type<Real>(), peers[p], send_tags[p], cart,
                              &req[peers.size() + p]);
                MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
            },
            41, 20);
    }

    // `samples` samples of `body` on every rank at once, each the mean over `rounds` rounds, and the slowest
    // rank's value of each.
    template <typename F> Stat slowest_samples(F&& body, std::size_t samples, int rounds) {
        std::vector<double> local, slowest(samples);
        MPI_Barrier(cart);
        for (std::size_t i = 0; i < samples; ++i) {
            const double t0 = MPI_Wtime();
            for (int j = 0; j < rounds; ++j)
                body();
            local.push_back((MPI_Wtime() - t0) / rounds);
        }
        MPI_Allreduce(local.data(), slowest.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX,
                      cart);
        return summarize(slowest);
    }

    // 21 slowest-rank samples of `body` (slowest_samples), each the mean over enough rounds for about
    // `seconds` (the count agreed from the slowest rank's first round, which also warms up).
    template <typename F> Stat slowest_mean(F&& body, double seconds = 5e-4) {
        MPI_Barrier(cart);
        const double t0 = MPI_Wtime();
        body();
        double once = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &once, 1, MPI_DOUBLE, MPI_MAX, cart);
        return slowest_samples(body, 21,
                               std::clamp(static_cast<int>(seconds / std::max(once, 1e-9)), 1, 1000));
    }

    // The time of one point update where the run's sweeps run, the model's t_cell: a sweep of the rank's
    // owned interior in one call, every rank at once (so that ranks share the cores and the memory as they
    // do in the run), less the per-sweep constant, over its points. Each sample is the slowest rank's mean
    // over sweeps of about 1 ms; the median of 21 samples is the figure (docs/stencil.md).
    Stat cell_time(double sweep_constant) {
        const Box b = model::stencil::intersect(g.owned, model::stencil::interior(a.n));
        const double cells = static_cast<double>(b.cells());
        if (cells <= 0)
            return {};
        int j = 0;
        Stat t = slowest_mean(
            [&] {
                stencil::sweep<K>(b, buf[j % 2], buf[(j + 1) % 2], nullptr);
                ++j;
            },
            1e-3);
        // Per point, less the constant: a monotone map, so the summary maps field by field. On a box so small
        // that the sweep takes little more than the constant, the two noisy figures could leave nothing (or
        // less) per point, which no run has: the constant may claim at most k_constant_share of the sweep.
        constexpr double k_constant_share = 0.9;
        for (double* x : {&t.median, &t.min, &t.max, &t.mean})
            *x = std::max(*x - sweep_constant, (1 - k_constant_share) * *x) / cells;
        return t;
    }

    // The halo exchange as the run does it (pack and post, wait, unpack), measured where the run happens
    // (issue 17; docs/stencil.md): alone at every halo width of the run's k (r, 2r, ... at least two), the
    // exchange's cost against its size (its protocol, the copies the cores make, a transport's steps); and
    // around the inner sweep of k = 1, against that sweep alone, which shows how much of it hides.
    // Empty on a rank grid without neighbours.
    nlohmann::json halo_exchange_costs() {
        const long r = K::k_radius;
        long any = static_cast<long>(model::stencil::halo_messages(g, r).size());
        MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_LONG, MPI_MAX, cart);
        if (any == 0)
            return nullptr;
        HaloExchange<Real> ex(cart, g, neighbour);
        nlohmann::json widths = nlohmann::json::array();
        // Every width of the run's k (at least r and 2r) whose halo fits the blocks; run_all allocates the
        // ghosts for the widest.
        std::vector<long> ws;
        const long deepest = std::max<long>(*std::max_element(a.ks.begin(), a.ks.end()), 2);
        for (long k = 1; k <= deepest; ++k)
            if (k == 1 || k * r < model::stencil::smallest_split_extent(a.n, a.dims))
                ws.push_back(k * r);
        const Box in = model::stencil::inner_box(g, a.n, 0, static_cast<int>(r));
        const auto pieces = model::stencil::z_pieces(in, model::stencil::k_progress_pieces);
        const Stat inner = slowest_mean([&] {
            for (const Box& piece : pieces)
                stencil::sweep<K>(piece, buf[0], buf[1], nullptr);
        });
        // At every width: the exchange alone, and around the inner sweep of k = 1 as the run does it,
        // repeated m times so that the sweeps last at least as long as the exchange alone (m = 1 when one
        // sweep does): what the exchange then adds to the m sweeps is its work on the cores and what it slows
        // them by, with no wire time left over. The one-sweep measurement at width r: the overlap fraction of
        // older files, kept for comparison.
        auto around = [&](long width, long sweeps) {
            return slowest_mean([&] {
                ex.start(buf[0], width);
                for (long rep = 0; rep < sweeps; ++rep)
                    for (const Box& piece : pieces) {
                        stencil::sweep<K>(piece, buf[0], buf[1], nullptr);
                        ex.progress();
                    }
                ex.wait();
                ex.unpack(buf[0]);
            });
        };
        const Stat both_r = around(r, 1);
        for (const long w : ws) {
            double bytes = 0;
            for (const auto& msg : model::stencil::halo_messages(g, w))
                bytes += static_cast<double>(msg.cells) * sizeof(Real);
            MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_MAX, cart);
            const Stat t = slowest_mean([&] {
                ex.start(buf[0], w);
                ex.wait();
                ex.unpack(buf[0]);
            });
            long m = inner.median > 0 ? static_cast<long>(std::ceil(t.median / inner.median)) : 1;
            m = std::clamp<long>(m, 1, 64);
            MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_LONG, MPI_MAX, cart);
            const Stat both = around(w, m);
            widths.push_back({{"width", w},
                              {"bytes", bytes},
                              {"seconds", to_json(t)},
                              {"overlapped_seconds", to_json(both)},
                              {"overlapped_sweeps", m}});
        }
        return {
            {"widths", widths}, {"inner_seconds", to_json(inner)}, {"overlapped_seconds", to_json(both_r)}};
    }

    nlohmann::json run_all() {
        const long r = K::k_radius;
        nlohmann::json runs = nlohmann::json::array();
        // Ghosts for the deepest k run and for the exchange of width 2r that halo_exchange_costs times.
        init(std::max<long>(*std::max_element(a.ks.begin(), a.ks.end()), 2) * r);
        const Stat overhead = sweep_overhead();
        const Stat exchange = exchange_overhead();
        const Stat cell = cell_time(overhead.median);
        const nlohmann::json halo = halo_exchange_costs();
        // Repetitions go round the k values (k = 1, 2, .., 1, 2, ..), so that a slow minute of a shared host
        // falls on every k alike instead of on the k that happened to run then.
        const std::size_t nk = a.ks.size();
        std::vector<std::vector<double>> per_step(nk);
        std::vector<std::vector<std::vector<double>>> phase_samples(
            nk, std::vector<std::vector<double>>(k_phases));
        std::vector<nlohmann::json> check_result(nk);
        for (int rep = 0; rep < a.reps; ++rep)
            for (std::size_t i = 0; i < nk; ++i) {
                const int k = a.ks[i];
                init(static_cast<long>(k) * r);
                std::vector<std::array<double, k_phases>> phases;
                double gosa = 0;
                int cur = 0;
                const double wall = run(k, phases, gosa, cur);
                double wall_max = 0, gosa_total = 0;
                MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
                MPI_Reduce(&gosa, &gosa_total, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
                // The critical path of each block: the slowest rank's time of each phase.
                std::vector<double> local(phases.size() * k_phases), slowest(local.size());
                for (std::size_t b = 0; b < phases.size(); ++b)
                    for (int p = 0; p < k_phases; ++p)
                        local[b * k_phases + p] = phases[b][p];
                MPI_Reduce(local.data(), slowest.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX,
                           0, cart);
                per_step[i].push_back(wall_max / a.steps);
                for (std::size_t b = 0; b < phases.size(); ++b)
                    for (int p = 0; p < k_phases; ++p)
                        phase_samples[i][p].push_back(slowest[b * k_phases + p]);
                if (a.check && rep == 0)
                    check_result[i] = check(cur, gosa_total);
            }
        for (std::size_t i = 0; i < nk; ++i) {
            const int k = a.ks[i];
            nlohmann::json run{{"k", k},
                               {"halo_width", k * r},
                               {"blocks", (a.steps + k - 1) / k},
                               {"seconds_per_step", to_json(summarize(per_step[i]))}};
            nlohmann::json ph;
            for (int p = 0; p < k_phases; ++p)
                ph[k_phase_names[p]] = to_json(summarize(phase_samples[i][p]));
            run["phase_seconds_per_block"] = ph;
            if (a.check)
                run["check"] = check_result[i];
            runs.push_back(run);
        }
        return {{"sweep_overhead_seconds", to_json(overhead)},
                {"exchange_overhead_seconds", to_json(exchange)},
                {"cell_seconds", to_json(cell)},
                {"halo_exchange", halo},
                {"runs", runs}};
    }
};

template <typename K>
nlohmann::json run_kernel(const Args& a, MPI_Comm cart, int rank, const RankGeometry& g,
                          const std::vector<int>& neighbour) {
    Runner<K> r{a, cart, rank, g, neighbour, {}};
    return r.run_all();
}

} // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Args a = parse(argc, argv, rank);
    if (a.dims[0] * a.dims[1] * a.dims[2] != size)
        fail(rank, "--dims: the process grid must hold every rank (" + std::to_string(size) + ")");
    const long limit = model::stencil::smallest_split_extent(a.n, a.dims);
    for (int k : a.ks)
        if (static_cast<long>(k) * model::stencil::k_radius >= limit)
            fail(rank, "--k: the halo width k*r = " + std::to_string(k * model::stencil::k_radius) +
                           " must be smaller than the smallest local extent " + std::to_string(limit) +
                           " (use k <= " + std::to_string(limit - 1) + ")");
    omp_set_num_threads(a.threads);

    int dims[3] = {static_cast<int>(a.dims[0]), static_cast<int>(a.dims[1]), static_cast<int>(a.dims[2])};
    int periods[3] = {0, 0, 0};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int coords[3];
    MPI_Cart_coords(cart, rank, 3, coords);
    const RankGeometry g = model::stencil::rank_geometry(a.n, a.dims, {coords[0], coords[1], coords[2]});
    std::vector<int> neighbour(27, MPI_PROC_NULL);
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int c[3] = {coords[0] + dz, coords[1] + dy, coords[2] + dx};
                bool inside = true;
                for (int d = 0; d < 3; ++d)
                    inside = inside && c[d] >= 0 && c[d] < dims[d];
                if (inside)
                    MPI_Cart_rank(cart, c, &neighbour[HaloExchange<double>::index({dz, dy, dx})]);
            }

    nlohmann::json result = a.kernel == "jacobi7" ? run_kernel<stencil::Jacobi7>(a, cart, rank, g, neighbour)
                                                  : run_kernel<stencil::Himeno>(a, cart, rank, g, neighbour);
    if (rank == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(version, &len);
        std::string lib(version, static_cast<std::size_t>(len));
        lib = lib.substr(0, lib.find_first_of("\n,"));
        result["kernel"] = a.kernel;
        result["grid"] = {a.n[2], a.n[1], a.n[0]};
        result["process_grid"] = {a.dims[2], a.dims[1], a.dims[0]};
        result["ranks"] = size;
        result["threads"] = a.threads;
        result["steps"] = a.steps;
        result["reps"] = a.reps;
        result["library"] = lib;
        const std::string tmp = a.out + ".part";
        {
            std::ofstream f(tmp);
            f << result.dump(2) << "\n";
        }
        std::rename(tmp.c_str(), a.out.c_str());
    }
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
