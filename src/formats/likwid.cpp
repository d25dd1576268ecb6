// likwid-perfctr's marker output in CSV form (`likwid-perfctr -m -O`; measure/profile/likwid.hpp): imported
// by `roofcast profile --import-likwid FILE`, and read by `scale` as one run at its thread count.
#include "measure/profile/likwid.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

extern constinit const FormatReader likwid_format{
    "likwid",
    "likwid-perfctr marker CSV",
    "tests/measure/data/likwid/flops-dp.csv",
    text_output_of<measure::profile::looks_like_likwid_csv>,
    document_of<parsed_text<measure::profile::parse_likwid_csv>>,
    profile_dataset<parsed_text<measure::profile::parse_likwid_csv>>};

} // namespace roofcast::model::formats
