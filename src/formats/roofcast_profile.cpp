// roofcast's profile (docs/formats-profile.md): JSON with "format": "roofcast-profile", written by
// `roofcast profile` and its importers; placed on the roofline by `plot` and `report`, fitted by `scale`.
#include "core/profile.hpp"
#include "formats/format.hpp"

#include <nlohmann/json.hpp>

namespace roofcast::model::formats {

namespace {

bool sniff_roofcast_profile(const Input& in) {
    if (json_with_tag(in, "\"roofcast-profile\""))
        return true;
    // The tag in a YAML document is claimed too, so that the error says what the reader expects (JSON).
    const core::YamlField* root = yaml_spelling(in, "roofcast-profile");
    if (!root || in.is_json())
        return false;
    const YAML::Node& format = root->node()["format"];
    return format && format.IsScalar() && format.Scalar() == "roofcast-profile";
}

core::Profile read_roofcast_profile(const Input& in, std::vector<std::string>* unread) {
    return core::profile_from_text(in.text(), in.path(), unread);
}

scale::Dataset roofcast_profile_dataset(const Input& in, std::vector<std::string>* unread) {
    return scale::read_roofcast_profile(in.text(), in.path(), unread);
}

// As `roofcast profile` writes it.
std::string write_roofcast_profile(const core::Profile& p, const std::string& /*file*/) {
    return core::profile_to_json(p).dump(1) + "\n";
}

} // namespace

extern constinit const FormatReader roofcast_profile_format{"roofcast-profile",
                                                            "roofcast profile",
                                                            "data/profiles/run-008.json",
                                                            sniff_roofcast_profile,
                                                            document_of<read_roofcast_profile>,
                                                            roofcast_profile_dataset,
                                                            write_roofcast_profile};

} // namespace roofcast::model::formats
