// Extra-P's text format (PARAMETER, POINTS, REGION, METRIC and DATA lines; Extra-P's documentation, "Text
// input format"): a scaling input of `roofcast scale`. A file named *.txt is taken as one, as is a file
// whose first line that is not blank or a comment starts with PARAMETER.
#include "model/formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool starts_with_parameter(const std::string& text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        const std::string_view line(text.data() + pos, end - pos);
        const auto first = line.find_first_not_of(" \t\r");
        if (first != std::string_view::npos && line[first] != '#')
            return line.substr(first).starts_with("PARAMETER");
        pos = end + 1;
    }
    return false;
}

bool sniff_extrap_text(const Input& in) {
    return !in.is_directory() && (has_extension(in, ".txt") || starts_with_parameter(in.text()));
}

scale::Dataset extrap_text_dataset(const Input& in, std::vector<std::string>* /*unread*/) {
    return scale::read_extrap_text(in.text(), in.path());
}

Document read_extrap_text_document(const Input& in, std::vector<std::string>* unread) {
    return extrap_text_dataset(in, unread);
}

} // namespace

const FormatReader& extrap_text_format() {
    static const FormatReader f{"extrap-text",
                                "Extra-P text",
                                "fuzz/seeds/extrap_text/seed.txt",
                                sniff_extrap_text,
                                read_extrap_text_document,
                                extrap_text_dataset};
    return f;
}

} // namespace roofcast::model::formats
