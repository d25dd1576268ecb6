#include "analysis/scale/fit_detail.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace roofcast::model::scale {

namespace detail {

std::string num(double v) {
    if (!std::isfinite(v))
        return fmt::format("{:.8g}", v);
    // std::to_chars with a precision writes what printf("%.8g") writes (C++17 [charconv.to.chars]), as
    // fmt's "{:.8g}" does, at a fraction of the cost: formulas are written for every series.
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 8);
    return std::string(buf, r.ptr);
}

} // namespace detail

using namespace detail;

namespace {

std::string exponent_text(double e) {
    static const std::array<std::pair<double, const char*>, 14> fractions = {{{0.25, "1/4"},
                                                                              {1.0 / 3.0, "1/3"},
                                                                              {0.5, "1/2"},
                                                                              {2.0 / 3.0, "2/3"},
                                                                              {0.75, "3/4"},
                                                                              {0.8, "4/5"},
                                                                              {1.25, "5/4"},
                                                                              {4.0 / 3.0, "4/3"},
                                                                              {1.5, "3/2"},
                                                                              {5.0 / 3.0, "5/3"},
                                                                              {1.75, "7/4"},
                                                                              {2.25, "9/4"},
                                                                              {7.0 / 3.0, "7/3"},
                                                                              {2.5, "5/2"}}};
    for (const auto& [v, text] : fractions) {
        if (std::abs(std::abs(e) - v) < 1e-12)
            return e < 0 ? fmt::format("(-{})", text) : fmt::format("({})", text);
    }
    if (std::abs(std::abs(e) - 8.0 / 3.0) < 1e-12)
        return e < 0 ? "(-8/3)" : "(8/3)";
    if (std::abs(std::abs(e) - 2.75) < 1e-12)
        return e < 0 ? "(-11/4)" : "(11/4)";
    return e < 0 ? fmt::format("({:g})", e) : fmt::format("{:g}", e);
}

std::string term_text(const Term& t, const std::string& name) {
    std::string out;
    if (t.i != 0.0)
        out = t.i == 1.0 ? name : fmt::format("{}^{}", name, exponent_text(t.i));
    if (t.j != 0) {
        if (!out.empty())
            out += "·";
        out += t.j == 1 ? fmt::format("log2({})", name) : fmt::format("log2({})^{}", name, t.j);
    }
    return out;
}

std::string compound_text(const Compound& c, const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t k = 0; k < names.size(); ++k) {
        const std::string t = term_text(c[k], names[k]);
        if (t.empty())
            continue;
        if (!out.empty())
            out += "·";
        out += t;
    }
    return out.empty() ? "1" : out;
}

// "a + b·t" with the sign of b folded in.
std::string signed_term(double c, const std::string& t) {
    return fmt::format(" {} {}·{}", c < 0 ? "-" : "+", num(std::abs(c)), t);
}

} // namespace

Selection parse_selection(const std::string& text) {
    if (const auto s = core::value_named(k_selection_names, text))
        return *s;
    throw core::InputError("", "select",
                           fmt::format("expected {}, got '{}'", core::names_list(k_selection_names), text));
}

const char* to_string(Selection s) {
    return core::name_of(k_selection_names, s).data();
}

const char* to_string(Family f) {
    return core::name_of(k_family_names, f).data();
}

std::size_t Model::parameter_count() const {
    if (family == Family::piecewise) {
        std::size_t n = breaks.size();
        for (const auto& s : segments)
            n += s.parameter_count();
        return n;
    }
    return coef.size();
}

double Model::evaluate(const Coord& x) const {
    switch (family) {
    case Family::exponential:
        return coef[0] * std::pow(coef[1], -x[0]) + coef[2];
    case Family::piecewise: {
        std::size_t k = 0;
        while (k < breaks.size() && x[0] >= breaks[k])
            ++k;
        return segments[k].evaluate(x);
    }
    default: {
        double v = coef.empty() ? 0.0 : coef[0];
        for (std::size_t k = 0; k < term_count(); ++k)
            v += coef[k + 1] * term(k, x);
        return v;
    }
    }
}

double Model::term(std::size_t k, const Coord& x) const {
    return family == Family::grid ? grid_value(*grid, grid_terms[k], x[0]) : compound_value(terms[k], x);
}

double Model::linear_sum(const double* c, const double* values) const {
    double v = coef.empty() ? 0.0 : c[0];
    for (std::size_t k = 0; k < term_count(); ++k)
        v += c[k + 1] * values[k];
    return v;
}

std::string Model::formula(const std::vector<std::string>& names) const {
    const std::string& x = names.empty() ? std::string("x") : names[0];
    switch (family) {
    case Family::constant:
        return num(coef[0]);
    case Family::linear:
        return fmt::format("{}·{} {} {}", num(coef[1]), x, coef[0] < 0 ? "-" : "+", num(std::abs(coef[0])));
    case Family::inverse:
        return fmt::format("{} {} {}/{}", num(coef[0]), coef[1] < 0 ? "-" : "+", num(std::abs(coef[1])), x);
    case Family::logarithmic:
        // log(x)/log(a) = log2(x)/log2(a), so c1 = 1/log2(a) and a = 2^(1/c1).
        return fmt::format("log({})/log({}) {} {}", x, num(std::exp2(1.0 / coef[1])), coef[0] < 0 ? "-" : "+",
                           num(std::abs(coef[0])));
    case Family::exponential:
        return fmt::format("{}·{}^(-{}) + {}", num(coef[0]), num(coef[1]), x, num(coef[2]));
    case Family::piecewise: {
        std::string out;
        for (std::size_t k = 0; k < segments.size(); ++k) {
            if (k > 0)
                out += "; ";
            if (k < breaks.size())
                out += fmt::format("{} < {}: ", x, num(breaks[k]));
            else
                out += fmt::format("{} >= {}: ", x, num(breaks[k - 1]));
            out += segments[k].formula(names);
        }
        return out;
    }
    case Family::grid: {
        std::string out = num(coef[0]);
        for (std::size_t k = 0; k < grid_terms.size(); ++k)
            out += signed_term(coef[k + 1],
                               grid_terms[k] == GridTerm::ranks
                                   ? x
                                   : fmt::format("{}{}({})", to_string(grid_terms[k]), grid->dims, x));
        return out;
    }
    case Family::pmnf: {
        std::string out = num(coef[0]);
        for (std::size_t k = 0; k < terms.size(); ++k)
            out += signed_term(coef[k + 1], compound_text(terms[k], names));
        return out;
    }
    }
    return "?";
}

} // namespace roofcast::model::scale
