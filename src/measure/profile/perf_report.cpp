#include "measure/profile/perf_report.hpp"

#include "core/error.hpp"
#include "measure/profile/cachegrind.hpp" // demangle
#include "measure/profile/text.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace roofcast::measure::profile {

std::vector<PerfEventReport> parse_perf_report(const std::string& text, const std::string& file) {
    std::vector<PerfEventReport> out;
    text::Lines lines(text, file, k_perf_max_line);
    std::string_view line;
    while (lines.next(line)) {
        const std::string field = lines.field();
        const std::string t = text::trim(line);
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
                std::string n(text::next_word(rest));
                // perf abbreviates large counts ("12K"): expand the suffix.
                double mult = 1;
                if (!n.empty() && (n.back() == 'K' || n.back() == 'M' || n.back() == 'G')) {
                    mult = n.back() == 'K' ? 1e3 : n.back() == 'M' ? 1e6 : 1e9;
                    n.pop_back();
                }
                double v = 0;
                if (text::parse_number(n, v))
                    r.total_samples = v * mult;
                out.push_back(std::move(r));
            }
            continue;
        }
        // "    76.15%            83      20750000  t  [.] ns::heavy_sum"
        std::string_view rest(t);
        const auto pct = text::next_word(rest);
        if (pct.empty() || pct.back() != '%')
            throw core::InputError(file, field,
                                   "expected '<percent>% <samples> <period> <dso> [.|k] <symbol>'");
        if (out.empty())
            throw core::InputError(file, field, "expected a '# Samples: N of event' header before the rows");
        PerfSymbol sym;
        double samples = 0, period = 0;
        if (!text::parse_number(pct.substr(0, pct.size() - 1), sym.percent) ||
            !text::parse_number(text::next_word(rest), samples) ||
            !text::parse_number(text::next_word(rest), period))
            throw core::InputError(file, field,
                                   "expected numbers in the percent, samples and period columns");
        sym.samples = samples;
        sym.period = period;
        const std::string r = text::trim(rest);
        const auto mark = r.find(" [");
        std::size_t name_at = 0;
        if (r.rfind("[.] ", 0) == 0 || r.rfind("[k] ", 0) == 0) {
            sym.kernel = r[1] == 'k';
            name_at = 4;
        } else if (mark != std::string::npos && mark + 4 < r.size() && r[mark + 3] == ']') {
            sym.dso = text::trim(std::string_view(r).substr(0, mark));
            sym.kernel = r[mark + 2] == 'k';
            name_at = mark + 5;
        } else {
            throw core::InputError(file, field, "expected a '[.]' or '[k]' marker before the symbol");
        }
        sym.name = text::trim(std::string_view(r).substr(std::min(name_at, r.size())));
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

std::vector<PerfSamplePlace> parse_perf_script(const std::string& text, const std::string& file) {
    std::map<std::tuple<std::string, std::string, std::uint64_t>, PerfSamplePlace> places;
    text::Lines lines(text, file, k_perf_max_line);
    std::string_view line;
    while (lines.next(line)) {
        const std::string t = text::trim(line);
        if (t.empty())
            continue;
        const std::string field = lines.field();
        const auto fail = [&] {
            throw core::InputError(file, field, "expected '<period> <address> <symbol>+0x<offset> (<dso>)'");
        };
        std::string_view rest(t);
        double period = 0;
        if (!text::parse_number(text::next_word(rest), period) || !std::isfinite(period) || period < 0 ||
            text::next_word(rest).empty())
            fail();
        const std::string r = text::trim(rest);
        const auto open = r.rfind(" (");
        if (open == std::string::npos || r.back() != ')')
            fail();
        const std::string where = r.substr(0, open);
        const std::string dso = r.substr(open + 2, r.size() - open - 3);
        const auto plus = where.rfind("+0x");
        if (where.rfind("[unknown]", 0) == 0 || plus == std::string::npos || plus == 0)
            continue;
        std::uint64_t offset = 0;
        const std::string hex = where.substr(plus + 3);
        if (hex.empty() || hex.size() > 16 ||
            hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            fail();
        offset = std::stoull(hex, nullptr, 16);
        const std::string symbol = demangle(where.substr(0, plus));
        auto [it, added] = places.try_emplace({dso, symbol, offset});
        if (added) {
            if (places.size() > k_perf_max_symbols)
                throw core::InputError(file, field,
                                       fmt::format("expected at most {} sampled places", k_perf_max_symbols));
            it->second.dso = dso;
            it->second.symbol = symbol;
            it->second.offset = offset;
        }
        it->second.period += period;
        it->second.samples += 1;
    }
    std::vector<PerfSamplePlace> out;
    out.reserve(places.size());
    for (auto& [key, place] : places)
        out.push_back(std::move(place));
    return out;
}

PerfEventReport cpu_clock_report(const std::vector<PerfSamplePlace>& places) {
    PerfEventReport r;
    r.event = "cpu-clock";
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    double total = 0;
    for (const PerfSamplePlace& p : places) {
        const auto [it, added] = index.try_emplace({p.dso, p.symbol}, r.symbols.size());
        if (added) {
            PerfSymbol s;
            s.name = p.symbol;
            s.dso = p.dso;
            s.kernel = p.dso.rfind("[kernel", 0) == 0;
            r.symbols.push_back(s);
        }
        r.symbols[it->second].samples += p.samples;
        r.symbols[it->second].period += p.period;
        r.total_samples += p.samples;
        total += p.period;
    }
    for (PerfSymbol& s : r.symbols)
        s.percent = total > 0 ? 100.0 * s.period / total : 0.0;
    return r;
}

} // namespace roofcast::measure::profile
