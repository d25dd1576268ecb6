// Extra-P's JSON formats (the current one with a "measurements" map, and the older one with id-based
// "callpaths", "metrics", "coordinates" and "measurements" lists): a scaling input of `roofcast scale`.
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_extrap_json(const Input& in) {
    return !in.is_directory() && in.is_json() && in.text().find("\"measurements\"") != std::string::npos &&
           in.text().find("\"roofcast-") == std::string::npos;
}

scale::Dataset read_extrap_json(const Input& in, std::vector<std::string>* /*unread*/) {
    return scale::read_extrap_json(in.text(), in.path());
}

} // namespace

extern constinit const FormatReader extrap_json_format{"extrap-json",
                                                       "Extra-P JSON",
                                                       "fuzz/seeds/extrap_json/new.json",
                                                       sniff_extrap_json,
                                                       document_of<read_extrap_json>,
                                                       read_extrap_json};

} // namespace roofcast::model::formats
