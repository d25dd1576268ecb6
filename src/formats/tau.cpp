// TAU's profile directory (profile.<node>.<context>.<thread> files, or MULTI__<metric> directories of them;
// TAU's documentation, "Profile file format"): imported by `roofcast profile --import-tau DIR`.
#include "measure/profile/tau.hpp"
#include "formats/format.hpp"

#include <filesystem>

namespace roofcast::model::formats {

namespace {

bool sniff_tau(const Input& in) {
    if (!in.is_directory())
        return false;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(in.path(), ec)) {
        const std::string name = e.path().filename().string();
        // profile.<node>.<context>.<thread>: digits and dots after "profile."
        if ((name.starts_with("profile.") && name.size() > 8 &&
             name.find_first_not_of("0123456789.", 8) == std::string::npos) ||
            name.starts_with("MULTI__"))
            return true;
    }
    return false;
}

core::Profile read_tau(const Input& in, std::vector<std::string>* /*unread*/) {
    return measure::profile::import_tau_directory(in.path());
}

} // namespace

extern constinit const FormatReader tau_format{"tau",     "TAU profile directory", "fuzz/seeds/tau",
                                               sniff_tau, document_of<read_tau>,   profile_dataset<read_tau>};

} // namespace roofcast::model::formats
