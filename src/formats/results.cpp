// roofcast's results file (docs/formats.md): JSON with "kind": "roofcast-results", written by `run`,
// `bench` and `report`; drawn by `plot` and `report`.
#include "core/results.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_results(const Input& in) {
    return json_with_tag(in, "\"roofcast-results\"");
}

Document read_results_document(const Input& in, std::vector<std::string>* unread) {
    return core::results_from_text(in.text(), in.path(), unread);
}

} // namespace

const FormatReader& results_format() {
    static const FormatReader f{"results",     "results file",        "tests/report/data/results.json",
                                sniff_results, read_results_document, nullptr};
    return f;
}

} // namespace roofcast::model::formats
