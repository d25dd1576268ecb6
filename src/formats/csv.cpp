// CSV scaling data (function,metric,<parameter>...,value; docs/scale.md): a scaling input of `roofcast
// scale`. A file named *.csv is taken as one, as is a file whose first line starts "function,metric,".
#include "formats/format.hpp"
#include "measure/profile/likwid.hpp"

namespace roofcast::model::formats {

namespace {

// likwid-perfctr's CSV output is another format (likwid.cpp), whatever the file is named.
bool sniff_csv(const Input& in) {
    return !in.is_directory() && (has_extension(in, ".csv") || in.text().starts_with("function,metric,")) &&
           !measure::profile::looks_like_likwid_csv(in.text());
}

scale::Dataset read_csv(const Input& in, std::vector<std::string>* /*unread*/) {
    return scale::read_csv(in.text(), in.path());
}

} // namespace

extern constinit const FormatReader csv_format{
    "csv", "CSV profile", "data/profiles/two-param.csv", sniff_csv, document_of<read_csv>, read_csv};

} // namespace roofcast::model::formats
