// The profile backends, in the order `--backend auto` tries them: first any that counts with the
// processor's counters, then the first that can run here (docs/profile.md, "What --backend auto picks").
#include "core/error.hpp"
#include "measure/profile/backend.hpp"

#include <fmt/format.h>

namespace roofcast::measure::profile {

const std::vector<BackendFactory>& profile_backends() {
    static const std::vector<BackendFactory> k_backends = {
        make_papi_backend,       make_perf_backend, make_callgrind_backend,
        make_cachegrind_backend, make_time_backend,
    };
    return k_backends;
}

std::vector<std::string> profile_backend_names() {
    std::vector<std::string> names;
    for (const BackendFactory make : profile_backends())
        names.push_back(make()->name());
    return names;
}

std::unique_ptr<ProfileBackend> make_backend(const std::string& name) {
    for (const BackendFactory make : profile_backends())
        if (auto b = make(); b->name() == name)
            return b;
    std::vector<std::string> names = profile_backend_names();
    const std::string last = names.back();
    names.pop_back();
    throw core::InputError(
        "", "backend", fmt::format("expected auto, {} or {}, got '{}'", fmt::join(names, ", "), last, name));
}

} // namespace roofcast::measure::profile
