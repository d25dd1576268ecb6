// likwid-perfctr's marker output in CSV form (`likwid-perfctr -m -O`; measure/profile/likwid.hpp): imported
// by `roofcast profile --import-likwid FILE`, and read by `scale` as one run at its thread count.
#include "measure/profile/likwid.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

constexpr auto read_likwid = &parsed_text<measure::profile::parse_likwid_csv>;
constexpr auto sniff_likwid = &text_output_of<measure::profile::looks_like_likwid_csv>;

extern constinit const FormatReader likwid_format{
    "likwid",     "likwid-perfctr marker CSV", "tests/measure/data/likwid/flops-dp.csv",
    sniff_likwid, document_of<read_likwid>,    profile_dataset<read_likwid>};

} // namespace roofcast::model::formats
