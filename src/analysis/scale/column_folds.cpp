// The basis columns' share of the validation fits (fit_detail.hpp, ColumnFolds): computed once per set of
// points, so that the hot loop of the one-parameter contest, 119 columns x each fold x every series, forms
// only one cross product per column and fold. Every operation below is fit_line's (basis.cpp), in the
// same order, so that the scores, and with them the chosen models, are the same bit for bit.
#include "analysis/scale/fit_detail.hpp"

#include <cmath>

namespace roofcast::model::scale {

void Basis::prepare_folds(Selection sel) {
    if (m_x.size() > detail::k_max_fold_points)
        return; // folds() stays null: the contest takes fit_line's own path
    if (!m_folds || m_folds->sel != sel)
        m_folds = std::make_unique<detail::ColumnFolds>(detail::make_column_folds(*this, sel));
}

const detail::ColumnFolds* Basis::folds(Selection sel) const {
    return m_folds && m_folds->sel == sel ? m_folds.get() : nullptr;
}

Basis::~Basis() = default;

namespace detail {

namespace {

ColumnFold make_fold(const Basis& basis, std::vector<int> idx, int test) {
    ColumnFold f;
    f.idx = std::move(idx);
    f.test = test;
    const int m = static_cast<int>(f.idx.size());
    const std::size_t nc = basis.candidates().size();
    f.mb.assign(nc, 0.0);
    f.sxx.assign(nc, 0.0);
    f.sbb.assign(nc, 0.0);
    f.db.assign(nc * f.idx.size(), 0.0);
    f.solvable.assign(nc, 0);
    f.b_test.assign(nc, 0.0);
    f.plain.assign(nc, 0);
    for (std::size_t c = 0; c < nc; ++c) {
        const double* b = basis.column(basis.candidates()[c]);
        double mb = 0.0, sxx = 0.0, sbb = 0.0;
        for (int k = 0; k < m; ++k)
            mb += b[f.idx[static_cast<std::size_t>(k)]];
        mb /= m;
        for (int k = 0; k < m; ++k) {
            const double db = b[f.idx[static_cast<std::size_t>(k)]] - mb;
            f.db[static_cast<std::size_t>(k) * nc + c] = db;
            sxx += db * db;
        }
        for (int k = 0; k < m; ++k)
            sbb += b[f.idx[static_cast<std::size_t>(k)]] * b[f.idx[static_cast<std::size_t>(k)]];
        f.mb[c] = mb;
        f.sxx[c] = sxx;
        f.sbb[c] = sbb;
        f.solvable[c] = m >= 2 && sxx > 1e-300 * (1.0 + mb * mb) && std::isfinite(sxx);
        f.b_test[c] = test >= 0 ? b[test] : 0.0;
        f.plain[c] = basis.candidates()[c].family != Family::inverse &&
                     basis.candidates()[c].family != Family::logarithmic;
    }
    return f;
}

constexpr std::size_t k_stack_columns = 128; // the basis has 119 columns; more take the heap

// The values' share of one fold: their mean and centred values (fit_line's my and y - my).
struct FoldValues {
    double my = 0.0;
    double dy[k_max_fold_points];
};

void fold_values(const ColumnFold& f, const double* y, FoldValues& v) {
    const int m = static_cast<int>(f.idx.size());
    double my = 0.0;
    for (int k = 0; k < m; ++k)
        my += y[f.idx[static_cast<std::size_t>(k)]];
    my /= m;
    v.my = my;
    for (int k = 0; k < m; ++k)
        v.dy[k] = y[f.idx[static_cast<std::size_t>(k)]] - my;
}

// fit_line(column c, y, fold) from the precomputed parts.
Line fold_line(const ColumnFold& f, std::size_t c, Family fam, const double* b, const double* y,
               const FoldValues& v) {
    Line r;
    if (!f.solvable[c])
        return r;
    const std::size_t m = f.idx.size();
    const std::size_t nc = f.mb.size();
    double sxy = 0.0;
    for (std::size_t k = 0; k < m; ++k)
        sxy += f.db[k * nc + c] * v.dy[k];
    r.c1 = sxy / f.sxx[c];
    r.c0 = v.my - r.c1 * f.mb[c];
    r.ok = std::isfinite(r.c0) && std::isfinite(r.c1);
    if (fam == Family::inverse && r.c0 < 0.0) {
        double sby = 0.0;
        for (std::size_t k = 0; k < m; ++k)
            sby += b[f.idx[k]] * y[f.idx[k]];
        r.c0 = 0.0;
        r.c1 = sby / f.sbb[c];
    }
    if (fam == Family::logarithmic && !(r.c1 > 0.0))
        r.ok = false;
    return r;
}

} // namespace

ColumnFolds make_column_folds(const Basis& basis, Selection sel) {
    ColumnFolds cf;
    cf.sel = sel;
    const int n = static_cast<int>(basis.x().size());
    cf.folds = make_folds(n, sel);
    for (std::size_t k = 0; k < cf.folds.test.size(); ++k)
        cf.fold.push_back(make_fold(basis, cf.folds.train[k], cf.folds.test[k]));
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    cf.all = make_fold(basis, std::move(all), -1);
    return cf;
}

void score_columns(const Basis& basis, const ColumnFolds& cf, const double* y, double scale,
                   bool on_all_points, double* scores) {
    const auto& cands = basis.candidates();
    if (on_all_points) {
        FoldValues v;
        fold_values(cf.all, y, v);
        const int n = static_cast<int>(cf.all.idx.size());
        for (std::size_t c = 0; c < cands.size(); ++c) {
            const double* b = basis.column(cands[c]);
            const Line l = fold_line(cf.all, c, cands[c].family, b, y, v);
            double s = 0.0;
            for (int i = 0; l.ok && i < n; ++i)
                s += relative_error(l.c0 + l.c1 * b[i], y[i], scale);
            s /= n;
            scores[c] = l.ok && std::isfinite(s) ? s : k_inf;
        }
        return;
    }
    // Each fold for every column at once, in arrays over the columns that the compiler vectorises: per column
    // the same operations in the same order as fold_line and ColumnFamily's loop. The inverse and logarithmic
    // columns, whose constraints branch, take fold_line itself.
    const std::size_t nc = cands.size();
    std::vector<double> heap;
    double stack[3 * k_stack_columns];
    double* buf = stack;
    if (nc > k_stack_columns) {
        heap.resize(3 * nc);
        buf = heap.data();
    }
    double* sum = buf;
    double* sxy = buf + nc;
    double* bad = buf + 2 * nc; // non-zero once a fold has no fit (0/1 as doubles: one vectorised loop)
    std::fill(sum, sum + nc, 0.0);
    std::fill(bad, bad + nc, 0.0);
    FoldValues v;
    for (const ColumnFold& f : cf.fold) {
        fold_values(f, y, v);
        const std::size_t m = f.idx.size();
        std::fill(sxy, sxy + nc, 0.0);
        for (std::size_t k = 0; k < m; ++k) {
            const double dyk = v.dy[k];
            const double* db = f.db.data() + k * nc;
            for (std::size_t c = 0; c < nc; ++c)
                sxy[c] += db[c] * dyk;
        }
        const int t = f.test;
        const double yt = y[t];
        // relative_error's denominator: the measured value, or the scale where that is near zero.
        const double denom = std::abs(yt) > 1e-12 * scale ? std::abs(yt) : scale;
        for (std::size_t c = 0; c < nc; ++c) {
            const double c1 = sxy[c] / f.sxx[c];
            const double c0 = v.my - c1 * f.mb[c];
            sum[c] += std::abs(c0 + c1 * f.b_test[c] - yt) / denom;
            const bool finite = c0 - c0 == 0.0 && c1 - c1 == 0.0; // std::isfinite of both
            bad[c] += (f.solvable[c] && finite) ? 0.0 : 1.0;
        }
    }
    const double nf = static_cast<double>(cf.fold.size());
    for (std::size_t c = 0; c < nc; ++c) {
        if (!cf.fold.empty() && !cf.fold.front().plain[c]) {
            double s = 0.0;
            bool ok = true;
            const double* b = basis.column(cands[c]);
            for (std::size_t k = 0; ok && k < cf.fold.size(); ++k) {
                fold_values(cf.fold[k], y, v);
                const Line l = fold_line(cf.fold[k], c, cands[c].family, b, y, v);
                ok = l.ok;
                const int t = cf.fold[k].test;
                s += relative_error(l.c0 + l.c1 * b[t], y[t], scale);
            }
            s /= nf;
            scores[c] = ok && std::isfinite(s) ? s : k_inf;
            continue;
        }
        const double s = sum[c] / nf;
        scores[c] = bad[c] == 0.0 && std::isfinite(s) ? s : k_inf;
    }
}

} // namespace detail
} // namespace roofcast::model::scale
