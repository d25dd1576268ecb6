// roofcast's results file (docs/formats.md): JSON with "kind": "roofcast-results", written by `run`,
// `bench` and `report`; drawn by `plot` and `report`.
#include "core/results.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_results(const Input& in) {
    return json_with_tag(in, "\"roofcast-results\"");
}

core::Results read_results(const Input& in, std::vector<std::string>* unread) {
    return core::results_from_text(in.text(), in.path(), unread);
}

} // namespace

extern constinit const FormatReader results_format{
    "results", "results file", "tests/report/data/results.json", sniff_results, document_of<read_results>};

} // namespace roofcast::model::formats
