// callgrind's output (valgrind's manual, "Callgrind Format Specification"): valgrind's own callgrind.out
// files and the counts `roofcast profile --backend callgrind --callgrind-out FILE` writes, read as a profile
// of one run (measure/profile/callgrind.hpp, profile_from_callgrind).
#include "measure/profile/callgrind.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

constexpr auto read_callgrind = &parsed_text<measure::profile::profile_from_callgrind>;
constexpr auto sniff_callgrind = &text_output_of<measure::profile::looks_like_callgrind>;

extern constinit const FormatReader callgrind_format{
    "callgrind",     "callgrind output",          "tests/measure/data/callgrind/triad.callgrind",
    sniff_callgrind, document_of<read_callgrind>, profile_dataset<read_callgrind>};

} // namespace roofcast::model::formats
