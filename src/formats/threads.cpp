// The threads results file (`roofcast threads --json`, docs/threads.md): JSON with "format":
// "roofcast-threads"; `report` renders it, `threads --from` re-analyses it.
#include "core/error.hpp"
#include "core/nesting.hpp"
#include "formats/format.hpp"

#include <nlohmann/json.hpp>

namespace roofcast::model::formats {

namespace {

bool sniff_threads(const Input& in) {
    return json_with_tag(in, "\"roofcast-threads\"");
}

threads::ThreadsData read_threads(const Input& in, std::vector<std::string>* unread) {
    core::check_nesting(in.text(), in.path());
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in.text());
    } catch (const nlohmann::json::exception& e) {
        throw core::InputError(in.path(), "", std::string("malformed JSON: ") + e.what());
    }
    return threads::data_from_json(j, in.path(), unread);
}

} // namespace

extern constinit const FormatReader threads_format{"threads", "threads results file",
                                                   "fuzz/seeds/threads/norm2-omp.json", sniff_threads,
                                                   document_of<read_threads>};

} // namespace roofcast::model::formats
