#include "analysis/scale/grid.hpp"

#include "analysis/scale/fit_detail.hpp"
#include "core/error.hpp"
#include "core/names.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <memory>

namespace roofcast::model::scale {

namespace {

constexpr int k_max_grid_ranks = 1 << 24; // beyond any machine's rank count; bounds the factorisation

bool whole_ranks(double ranks) {
    return ranks >= 1.0 && ranks <= k_max_grid_ranks && std::floor(ranks) == ranks;
}

int parse_count(const std::string& text, const char* field, const std::string& whole) {
    int v = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || v < 1 || v > k_max_grid_ranks)
        throw core::InputError(
            "", field, fmt::format("expected a whole number from 1 to {} in '{}'", k_max_grid_ranks, whole));
    return v;
}

} // namespace

std::vector<int> Grid::shape(double ranks) const {
    if (!whole_ranks(ranks) || dims < 1)
        return {};
    const int p = static_cast<int>(ranks);
    if (const auto it = shapes.find(p); it != shapes.end())
        return it->second;
    std::vector<int> factors;
    int rest = p;
    for (int f = 2; static_cast<long long>(f) * f <= rest; ++f)
        while (rest % f == 0) {
            factors.push_back(f);
            rest /= f;
        }
    if (rest > 1)
        factors.push_back(rest);
    std::vector<int> k(static_cast<std::size_t>(dims), 1);
    for (auto it = factors.rbegin(); it != factors.rend(); ++it)
        *std::min_element(k.begin(), k.end()) *= *it;
    std::sort(k.rbegin(), k.rend());
    return k;
}

double Grid::cuts(double ranks) const {
    const auto k = shape(ranks);
    if (k.empty())
        return std::nan("");
    if (domain.empty()) {
        double s = 0.0;
        for (int v : k)
            s += v - 1;
        return s;
    }
    double s = 0.0, volume = 1.0;
    for (std::size_t i = 0; i < k.size(); ++i) {
        s += (k[i] - 1) / domain[i];
        volume *= domain[i];
    }
    return s * std::pow(volume, 1.0 / static_cast<double>(k.size()));
}

double Grid::faces(double ranks) const {
    const auto k = shape(ranks);
    if (k.empty())
        return std::nan("");
    double s = 0.0;
    for (int v : k)
        s += (v - 1) * (ranks / v);
    return s;
}

std::string Grid::shape_text(double ranks) const {
    const auto k = shape(ranks);
    return k.empty() ? std::string("?") : fmt::format("{}", fmt::join(k, "x"));
}

Grid parse_grid(const std::string& dims, const std::vector<std::string>& shapes, const std::string& domain) {
    Grid g;
    if (dims != "1" && dims != "2" && dims != "3")
        throw core::InputError("", "--grid",
                               fmt::format("expected the grid's dimensions, 1, 2 or 3, not '{}'", dims));
    g.dims = dims[0] - '0';
    for (const auto& s : shapes) {
        const auto eq = s.find('=');
        if (eq == std::string::npos)
            throw core::InputError("", "--grid-shape",
                                   fmt::format("expected RANKS=AxB (e.g. 16=4x4), not '{}'", s));
        const int p = parse_count(s.substr(0, eq), "--grid-shape", s);
        std::vector<int> k;
        std::size_t from = eq + 1;
        while (true) {
            const auto x = s.find('x', from);
            k.push_back(parse_count(s.substr(from, x == std::string::npos ? std::string::npos : x - from),
                                    "--grid-shape", s));
            if (x == std::string::npos)
                break;
            from = x + 1;
        }
        long long product = 1;
        for (int v : k)
            product *= v;
        if (static_cast<int>(k.size()) != g.dims || product != p)
            throw core::InputError(
                "", "--grid-shape",
                fmt::format("expected {} numbers whose product is {} in '{}'", g.dims, p, s));
        if (g.shapes.count(p))
            throw core::InputError("", "--grid-shape",
                                   fmt::format("expected one shape per rank count; {} is given twice", p));
        std::sort(k.rbegin(), k.rend());
        g.shapes[p] = k;
    }
    if (!domain.empty()) {
        std::size_t from = 0;
        while (true) {
            const auto x = domain.find('x', from);
            g.domain.push_back(
                parse_count(domain.substr(from, x == std::string::npos ? std::string::npos : x - from),
                            "--grid-domain", domain));
            if (x == std::string::npos)
                break;
            from = x + 1;
        }
        if (static_cast<int>(g.domain.size()) != g.dims)
            throw core::InputError("", "--grid-domain",
                                   fmt::format("expected {} extents (e.g. {}) in '{}'", g.dims,
                                               g.dims == 1   ? "64"
                                               : g.dims == 2 ? "64x32"
                                                             : "64x32x32",
                                               domain));
    }
    return g;
}

const char* to_string(GridTerm t) {
    static constexpr core::NameTable<GridTerm, 3> names{
        {{GridTerm::ranks, "ranks"}, {GridTerm::cuts, "cuts"}, {GridTerm::faces, "faces"}}};
    return core::name_of(names, t).data();
}

double grid_value(const Grid& g, GridTerm t, double ranks) {
    switch (t) {
    case GridTerm::ranks:
        return ranks;
    case GridTerm::cuts:
        return g.cuts(ranks);
    case GridTerm::faces:
        return g.faces(ranks);
    }
    return std::nan("");
}

namespace detail {

std::optional<Model> fit_grid_terms(const std::shared_ptr<const Grid>& grid,
                                    const std::vector<GridTerm>& terms, const Prepared& p, const int* idx,
                                    int m) {
    const int cols = static_cast<int>(terms.size()) + 1;
    if (m < cols)
        return std::nullopt;
    Eigen::MatrixXd a(m, cols);
    Eigen::VectorXd rhs(m);
    for (int r = 0; r < m; ++r) {
        const auto i = static_cast<std::size_t>(idx[r]);
        a(r, 0) = 1.0;
        for (int t = 1; t < cols; ++t)
            a(r, t) = grid_value(*grid, terms[static_cast<std::size_t>(t - 1)], p.xs[i][0]);
        rhs(r) = p.ys[i];
    }
    auto coef = scaled_least_squares(std::move(a), rhs);
    if (!coef)
        return std::nullopt;
    Model mdl;
    mdl.family = Family::grid;
    mdl.grid = grid;
    mdl.grid_terms = terms;
    mdl.coef = std::move(*coef);
    return mdl;
}

} // namespace detail
} // namespace roofcast::model::scale
