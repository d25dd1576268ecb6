// callgrind's output (valgrind's manual, "Callgrind Format Specification"): valgrind's own callgrind.out
// files and the counts `roofcast profile --backend callgrind --callgrind-out FILE` writes, read as a profile
// of one run (measure/profile/callgrind.hpp, profile_from_callgrind).
#include "measure/profile/callgrind.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_callgrind(const Input& in) {
    return !in.is_directory() && !in.is_binary() && measure::profile::looks_like_callgrind(in.text());
}

Document read_callgrind_document(const Input& in, std::vector<std::string>* /*unread*/) {
    return measure::profile::profile_from_callgrind(in.text(), in.path());
}

scale::Dataset callgrind_dataset(const Input& in, std::vector<std::string>* /*unread*/) {
    return dataset_of(measure::profile::profile_from_callgrind(in.text(), in.path()), in.path());
}

} // namespace

const FormatReader& callgrind_format() {
    static const FormatReader f{
        "callgrind",     "callgrind output",      "tests/measure/data/callgrind/triad.callgrind",
        sniff_callgrind, read_callgrind_document, callgrind_dataset};
    return f;
}

} // namespace roofcast::model::formats
