// The papi backend: PAPI presets counted per marker region by the marker library (ROOFCAST_MARKER_PAPI);
// usable only where PAPI can add a preset here (not on most virtual machines).
#include "measure/profile/backend.hpp"
#include "measure/profile/runner.hpp"

#include <algorithm>
#include <fmt/format.h>

#ifdef ROOFCAST_HAVE_PAPI
#include <papi.h>
#endif

namespace roofcast::measure::profile {

namespace {

const std::vector<std::string> k_papi_presets = {"PAPI_L1_DCM", "PAPI_L2_TCM", "PAPI_L3_TCM", "PAPI_TOT_INS",
                                                 "PAPI_DP_OPS", "PAPI_SP_OPS", "PAPI_TOT_CYC"};

class PapiBackend final : public ProfileBackend {
public:
    PapiBackend() : ProfileBackend("papi", "PAPI presets per marker region (hardware counters)") {}
    Availability availability(const std::string&) const override {
        std::string why;
        const auto presets = papi_addable_presets(why);
        if (presets.empty())
            return {false, false, "PAPI: no preset can be added here (" + why + ")"};
        return {true, true, fmt::format("PAPI can add {} here", fmt::join(presets, ", "))};
    }
    std::vector<Pass> prepare(const RunContext&, core::Profile& p) override {
        std::string why;
        const auto events = papi_addable_presets(why);
        p.settings["events"] = fmt::format("{}", fmt::join(events, ","));
        Pass pass;
        pass.label = "native";
        pass.environment.push_back("ROOFCAST_MARKER_PAPI=" + fmt::format("{}", fmt::join(events, ",")));
        return {pass};
    }
    void collect(const RunContext&, std::size_t, int, const std::filesystem::path&, Gather&,
                 std::vector<std::string>&) override {} // the counts come with the marker regions
    bool records_whole_run() const override { return true; }
};

} // namespace

std::vector<std::string> papi_addable_presets(std::string& why) {
    std::vector<std::string> ok;
#ifdef ROOFCAST_HAVE_PAPI
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        const int v = PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT) {
            why = "PAPI_library_init failed (" + std::string(v > 0 ? "version mismatch" : PAPI_strerror(v)) +
                  ")";
            return ok;
        }
    }
    // The presets that failed, grouped by reason in first-seen order ("PAPI_L1_DCM, PAPI_TOT_INS: Component
    // containing event is disabled"), so that one reason shared by every preset does not fill the error line.
    std::vector<std::pair<std::string, std::vector<std::string>>> failed;
    const auto fail = [&](const std::string& name, const std::string& reason) {
        auto it =
            std::find_if(failed.begin(), failed.end(), [&](const auto& f) { return f.first == reason; });
        if (it == failed.end())
            failed.push_back({reason, {name}});
        else
            it->second.push_back(name);
    };
    for (const auto& name : k_papi_presets) {
        int es = PAPI_NULL;
        if (PAPI_create_eventset(&es) != PAPI_OK) {
            fail(name, "cannot create an event set");
            continue;
        }
        const int rc = PAPI_add_named_event(es, name.c_str());
        if (rc == PAPI_OK)
            ok.push_back(name);
        else
            fail(name, PAPI_strerror(rc));
        PAPI_cleanup_eventset(es);
        PAPI_destroy_eventset(&es);
    }
    std::vector<std::string> parts;
    for (const auto& [reason, names] : failed)
        parts.push_back(fmt::format("{}: {}", fmt::join(names, ", "), reason));
    why = fmt::format("{}", fmt::join(parts, "; "));
#else
    why = "roofcast was built without PAPI (CMake found no papi.pc)";
#endif
    return ok;
}

std::unique_ptr<ProfileBackend> make_papi_backend() {
    return std::make_unique<PapiBackend>();
}

} // namespace roofcast::measure::profile
