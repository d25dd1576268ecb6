// The line-oriented readers of scaling data sets: CSV (function,metric,<parameter>...,value) and Extra-P's
// text format (analysis/scale/dataset.hpp). A data set of a million call paths is five million lines: the
// readers walk the text in place (views into it, numbers by std::from_chars), build no string per line, and
// spell a line's field name ("line 12") only for an error.
#include "analysis/scale/dataset.hpp"
#include "analysis/scale/reader_detail.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <omp.h>
#include <string_view>

namespace roofcast::model::scale {

using core::InputError;
using namespace reading;

namespace {

// The lines of a text, each without its '\n' and one trailing '\r'; a text ending in '\n' has a last,
// empty line.
class Lines {
public:
    // `before`: the lines that precede the text (for a part of a file), so that numbers count from the
    // file's.
    explicit Lines(std::string_view text, std::size_t before = 0) : m_text(text), m_number(before) {}
    // Where the next line starts.
    std::size_t offset() const { return m_start; }
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
    std::size_t m_number;
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
    // `at`: the line that ends the region (0: the end of the file).
    auto finish_region = [&](std::size_t at) {
        if (!region.empty() && data_index != 0 && data_index != points.size())
            throw InputError(
                file, at == 0 ? std::string("end of file") : line_field(at),
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
        std::size_t sp = 0; // the end of the tag (find_first_of calls memchr per character)
        while (sp < line.size() && line[sp] != ' ' && line[sp] != '\t')
            ++sp;
        if (sp == line.size())
            sp = std::string_view::npos;
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
            finish_region(ln);
            if (rest.empty())
                throw InputError(file, line_field(ln), "expected a metric name after METRIC");
            metric = rest;
            data_index = 0;
        } else if (tag == "REGION") {
            finish_region(ln);
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
    finish_region(0);
    if (d.parameters.empty() || points.empty() || d.series.empty())
        throw InputError(file, "", "expected PARAMETER, POINTS, REGION and DATA lines (Extra-P text format)");
    normalize(d);
    return d;
}

namespace {

// The data rows of a CSV (whole lines of it, `before` lines into the file) into b.
void csv_rows(std::string_view part, std::size_t before, const std::vector<std::string>& parameters,
              std::size_t ncols, const std::string& file, Builder& b) {
    Lines lines(part, before);
    std::string_view line;
    std::size_t ln = 0;
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
        for (std::size_t k = 0; k < parameters.size(); ++k) {
            const auto v = to_number(cells[2 + k]);
            if (!v || !std::isfinite(*v))
                throw InputError(file, line_field(ln) + " " + parameters[k],
                                 fmt::format("expected a finite number, got '{}'", cells[2 + k]));
            c[k] = *v;
        }
        const auto v = to_number(cells[ncols - 1]);
        if (!v)
            throw InputError(file, line_field(ln) + " value",
                             fmt::format("expected a number, got '{}'", cells[ncols - 1]));
        b.add(cells[0], cells[1], c, *v);
    }
}

// Parts of a large text read at once: each OpenMP thread reads a run of whole lines into a data set of its
// own, and the parts join the first in order (Builder::absorb), as if one reader had read them all: the
// same series in the same order, the same points, the same values, the same first error.
constexpr std::size_t k_parallel_bytes = std::size_t{4} << 20;

void csv_rows_parallel(std::string_view data, std::size_t before, const std::vector<std::string>& parameters,
                       std::size_t ncols, const std::string& file, Builder& b) {
    const std::size_t parts = static_cast<std::size_t>(std::clamp(omp_get_max_threads(), 1, 16));
    std::vector<std::size_t> bounds(parts + 1, data.size());
    bounds[0] = 0;
    for (std::size_t i = 1; i < parts; ++i) {
        const std::size_t nl = data.find('\n', std::max(bounds[i - 1], i * data.size() / parts));
        bounds[i] = nl == std::string_view::npos ? data.size() : nl + 1;
    }
    std::vector<std::size_t> lines_in(parts, 0);
    std::vector<Dataset> own(parts);
    std::vector<std::exception_ptr> error(parts);
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(parts); ++i) {
        const auto k = static_cast<std::size_t>(i);
        const std::string_view part = data.substr(bounds[k], bounds[k + 1] - bounds[k]);
        lines_in[k] = static_cast<std::size_t>(std::count(part.begin(), part.end(), '\n'));
    }
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(parts); ++i) {
        const auto k = static_cast<std::size_t>(i);
        const std::string_view part = data.substr(bounds[k], bounds[k + 1] - bounds[k]);
        std::size_t first = before;
        for (std::size_t j = 0; j < k; ++j)
            first += lines_in[j];
        try {
            if (k == 0) {
                csv_rows(part, first, parameters, ncols, file, b);
            } else {
                Builder mine(own[k]);
                csv_rows(part, first, parameters, ncols, file, mine);
            }
        } catch (...) {
            error[k] = std::current_exception();
        }
    }
    for (const auto& e : error) // the first error in the file
        if (e)
            std::rethrow_exception(e);
    for (std::size_t k = 1; k < parts; ++k)
        b.absorb(std::move(own[k]));
}

} // namespace

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
    const std::string_view data =
        lines.offset() < text.size() ? std::string_view(text).substr(lines.offset()) : std::string_view();
    Builder b(d);
    if (data.size() >= k_parallel_bytes && omp_get_max_threads() > 1)
        csv_rows_parallel(data, ln, d.parameters, header.size(), file, b);
    else
        csv_rows(data, ln, d.parameters, header.size(), file, b);
    if (d.series.empty())
        throw InputError(file, "", "expected at least one data line after the header");
    normalize(d);
    return d;
}

} // namespace roofcast::model::scale
