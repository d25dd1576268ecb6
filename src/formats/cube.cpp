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

Document read_cube_document(const Input& in, std::vector<std::string>* /*unread*/) {
    return measure::profile::cube_to_profile(measure::profile::parse_cube(in.text(), in.path()), in.path());
}

scale::Dataset cube_dataset(const Input& in, std::vector<std::string>* unread) {
    return dataset_of(std::get<core::Profile>(read_cube_document(in, unread)), in.path());
}

} // namespace

const FormatReader& cube_format() {
    static const FormatReader f{"cube",     "CUBE4 profile",    "tests/measure/data/cube/small.cubex",
                                sniff_cube, read_cube_document, cube_dataset};
    return f;
}

} // namespace roofcast::model::formats
