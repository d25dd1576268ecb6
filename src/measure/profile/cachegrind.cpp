#include "measure/profile/cachegrind.hpp"

#include "core/error.hpp"
#include "measure/profile/text.hpp"

#include <cmath>
#include <cstdlib>
#include <cxxabi.h>
#include <fmt/format.h>
#include <memory>

namespace roofcast::measure::profile {

std::string demangle(const std::string& name) {
    if (name.rfind("_Z", 0) != 0)
        return name;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                               std::free);
    return status == 0 && out ? std::string(out.get()) : name;
}

bool valgrind_decode_failure(const std::string& log) {
    return log.find("unhandled instruction bytes") != std::string::npos ||
           log.find("valgrind: Unrecognised instruction") != std::string::npos ||
           log.find("signal 4 (SIGILL)") != std::string::npos;
}

CachegrindCounts parse_cachegrind(const std::string& text, const std::string& file) {
    CachegrindCounts out;
    std::map<std::string, double>* current = nullptr;
    bool have_summary = false;
    text::Lines lines(text, file, k_cachegrind_max_line);
    std::string_view line;
    while (lines.next(line)) {
        const std::string field = lines.field();
        if (line.empty() || line[0] == '#')
            continue;
        if (line.rfind("events:", 0) == 0) {
            for (auto w : text::words(line.substr(7)))
                out.events.emplace_back(w);
            if (out.events.empty())
                throw core::InputError(file, field, "expected event names after 'events:'");
            continue;
        }
        if (line.rfind("desc:", 0) == 0 || line.rfind("cmd:", 0) == 0 || line.rfind("positions:", 0) == 0 ||
            line.rfind("version:", 0) == 0 || line.rfind("creator:", 0) == 0 || line.rfind("pid:", 0) == 0 ||
            line.rfind("fl=", 0) == 0 || line.rfind("fi=", 0) == 0 || line.rfind("fe=", 0) == 0)
            continue;
        if (line.rfind("fn=", 0) == 0) {
            if (out.events.empty())
                throw core::InputError(file, field, "expected an 'events:' line before the first 'fn='");
            const std::string name = demangle(std::string(line.substr(3)));
            if (!out.by_function.count(name) && out.by_function.size() >= k_cachegrind_max_functions)
                throw core::InputError(
                    file, field, fmt::format("expected at most {} functions", k_cachegrind_max_functions));
            current = &out.by_function[name];
            continue;
        }
        if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) {
            const auto w = text::words(line.substr(line.find(':') + 1));
            for (std::size_t i = 0; i < w.size() && i < out.events.size(); ++i) {
                double v = 0;
                if (!text::parse_number(w[i], v))
                    throw core::InputError(file, field, "expected numbers on the summary line");
                out.summary[out.events[i]] = v;
            }
            have_summary = true;
            continue;
        }
        // A cost line: "<line number> <count>..." (fewer counts than events: the rest are zero).
        const auto w = text::words(line);
        if (w.empty())
            continue;
        if (!current)
            throw core::InputError(file, field, "expected 'fn=' before the first cost line");
        if (w.size() - 1 > out.events.size())
            throw core::InputError(
                file, field, fmt::format("expected at most {} counts (one per event)", out.events.size()));
        for (std::size_t i = 0; i < w.size(); ++i) {
            double v = 0;
            if (!text::parse_number(w[i], v) || v < 0)
                throw core::InputError(file, field, "expected a line number and non-negative counts");
            if (i > 0)
                (*current)[out.events[i - 1]] += v;
        }
    }
    if (out.events.empty())
        throw core::InputError(file, "events", "missing required 'events:' line (not a cachegrind output)");
    if (!have_summary)
        for (const auto& [fn, ev] : out.by_function)
            for (const auto& [e, v] : ev)
                out.summary[e] += v;
    return out;
}

std::map<std::string, double> cachegrind_metrics(const std::map<std::string, double>& events,
                                                 std::uint32_t ll_line_bytes) {
    auto get = [&](const char* k) {
        const auto it = events.find(k);
        return it == events.end() ? 0.0 : it->second;
    };
    std::map<std::string, double> m;
    m["INS"] = get("Ir");
    if (events.count("D1mr") || events.count("D1mw")) {
        m["L1_DCM"] = get("D1mr") + get("D1mw");
        m["L1_DCM_read"] = get("D1mr");
        m["L1_DCM_write"] = get("D1mw");
        m["LL_MISS"] = get("DLmr") + get("DLmw");
        m["LL_MISS_BYTES"] = m["LL_MISS"] * ll_line_bytes;
        m["L1_DCA"] = get("Dr") + get("Dw");
    }
    return m;
}

std::string CacheGeometry::valgrind_arg() const {
    return fmt::format("{},{},{}", size_bytes, associativity, line_bytes);
}

CacheGeometry cache_geometry(const std::string& level, std::uint64_t size_bytes, int associativity,
                             std::uint32_t line_bytes) {
    CacheGeometry g{size_bytes, std::max(associativity, 1), line_bytes, {}};
    const auto is_pow2 = [](std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; };
    if (!is_pow2(line_bytes) || line_bytes < 16) {
        g.line_bytes = 64;
        g.note = fmt::format("{}: line of {} B replaced by 64 B (valgrind needs a power of two)", level,
                             line_bytes);
    }
    const std::uint64_t set_bytes = static_cast<std::uint64_t>(g.associativity) * g.line_bytes;
    if (size_bytes % set_bytes == 0 && is_pow2(size_bytes / set_bytes))
        return g;
    // Try associativities around the requested one with power-of-two set counts; keep the size closest in
    // ratio, then the associativity closest to the requested one.
    double best = 1e300;
    CacheGeometry pick = g;
    for (int a = 1; a <= std::max(2 * g.associativity, 16); ++a)
        for (std::uint64_t sets = 1; sets <= (std::uint64_t{1} << 30); sets <<= 1) {
            const std::uint64_t s = sets * static_cast<std::uint64_t>(a) * g.line_bytes;
            const double err = std::abs(std::log(static_cast<double>(s) / static_cast<double>(size_bytes)));
            const double tie = std::abs(a - g.associativity) * 1e-9;
            if (err + tie < best) {
                best = err + tie;
                pick.size_bytes = s;
                pick.associativity = a;
            }
        }
    pick.note = (g.note.empty() ? "" : g.note + "; ") +
                fmt::format("{}: {} B {}-way is not a valgrind geometry (sets must be a power of two); "
                            "simulated as {} B {}-way",
                            level, size_bytes, g.associativity, pick.size_bytes, pick.associativity);
    return pick;
}

} // namespace roofcast::measure::profile
