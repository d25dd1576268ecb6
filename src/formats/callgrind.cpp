// callgrind's output (valgrind's manual, "Callgrind Format Specification"): valgrind's own callgrind.out
// files and the counts `roofcast profile --backend callgrind --callgrind-out FILE` writes, read as a profile
// of one run (measure/profile/callgrind.hpp, profile_from_callgrind).
#include "measure/profile/callgrind.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

extern constinit const FormatReader callgrind_format{
    "callgrind",
    "callgrind output",
    "tests/measure/data/callgrind/triad.callgrind",
    text_output_of<measure::profile::looks_like_callgrind>,
    document_of<parsed_text<measure::profile::profile_from_callgrind>>,
    profile_dataset<parsed_text<measure::profile::profile_from_callgrind>>};

} // namespace roofcast::model::formats
