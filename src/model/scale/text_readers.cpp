// The line-oriented readers of scaling data sets: CSV (function,metric,<parameter>...,value) and Extra-P's
// text format (model/scale/dataset.hpp). A data set of a million call paths is five million lines: the
// readers walk the text in place (views into it, numbers by std::from_chars), build no string per line, and
// spell a line's field name ("line 12") only for an error.
#include "core/error.hpp"
#include "model/scale/dataset.hpp"
#include "model/scale/reader_detail.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <string_view>

namespace roofcast::model::scale {

using core::InputError;
using namespace reading;

namespace {

// The lines of a text, each without its '\n' and one trailing '\r'; a text ending in '\n' has a last,
// empty line.
class Lines {
public:
    explicit Lines(std::string_view text) : m_text(text) {}
    // The next line and its number (from 1); false after the last.
    bool next(std::string_view& line, std::size_t& number) {
        if (m_start > m_text.size())
            return false;
        const char* begin = m_text.data() + m_start;
        const std::size_t left = m_text.size() - m_start;
        const void* nl = left > 0 ? std::memchr(begin, '\n', left) : nullptr;
        const std::size_t len = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : left;
        line = std::string_view(begin, len);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        m_start += len + 1;
        number = ++m_number;
        return true;
    }

private:
    std::string_view m_text;
    std::size_t m_start = 0;
    std::size_t m_number = 0;
};

std::string line_field(std::size_t number) {
    return fmt::format("line {}", number);
}

// Whitespace-separated words of a line.
template <class Fn> void for_each_word(std::string_view line, Fn&& fn) {
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i]))
            ++i;
        std::size_t j = i;
        while (j < line.size() && !is_space(line[j]))
            ++j;
        if (j > i)
            fn(line.substr(i, j - i));
        i = j;
    }
}

// Extra-P POINTS: "( 20 )", "20 30", "( 20 1 ) ( 30 2 )", "((20) (1)) ((30) (2))". A parenthesised
// group at depth 0 is one point; bare numbers at depth 0 are one-parameter points.
std::vector<std::vector<double>> parse_points(std::string_view rest, const std::string& file,
                                              const std::string& field) {
    std::vector<std::vector<double>> points;
    std::vector<double> current;
    int depth = 0;
    std::size_t i = 0;
    while (i < rest.size()) {
        const char c = rest[i];
        if (c == '(') {
            ++depth;
            ++i;
        } else if (c == ')') {
            if (--depth < 0)
                throw InputError(file, field, "unbalanced ')' in POINTS");
            if (depth == 0) {
                points.push_back(current);
                current.clear();
            }
            ++i;
        } else if (is_space(c)) {
            ++i;
        } else {
            std::size_t j = i;
            while (j < rest.size() && rest[j] != '(' && rest[j] != ')' && !is_space(rest[j]))
                ++j;
            const auto v = to_number(rest.substr(i, j - i));
            if (!v || !std::isfinite(*v))
                throw InputError(file, field,
                                 fmt::format("expected a number, got '{}'", rest.substr(i, j - i)));
            if (depth == 0)
                points.push_back({*v});
            else
                current.push_back(*v);
            i = j;
        }
    }
    if (depth != 0)
        throw InputError(file, field, "unbalanced '(' in POINTS");
    return points;
}

// The cells of a CSV line without double quotes, trimmed, into `cells` (at most `max` of them); returns
// how many the line has (which may exceed max). Lines with quotes go to split_csv.
std::size_t split_plain(std::string_view line, std::string_view* cells, std::size_t max) {
    std::size_t count = 0;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = line.find(',', start);
        const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
        if (count < max)
            cells[count] = trim_view(line.substr(start, end - start));
        ++count;
        if (comma == std::string_view::npos)
            return count;
        start = comma + 1;
    }
}

} // namespace

Dataset read_extrap_text(const std::string& text, const std::string& file) {
    Dataset d;
    std::vector<Coord> points;
    std::string metric = "metric";
    std::string region;
    std::size_t data_index = 0;
    std::size_t region_line = 0;
    Builder b(d);
    Lines lines(text);
    auto finish_region = [&](const std::string& at) {
        if (!region.empty() && data_index != 0 && data_index != points.size())
            throw InputError(
                file, at,
                fmt::format("region '{}' (line {}) has {} DATA lines, expected one per point ({})", region,
                            region_line, data_index, points.size()));
    };
    std::string_view raw;
    std::size_t ln = 0;
    std::vector<double> vals;
    while (lines.next(raw, ln)) {
        const std::string_view line = trim_view(raw);
        if (line.empty() || line[0] == '#')
            continue;
        const auto sp = line.find_first_of(" \t");
        const std::string_view tag = line.substr(0, sp);
        const std::string_view rest =
            sp == std::string_view::npos ? std::string_view() : trim_view(line.substr(sp));
        if (tag == "DATA") { // first: all but a few lines are DATA
            if (region.empty())
                throw InputError(file, line_field(ln), "expected REGION before DATA");
            if (data_index >= points.size())
                throw InputError(
                    file, line_field(ln),
                    fmt::format("more DATA lines than POINTS ({}) for region '{}'", points.size(), region));
            vals.clear();
            for_each_word(rest, [&](std::string_view tok) {
                const auto v = to_number(tok);
                if (!v)
                    throw InputError(file, line_field(ln), fmt::format("expected a number, got '{}'", tok));
                vals.push_back(*v);
            });
            if (vals.empty())
                throw InputError(file, line_field(ln), "expected at least one value after DATA");
            if (vals.size() == 1)
                b.add(region, metric, points[data_index++], vals[0]);
            else
                b.add(region, metric, points[data_index++], vals);
        } else if (tag == "PARAMETER") {
            for_each_word(rest, [&](std::string_view n) { d.parameters.emplace_back(n); });
            check_parameter_count(d.parameters.size(), file, line_field(ln));
        } else if (tag == "POINTS") {
            const std::string field = line_field(ln);
            if (d.parameters.empty())
                throw InputError(file, field, "expected PARAMETER before POINTS");
            for (const auto& p : parse_points(rest, file, field))
                points.push_back(to_coord(p, d.parameters.size(), file, field));
        } else if (tag == "METRIC") {
            finish_region(line_field(ln));
            if (rest.empty())
                throw InputError(file, line_field(ln), "expected a metric name after METRIC");
            metric = rest;
            data_index = 0;
        } else if (tag == "REGION") {
            finish_region(line_field(ln));
            if (rest.empty())
                throw InputError(file, line_field(ln), "expected a call path after REGION");
            region = rest;
            region_line = ln;
            data_index = 0;
        } else {
            throw InputError(
                file, line_field(ln),
                fmt::format("expected PARAMETER, POINTS, REGION, METRIC or DATA, got '{}'", tag));
        }
    }
    finish_region("end of file");
    if (d.parameters.empty() || points.empty() || d.series.empty())
        throw InputError(file, "", "expected PARAMETER, POINTS, REGION and DATA lines (Extra-P text format)");
    normalize(d);
    return d;
}

Dataset read_csv(const std::string& text, const std::string& file) {
    Dataset d;
    Lines lines(text);
    std::string_view line;
    std::size_t ln = 0;
    bool found = false;
    while (!found && lines.next(line, ln))
        found = !trim_view(line).empty();
    if (!found)
        throw InputError(file, "header", "expected a header line 'function,metric,<parameter>...,value'");
    const auto header = split_csv(line);
    if (header.size() < 4 || header[0] != "function" || header[1] != "metric" || header.back() != "value")
        throw InputError(file, "header",
                         "expected 'function,metric,<parameter>...,value' (1 or 2 parameters)");
    d.parameters.assign(header.begin() + 2, header.end() - 1);
    check_parameter_count(d.parameters.size(), file, "header");
    const std::size_t ncols = header.size();
    Builder b(d);
    std::string_view cells[k_max_parameters + 3];
    std::vector<std::string> quoted; // the cells of a line with double quotes
    while (lines.next(line, ln)) {
        if (trim_view(line).empty())
            continue;
        std::size_t count = 0;
        if (line.find('"') == std::string_view::npos) {
            count = split_plain(line, cells, ncols);
        } else {
            quoted = split_csv(line);
            count = quoted.size();
            for (std::size_t k = 0; k < count && k < ncols; ++k)
                cells[k] = quoted[k];
        }
        if (count != ncols)
            throw InputError(file, line_field(ln), fmt::format("expected {} columns, got {}", ncols, count));
        Coord c{};
        for (std::size_t k = 0; k < d.parameters.size(); ++k) {
            const auto v = to_number(cells[2 + k]);
            if (!v || !std::isfinite(*v))
                throw InputError(file, line_field(ln) + " " + d.parameters[k],
                                 fmt::format("expected a finite number, got '{}'", cells[2 + k]));
            c[k] = *v;
        }
        const auto v = to_number(cells[ncols - 1]);
        if (!v)
            throw InputError(file, line_field(ln) + " value",
                             fmt::format("expected a number, got '{}'", cells[ncols - 1]));
        b.add(cells[0], cells[1], c, *v);
    }
    if (d.series.empty())
        throw InputError(file, "", "expected at least one data line after the header");
    normalize(d);
    return d;
}

} // namespace roofcast::model::scale
