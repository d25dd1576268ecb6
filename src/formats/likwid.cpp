// likwid-perfctr's marker output in CSV form (`likwid-perfctr -m -O`; measure/profile/likwid.hpp): imported
// by `roofcast profile --import-likwid FILE`, and read by `scale` as one run at its thread count.
#include "measure/profile/likwid.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_likwid(const Input& in) {
    return !in.is_directory() && !in.is_binary() && measure::profile::looks_like_likwid_csv(in.text());
}

Document read_likwid_document(const Input& in, std::vector<std::string>* /*unread*/) {
    return measure::profile::parse_likwid_csv(in.text(), in.path());
}

scale::Dataset likwid_dataset(const Input& in, std::vector<std::string>* /*unread*/) {
    return dataset_of(measure::profile::parse_likwid_csv(in.text(), in.path()), in.path());
}

} // namespace

const FormatReader& likwid_format() {
    static const FormatReader f{
        "likwid",     "likwid-perfctr marker CSV", "tests/measure/data/likwid/flops-dp.csv",
        sniff_likwid, read_likwid_document,        likwid_dataset};
    return f;
}

} // namespace roofcast::model::formats
