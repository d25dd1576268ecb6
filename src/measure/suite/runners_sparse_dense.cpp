// The sparse and dense linear-algebra runners of the kernel suite (runners.hpp): SpMV in CSR and SELL-C-1
// with the gather choice, the blocked and the packed matmul with its k-block choice, and the norm.
#include "measure/suite/runners.hpp"

#include "measure/harness.hpp"
#include "measure/suite/team.hpp"
#include "measure/suite/tuned_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::suite {

using detail::time_team;
using detail::touch_blocks;

namespace {

// Splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014):
// a stateless hash, so the generated matrix does not depend on which thread builds which row.
std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

void spmv_columns(const SpmvShape& s, std::size_t r, std::int32_t* out) {
    const std::size_t lo = r >= s.band ? r - s.band : 0;
    const std::size_t hi = std::min(s.rows, r + s.band + 1); // exclusive
    const std::size_t span = hi - lo;
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(s.nnz_per_row), span);
    // Choose k distinct columns in [lo, hi) by Floyd's sampling, then sort.
    std::vector<std::int32_t> chosen;
    chosen.reserve(k);
    for (std::size_t j = span - k; j < span; ++j) {
        const std::size_t t = splitmix64((static_cast<std::uint64_t>(r) << 20) ^ j) % (j + 1);
        const auto cand = static_cast<std::int32_t>(lo + t);
        if (std::find(chosen.begin(), chosen.end(), cand) == chosen.end())
            chosen.push_back(cand);
        else
            chosen.push_back(static_cast<std::int32_t>(lo + j));
    }
    std::sort(chosen.begin(), chosen.end());
    std::copy(chosen.begin(), chosen.end(), out);
}

Measurement run_spmv(const SpmvShape& s, const SuiteOptions& opt, Workspace& ws) {
    if (s.rows == 0 || s.nnz_per_row < 1 || 2 * s.band + 1 < static_cast<std::size_t>(s.nnz_per_row) ||
        s.rows < static_cast<std::size_t>(s.nnz_per_row))
        throw std::invalid_argument("spmv: need rows >= nnz_per_row and 2*band+1 >= nnz_per_row");
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    const std::size_t nnz = s.rows * per;
    double* val = ws.array<double>(0, nnz);
    double* x = ws.array<double>(1, s.rows);
    double* y = ws.array<double>(2, s.rows);
    auto* col = ws.array<std::int32_t>(3, nnz);
    auto* row_ptr = ws.array<std::int64_t>(4, s.rows + 1);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t r = 0; r < s.rows; ++r) {
            row_ptr[r] = static_cast<std::int64_t>(r * per);
            spmv_columns(s, r, col + r * per);
            for (std::size_t e = r * per; e < (r + 1) * per; ++e)
                val[e] = 1.0 / static_cast<double>(1 + e % 3);
            x[r] = 1.0;
            y[r] = 0.0;
        }
    }
    row_ptr[s.rows] = static_cast<std::int64_t>(nnz);
    Measurement m = time_team(opt, [&] { spmv_body(y, val, col, row_ptr, x, s.rows); });
    m.checksum = y[s.rows / 2];
    return m;
}

Measurement run_matmul(std::size_t n, std::size_t tile, const SuiteOptions& opt, Workspace& ws) {
    if (tile == 0 || n % tile != 0)
        throw std::invalid_argument("matmul: n must be a multiple of the tile size");
    double* a = ws.array<double>(0, n * n);
    double* b = ws.array<double>(1, n * n);
    double* c = ws.array<double>(2, n * n);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (std::size_t ii = 0; ii < n; ii += tile) {
            for (std::size_t x = ii * n; x < (ii + tile) * n; ++x) {
                a[x] = 1.0 / static_cast<double>(1 + x % 7);
                b[x] = 1.0 / static_cast<double>(1 + x % 5);
                c[x] = 0.0;
            }
        }
    }
    Measurement m = time_team(opt, [&] { matmul_body(c, a, b, n, tile); });
    m.checksum = c[n + 1];
    return m;
}

int sell_chunk_rows() {
    return k_vector_doubles;
}

GemmTile gemm_tile() {
    return {k_gemm_mr, k_gemm_nr};
}

namespace {

// Chunk c of the SELL-C-1 form (C = k_vector_doubles) of the matrix of shape s: its first element and width,
// the columns and values of its C rows (element e of row r in CSR, as run_spmv builds it, sits at
// c*C*per + j*C + l here: the same values), and those rows of x (1) and y (0). `row`: nnz_per_row scratch.
void fill_sell_chunk(const SpmvShape& s, std::size_t c, std::int32_t* row, double* val, std::int32_t* col,
                     std::int64_t* chunk_ptr, std::int32_t* chunk_len, double* x, double* y) {
    constexpr auto C = static_cast<std::size_t>(k_vector_doubles);
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    chunk_ptr[c] = static_cast<std::int64_t>(c * C * per);
    chunk_len[c] = s.nnz_per_row;
    for (std::size_t l = 0; l < C; ++l) {
        const std::size_t r = c * C + l;
        spmv_columns(s, r, row);
        for (std::size_t j = 0; j < per; ++j) {
            const std::size_t e = c * C * per + j * C + l;
            col[e] = row[j];
            val[e] = 1.0 / static_cast<double>(1 + (r * per + j) % 3);
        }
        x[r] = 1.0;
        y[r] = 0.0;
    }
}

SpmvGatherChoice time_gathers() {
    constexpr int C = k_vector_doubles;
    const SpmvShape s{1024, 16, 64};
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    const std::size_t nnz = s.rows * per, chunks = s.rows / C;
    std::vector<double> val(nnz), x(s.rows), y(s.rows);
    std::vector<std::int32_t> col(nnz), row(per), len(chunks);
    std::vector<std::int64_t> ptr(chunks);
    for (std::size_t c = 0; c < chunks; ++c)
        fill_sell_chunk(s, c, row.data(), val.data(), col.data(), ptr.data(), len.data(), x.data(), y.data());
    const auto call = [&](auto body) {
        return
            [&, body] { body(y.data(), val.data(), col.data(), ptr.data(), len.data(), x.data(), chunks); };
    };
    const std::vector<double> best = fastest_interleaved(
        {call(spmv_sell_body<C, true, double>), call(spmv_sell_body<C, false, double>)}, 9, 1);
    const double ns_per_nz = 1e9 / static_cast<double>(nnz);
    SpmvGatherChoice c{false, best[0] * ns_per_nz, best[1] * ns_per_nz};
    c.hardware = c.hardware_ns < c.shuffle_ns;
    return c;
}

} // namespace

const SpmvGatherChoice& spmv_gather_choice() {
    static const SpmvGatherChoice choice = time_gathers();
    return choice;
}

std::string spmv_sell_symbol() {
    return "roofcast::measure::suite::spmv_sell_body<" + std::to_string(k_vector_doubles) +
           (spmv_gather_choice().hardware ? ", true" : ", false");
}

Measurement run_spmv_sell(const SpmvShape& s, const SuiteOptions& opt, Workspace& ws) {
    constexpr int C = k_vector_doubles;
    if (s.rows == 0 || s.nnz_per_row < 1 || 2 * s.band + 1 < static_cast<std::size_t>(s.nnz_per_row) ||
        s.rows < static_cast<std::size_t>(s.nnz_per_row) || s.rows % C != 0)
        throw std::invalid_argument(
            "spmv (SELL): need rows >= nnz_per_row, 2*band+1 >= nnz_per_row, rows a multiple of the chunk");
    const auto per = static_cast<std::size_t>(s.nnz_per_row);
    const std::size_t nnz = s.rows * per, chunks = s.rows / C;
    double* val = ws.array<double>(0, nnz);
    double* x = ws.array<double>(1, s.rows);
    double* y = ws.array<double>(2, s.rows);
    auto* col = ws.array<std::int32_t>(3, nnz);
    auto* chunk_ptr = ws.array<std::int64_t>(4, chunks);
    auto* chunk_len = ws.array<std::int32_t>(5, chunks);
    const int threads = std::max(1, opt.threads);
#pragma omp parallel num_threads(threads)
    {
        std::vector<std::int32_t> row(per);
#pragma omp for schedule(static)
        for (std::size_t c = 0; c < chunks; ++c)
            fill_sell_chunk(s, c, row.data(), val, col, chunk_ptr, chunk_len, x, y);
    }
    Measurement m =
        spmv_gather_choice().hardware
            ? time_team(opt, [&] { spmv_sell_body<C, true>(y, val, col, chunk_ptr, chunk_len, x, chunks); })
            : time_team(opt, [&] { spmv_sell_body<C>(y, val, col, chunk_ptr, chunk_len, x, chunks); });
    m.checksum = y[s.rows / 2];
    return m;
}

BlockChoice gemm_block_choice(std::size_t n,
                              const std::vector<std::pair<std::size_t, std::size_t>>& candidates) {
    if (candidates.size() < 2 || n == 0)
        return {};
    for (const auto& [kc, mc] : candidates)
        if (kc == 0 || mc == 0)
            throw std::invalid_argument("matmul (packed): k and row blocks must be at least 1");
    static std::mutex lock;
    static std::map<std::pair<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>>, BlockChoice>
        chosen;
    const std::lock_guard<std::mutex> guard(lock);
    const auto key = std::make_pair(n, candidates);
    if (const auto it = chosen.find(key); it != chosen.end())
        return it->second;
    const auto mr = static_cast<std::size_t>(k_gemm_mr), nr = static_cast<std::size_t>(k_gemm_nr);
    std::vector<double> a(n * n), b(n * n), c(n * n, 0.0);
    for (std::size_t x = 0; x < n * n; ++x) {
        a[x] = 1.0 + static_cast<double>(x % 7) * 0.125;
        b[x] = 1.0 - static_cast<double>(x % 5) * 0.0625;
    }
    std::vector<std::vector<double>> a_packs, b_packs;
    std::vector<std::function<void()>> calls;
    for (const auto& [kc, mc] : candidates) {
        a_packs.emplace_back((mc + mr - 1) / mr * mr * kc);
        b_packs.emplace_back((n + nr - 1) / nr * nr * kc);
        calls.emplace_back([&, kc = kc, mc = mc, i = calls.size()] {
            gemm_packed_body(c.data(), a.data(), b.data(), n, mc, kc, a_packs[i].data(), b_packs[i].data());
        });
    }
    const std::vector<double> best = fastest_interleaved(calls, 3, 1);
    BlockChoice choice{static_cast<std::size_t>(std::min_element(best.begin(), best.end()) - best.begin()),
                       best};
    chosen.emplace(key, choice);
    return choice;
}

Measurement run_matmul_packed(std::size_t n, std::size_t mc, std::size_t kc, const SuiteOptions& opt,
                              Workspace& ws) {
    if (n == 0 || mc == 0 || kc == 0)
        throw std::invalid_argument("matmul (packed): need n, mc and kc >= 1");
    const int threads = std::max(1, opt.threads);
    const auto mr = static_cast<std::size_t>(k_gemm_mr), nr = static_cast<std::size_t>(k_gemm_nr);
    const std::size_t a_pack = (mc + mr - 1) / mr * mr * kc, b_pack = (n + nr - 1) / nr * nr * kc;
    double* a = ws.array<double>(0, n * n);
    double* b = ws.array<double>(1, n * n);
    double* c = ws.array<double>(2, n * n);
    double* a_packs = ws.array<double>(3, static_cast<std::size_t>(threads) * a_pack);
    double* b_shared = ws.array<double>(4, b_pack);
    const std::size_t row_blocks = (n + mc - 1) / mc, col_panels = b_pack / (nr * kc);
#pragma omp parallel num_threads(threads)
    {
        // First touch: each thread's rows of A and C (the body's static schedule of row blocks), B in the
        // same partition, the thread's own buffer for A and its share of the micro-panels of B.
        double* mine = a_packs + static_cast<std::size_t>(omp_get_thread_num()) * a_pack;
        std::fill(mine, mine + a_pack, 0.0);
#pragma omp for schedule(static)
        for (std::size_t jp = 0; jp < col_panels; ++jp)
            std::fill(b_shared + jp * nr * kc, b_shared + (jp + 1) * nr * kc, 0.0);
#pragma omp for schedule(static)
        for (std::size_t rb = 0; rb < row_blocks; ++rb) {
            for (std::size_t x = rb * mc * n; x < std::min(n, (rb + 1) * mc) * n; ++x) {
                a[x] = 1.0 / static_cast<double>(1 + x % 7);
                b[x] = 1.0 / static_cast<double>(1 + x % 5);
                c[x] = 0.0;
            }
        }
    }
    Measurement m = time_team(opt, [&] {
        gemm_packed_body(c, a, b, n, mc, kc,
                         a_packs + static_cast<std::size_t>(omp_get_thread_num()) * a_pack, b_shared);
    });
    m.checksum = c[n + 1];
    return m;
}

Measurement run_norm(std::size_t n, const SuiteOptions& opt, Workspace& ws) {
    double* x = ws.array<double>(0, n);
    const int threads = std::max(1, opt.threads);
    touch_blocks(n, threads, [&](std::size_t i) { x[i] = 1.0 / static_cast<double>(1 + i % 9); });
    double total = 0.0; // summed over threads and calls: a checksum
    Measurement m = time_team(opt, [&] {
        const double mine = norm2_squared_body(x, n);
#pragma omp atomic
        total += mine;
    });
    m.checksum = std::sqrt(total);
    return m;
}

} // namespace roofcast::measure::suite
