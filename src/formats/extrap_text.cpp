// Extra-P's text format (PARAMETER, POINTS, REGION, METRIC and DATA lines; Extra-P's documentation, "Text
// input format"): a scaling input of `roofcast scale`. A file named *.txt is taken as one, as is a file
// whose first line that is not blank or a comment starts with PARAMETER. Written by `roofcast convert
// --format extrap` as the inverse of the reader: read back, it gives the same series, points and values.
#include "core/error.hpp"
#include "formats/format.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

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

// A name on a REGION or METRIC line: the reader takes the rest of the line, trimmed.
const std::string& extrap_name(const std::string& name, const std::string& file, const char* what) {
    const bool ok = !name.empty() && name.find_first_of("\n\r") == std::string::npos &&
                    name.find_first_not_of(" \t") == 0 && name.find_last_not_of(" \t") == name.size() - 1;
    if (!ok)
        throw core::InputError(
            file, what,
            fmt::format("'{}' cannot be written as Extra-P text (expected a non-empty name "
                        "on one line, without leading or trailing blanks)",
                        name));
    return name;
}

// Values in the shortest form that reads back to the same double ({fmt}'s default).
std::string extrap_coordinate(const scale::Coord& x, std::size_t nparams) {
    if (nparams == 1)
        return fmt::format("{}", x[0]);
    std::string out = "(";
    for (std::size_t k = 0; k < nparams; ++k)
        out += fmt::format(" {}", x[k]);
    return out + " )";
}

std::string write_extrap_text(const scale::Dataset& d, const std::string& file) {
    if (d.parameters.empty() || d.series.empty())
        throw core::InputError(file, "", "expected at least one parameter and one series to write");
    std::set<scale::Coord> points;
    for (const auto& s : d.series)
        for (const auto& p : s.points)
            points.insert(p.x);
    std::string out;
    for (const auto& name : d.parameters) {
        if (name.find_first_of(" \t") != std::string::npos)
            throw core::InputError(file, "parameters",
                                   fmt::format("parameter '{}' cannot be written as Extra-P text (expected a "
                                               "name without blanks)",
                                               name));
        out += fmt::format("PARAMETER {}\n", extrap_name(name, file, "parameters"));
    }
    out += "POINTS";
    for (const auto& x : points)
        out += fmt::format(" {}", extrap_coordinate(x, d.parameters.size()));
    out += "\n";
    // Grouped by metric (METRIC applies to the regions after it), in the order the data set names them.
    std::vector<std::string> metrics;
    for (const auto& s : d.series)
        if (std::find(metrics.begin(), metrics.end(), s.metric) == metrics.end())
            metrics.push_back(s.metric);
    for (const auto& metric : metrics) {
        out += fmt::format("METRIC {}\n", extrap_name(metric, file, "metric"));
        for (const auto& s : d.series) {
            if (s.metric != metric)
                continue;
            out += fmt::format("REGION {}\n", extrap_name(s.function, file, "function"));
            // One DATA line per point, in POINTS order: a series without a value at some point cannot be
            // written (Extra-P text has no way to say "missing").
            std::map<scale::Coord, const scale::Point*> at;
            for (const auto& p : s.points)
                at[p.x] = &p;
            for (const auto& x : points) {
                const auto it = at.find(x);
                if (it == at.end() || it->second->values.empty())
                    throw core::InputError(
                        file, s.function,
                        fmt::format(
                            "metric '{}' has no value at {}: Extra-P text needs one DATA line per point",
                            s.metric, scale::format_point(x, d.parameters)));
                out += "DATA";
                for (double v : it->second->values)
                    out += fmt::format(" {}", v);
                out += "\n";
            }
        }
    }
    return out;
}

scale::Dataset read_extrap_text(const Input& in, std::vector<std::string>* /*unread*/) {
    return scale::read_extrap_text(in.text(), in.path());
}

} // namespace

extern constinit const FormatReader extrap_text_format{"extrap-text",
                                                       "Extra-P text",
                                                       "fuzz/seeds/extrap_text/seed.txt",
                                                       sniff_extrap_text,
                                                       document_of<read_extrap_text>,
                                                       read_extrap_text,
                                                       nullptr,
                                                       write_extrap_text};

} // namespace roofcast::model::formats
