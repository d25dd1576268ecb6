// Score-P's and Scalasca's CUBE4 profile, profile.cubex (measure/profile/cube.hpp): imported by `roofcast
// profile --import-cube FILE`, read by `scale` as one run at its number of processes.
#include "measure/profile/cube.hpp"
#include "core/error.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_cube(const Input& in) {
    return !in.is_directory() &&
           (has_extension(in, ".cubex") || measure::profile::looks_like_cube(in.text()));
}

core::Profile read_cube(const Input& in, std::vector<std::string>* /*unread*/) {
    return measure::profile::cube_to_profile(measure::profile::parse_cube(in.text(), in.path()), in.path());
}

} // namespace

extern constinit const FormatReader cube_format{
    "cube",     "CUBE4 profile",        "tests/measure/data/cube/small.cubex",
    sniff_cube, document_of<read_cube>, profile_dataset<read_cube>};

} // namespace roofcast::model::formats
