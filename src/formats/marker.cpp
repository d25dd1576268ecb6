// The marker library's own output, marker.<rank>.<pid>.json (docs/formats-marker.md): JSON with "format":
// "roofcast-marker", which `roofcast profile` gathers into a profile.
#include "core/nesting.hpp"
#include "formats/format.hpp"
#include "measure/profile/marker_file.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_marker(const Input& in) {
    return json_with_tag(in, "\"roofcast-marker\"");
}

measure::profile::MarkerFile read_marker(const Input& in, std::vector<std::string>* /*unread*/) {
    core::check_nesting(in.text(), in.path());
    return measure::profile::parse_marker_file(in.text(), in.path());
}

} // namespace

extern constinit const FormatReader marker_format{
    "marker", "marker file", "fuzz/seeds/marker/marker.0.100.json", sniff_marker, document_of<read_marker>};

} // namespace roofcast::model::formats
