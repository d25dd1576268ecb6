// What `roofcast profile` checks before it writes (core/profile.hpp, fit_profile_to_format and
// profile_file_text): the file it writes is one its own reader, and so `roofcast validate`, accepts.
#include "core/error.hpp"
#include "core/profile.hpp"
#include "core/range.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace roofcast::core {

namespace {

// A function's name as a warning quotes it: the start of a name, whatever its length.
std::string short_name(const std::string& name) {
    constexpr std::size_t shown = 120;
    return name.size() <= shown ? name : name.substr(0, shown) + fmt::format("... ({} bytes)", name.size());
}

struct OutOfRange {
    std::size_t values = 0;
    std::size_t functions = 0;
    std::string first_function;
    double first_value = 0;
};

} // namespace

std::vector<std::string> fit_profile_to_format(Profile& p) {
    std::vector<std::string> added;
    const auto refuse = [](const std::string& what) {
        throw Error(fmt::format("the profile cannot be written: {}; no profile written", what));
    };
    if (p.functions.size() > k_profile_max_functions)
        refuse(fmt::format("{} functions/regions, more than the {} a profile holds", p.functions.size(),
                           k_profile_max_functions));
    const std::pair<const char*, int> counts[] = {{"ranks", p.ranks}, {"threads per rank", p.threads}};
    for (const auto& [what, n] : counts)
        if (n < 1 || static_cast<std::size_t>(n) > k_profile_max_ranks)
            refuse(fmt::format("{} {}, expected 1 to {}", n, what, k_profile_max_ranks));
    if (p.cores && !Range::positive_at_most(k_profile_max_cores).contains(*p.cores))
        refuse(
            fmt::format("{} cores (ranks x threads), expected at most {:g}", *p.cores, k_profile_max_cores));
    for (const auto& [name, v] : p.parameters)
        if (!(std::fabs(v) <= k_profile_max_parameter))
            refuse(fmt::format("parameter '{}' = {}, expected a finite number of magnitude at most 2^63",
                               short_name(name), v));
    // Times the run's figures cannot hold (an infinite TAU time) are left out, as a profile without them is.
    if (p.wall_seconds && !Range::positive_at_most(k_profile_max_wall_seconds).contains(*p.wall_seconds)) {
        added.push_back(fmt::format("the run's wall time {} s is outside (0, {:g}] s: left out",
                                    *p.wall_seconds, k_profile_max_wall_seconds));
        p.wall_seconds.reset();
    }
    if (p.cpu_seconds && !Range::non_negative_at_most(k_profile_max_cpu_seconds).contains(*p.cpu_seconds)) {
        added.push_back(
            fmt::format("the run's processor time {} s is out of range: left out", *p.cpu_seconds));
        p.cpu_seconds.reset();
    }
    // A value outside a metric's range becomes NaN, which every reader takes as "not measured".
    std::map<std::string, OutOfRange> bad;
    for (auto& f : p.functions)
        for (auto& [metric, m] : f.metrics) {
            bool counted = false;
            for (auto& rep : m.per_rank)
                for (double& v : rep)
                    if (!std::isnan(v) && !(v >= 0 && v <= k_profile_max_value)) {
                        OutOfRange& o = bad[metric];
                        if (o.values++ == 0) {
                            o.first_function = f.name;
                            o.first_value = v;
                        }
                        if (!counted)
                            ++o.functions;
                        counted = true;
                        v = std::nan("");
                    }
        }
    for (const auto& [metric, o] : bad)
        added.push_back(fmt::format("{} value(s) of '{}' in {} function(s)/region(s) outside 0..{:g} (first: "
                                    "{} in '{}'): recorded as not measured (NaN)",
                                    o.values, short_name(metric), o.functions, k_profile_max_value,
                                    o.first_value, short_name(o.first_function)));
    p.warnings.insert(p.warnings.end(), added.begin(), added.end());
    return added;
}

std::string profile_file_text(const Profile& p, const std::string& path) {
    // Names from a program's symbols or a TAU file may hold bytes that are not UTF-8: replaced (U+FFFD), so
    // that the JSON is valid.
    std::string text =
        profile_to_json(p).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    try {
        profile_from_text(text, path);
    } catch (const InputError& e) {
        throw Error(fmt::format("the profile would not read back ({}: {}); no profile written", e.field(),
                                e.message()));
    }
    return text;
}

} // namespace roofcast::core
