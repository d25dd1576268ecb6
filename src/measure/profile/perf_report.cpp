#include "measure/profile/perf_report.hpp"

#include "core/error.hpp"
#include "measure/profile/cachegrind.hpp" // demangle

#include <charconv>
#include <fmt/format.h>

namespace roofcast::measure::profile {

namespace {

std::string_view next_word(std::string_view& s) {
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t')
        ++j;
    const auto w = s.substr(i, j - i);
    s.remove_prefix(j);
    return w;
}

bool number(std::string_view w, double& v) {
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    return ec == std::errc() && end == w.data() + w.size();
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return std::string(s);
}

} // namespace

std::vector<PerfEventReport> parse_perf_report(const std::string& text, const std::string& file) {
    std::vector<PerfEventReport> out;
    std::size_t start = 0, lineno = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string_view line(text.data() + start, end - start);
        start = end + 1;
        ++lineno;
        const std::string field = fmt::format("line {}", lineno);
        if (line.size() > k_perf_max_line)
            throw core::InputError(file, field,
                                   fmt::format("expected lines under {} bytes", k_perf_max_line));
        const std::string t = trim(line);
        if (t.empty())
            continue;
        if (t[0] == '#') {
            // "# Samples: 109  of event 'cpu-clock'" opens a section.
            const auto s = t.find("Samples:");
            const auto e = t.find("of event '");
            if (s != std::string::npos && e != std::string::npos) {
                PerfEventReport r;
                const auto q = t.find('\'', e + 10);
                r.event = t.substr(e + 10, q == std::string::npos ? std::string::npos : q - e - 10);
                std::string_view rest(t);
                rest.remove_prefix(s + 8);
                std::string n(next_word(rest));
                // perf abbreviates large counts ("12K"): expand the suffix.
                double mult = 1;
                if (!n.empty() && (n.back() == 'K' || n.back() == 'M' || n.back() == 'G')) {
                    mult = n.back() == 'K' ? 1e3 : n.back() == 'M' ? 1e6 : 1e9;
                    n.pop_back();
                }
                double v = 0;
                if (number(n, v))
                    r.total_samples = v * mult;
                out.push_back(std::move(r));
            }
            continue;
        }
        // "    76.15%            83      20750000  t  [.] ns::heavy_sum"
        std::string_view rest(t);
        const auto pct = next_word(rest);
        if (pct.empty() || pct.back() != '%')
            throw core::InputError(file, field,
                                   "expected '<percent>% <samples> <period> <dso> [.|k] <symbol>'");
        if (out.empty())
            throw core::InputError(file, field, "expected a '# Samples: N of event' header before the rows");
        PerfSymbol sym;
        double samples = 0, period = 0;
        if (!number(pct.substr(0, pct.size() - 1), sym.percent) || !number(next_word(rest), samples) ||
            !number(next_word(rest), period))
            throw core::InputError(file, field,
                                   "expected numbers in the percent, samples and period columns");
        sym.samples = samples;
        sym.period = period;
        const std::string r = trim(rest);
        const auto mark = r.find(" [");
        std::size_t name_at = 0;
        if (r.rfind("[.] ", 0) == 0 || r.rfind("[k] ", 0) == 0) {
            sym.kernel = r[1] == 'k';
            name_at = 4;
        } else if (mark != std::string::npos && mark + 4 < r.size() && r[mark + 3] == ']') {
            sym.dso = trim(std::string_view(r).substr(0, mark));
            sym.kernel = r[mark + 2] == 'k';
            name_at = mark + 5;
        } else {
            throw core::InputError(file, field, "expected a '[.]' or '[k]' marker before the symbol");
        }
        sym.name = trim(std::string_view(r).substr(std::min(name_at, r.size())));
        if (sym.name.empty() || sym.name.rfind("0x", 0) == 0)
            sym.name = "[unknown] " + (sym.dso.empty() ? std::string("?") : sym.dso);
        else
            sym.name = demangle(sym.name);
        auto& syms = out.back().symbols;
        if (syms.size() >= k_perf_max_symbols)
            throw core::InputError(file, field,
                                   fmt::format("expected at most {} symbols", k_perf_max_symbols));
        syms.push_back(std::move(sym));
    }
    return out;
}

} // namespace roofcast::measure::profile
