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
#include <memory>
#include <omp.h>
#include <optional>
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

// A large text is read in parts at once: each OpenMP thread reads a run of whole lines into a data set of its
// own, and the parts join the first in order (Builder::join), as if one reader had read them all: the same
// series in the same order, the same points, the same values, the same first error.
constexpr std::size_t k_parallel_bytes = std::size_t{4} << 20;

bool read_in_parts_here(std::string_view text) {
    return text.size() >= k_parallel_bytes && omp_get_max_threads() > 1;
}

// Where the parts of `data` start (and, last, its end): one per thread, each at the start of a line that
// `starts` ("\n", or "\nREGION" for a line whose first word is REGION) begins after a newline.
std::vector<std::size_t> line_parts(std::string_view data, std::string_view starts) {
    const std::size_t parts = static_cast<std::size_t>(std::clamp(omp_get_max_threads(), 1, 16));
    std::vector<std::size_t> bounds(parts + 1, data.size());
    bounds[0] = 0;
    for (std::size_t i = 1; i < parts; ++i) {
        std::size_t at = std::max(bounds[i - 1], i * data.size() / parts);
        for (;; ++at) {
            at = data.find(starts, at);
            const std::size_t after = at + starts.size();
            if (at == std::string_view::npos || starts.size() == 1 || after == data.size() ||
                is_space(data[after]))
                break;
        }
        bounds[i] = at == std::string_view::npos ? data.size() : at + 1;
    }
    return bounds;
}

// Reads the parts of `data` (whole lines, `before` lines into the file) between `bounds`, one OpenMP thread
// each: read(k, part, lines before it, the number of the line after it (0 after the last), into) reads part
// k into b (k = 0) or a builder of a data set of its own, which then join b in order. The first error in the
// file is thrown.
template <class Read>
void read_in_parts(std::string_view data, std::size_t before, const std::vector<std::size_t>& bounds,
                   Builder& b, Read&& read) {
    const std::size_t parts = bounds.size() - 1;
    const auto part_of = [&](std::size_t k) { return data.substr(bounds[k], bounds[k + 1] - bounds[k]); };
    std::vector<std::size_t> lines_in(parts, 0);
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(parts); ++i) {
        const std::string_view part = part_of(static_cast<std::size_t>(i));
        lines_in[static_cast<std::size_t>(i)] =
            static_cast<std::size_t>(std::count(part.begin(), part.end(), '\n'));
    }
    std::vector<std::size_t> first(parts + 1, before);
    for (std::size_t k = 0; k < parts; ++k)
        first[k + 1] = first[k] + lines_in[k];
    std::vector<Dataset> own(parts);
    std::vector<std::unique_ptr<Builder>> builders;
    std::vector<Builder*> joining;
    for (std::size_t k = 1; k < parts; ++k)
        joining.push_back(builders.emplace_back(std::make_unique<Builder>(own[k])).get());
    std::vector<std::exception_ptr> error(parts);
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(parts); ++i) {
        const auto k = static_cast<std::size_t>(i);
        const std::size_t next_line = k + 1 < parts && bounds[k + 1] < data.size() ? first[k + 1] + 1 : 0;
        try {
            read(k, part_of(k), first[k], next_line, k == 0 ? b : *joining[k - 1]);
        } catch (...) {
            error[k] = std::current_exception();
        }
    }
    for (const auto& e : error) // the first error in the file
        if (e)
            std::rethrow_exception(e);
    b.join(joining);
}

// Extra-P text, line by line: the state a line is read in (metric, call path, its DATA lines so far) and
// what each tag does to it.
class ExtrapLines {
public:
    // `points`: the POINTS read so far, which POINTS lines extend (the whole list for a part of the file).
    ExtrapLines(Builder& b, std::vector<Coord>& points, const std::string& file, std::string metric)
        : m_points(points), m_file(file), m_metric(std::move(metric)), m_b(b) {}

    const std::string& metric() const { return m_metric; }

    // The region before line `at` (0: the end of the file) ends there.
    void finish_region(std::size_t at) const {
        if (!m_region.empty() && m_data_index != 0 && m_data_index != m_points.size())
            throw InputError(
                m_file, at == 0 ? std::string("end of file") : line_field(at),
                fmt::format("region '{}' (line {}) has {} DATA lines, expected one per point ({})", m_region,
                            m_region_line, m_data_index, m_points.size()));
    }

    // The lines of a part of the file (`before` lines into it) that the line numbered `next_line` follows
    // (0: the end of the file).
    void read(std::string_view part, std::size_t before, std::size_t next_line) {
        Lines lines(part, before);
        std::string_view raw;
        std::size_t ln = 0;
        while (lines.next(raw, ln))
            line(raw, ln);
        finish_region(next_line);
    }

    void line(std::string_view raw, std::size_t ln) {
        const std::string_view line = trim_view(raw);
        if (line.empty() || line[0] == '#')
            return;
        std::size_t sp = 0; // the end of the tag (find_first_of calls memchr per character)
        while (sp < line.size() && line[sp] != ' ' && line[sp] != '\t')
            ++sp;
        const std::string_view tag = line.substr(0, sp);
        const std::string_view rest = sp == line.size() ? std::string_view() : trim_view(line.substr(sp));
        if (tag == "DATA") // first: all but a few lines are DATA
            data(rest, ln);
        else if (tag == "PARAMETER")
            parameter(rest, ln);
        else if (tag == "POINTS")
            points(rest, ln);
        else if (tag == "METRIC")
            metric(rest, ln);
        else if (tag == "REGION")
            region(rest, ln);
        else
            throw InputError(
                m_file, line_field(ln),
                fmt::format("expected PARAMETER, POINTS, REGION, METRIC or DATA, got '{}'", tag));
    }

private:
    void data(std::string_view rest, std::size_t ln) {
        if (m_region.empty())
            throw InputError(m_file, line_field(ln), "expected REGION before DATA");
        if (m_data_index >= m_points.size())
            throw InputError(
                m_file, line_field(ln),
                fmt::format("more DATA lines than POINTS ({}) for region '{}'", m_points.size(), m_region));
        m_vals.clear();
        for_each_word(rest, [&](std::string_view tok) {
            const auto v = to_number(tok);
            if (!v)
                throw InputError(m_file, line_field(ln), fmt::format("expected a number, got '{}'", tok));
            m_vals.push_back(*v);
        });
        if (m_vals.empty())
            throw InputError(m_file, line_field(ln), "expected at least one value after DATA");
        if (m_vals.size() == 1)
            m_b.add(m_region, m_metric, m_points[m_data_index++], m_vals[0]);
        else
            m_b.add(m_region, m_metric, m_points[m_data_index++], m_vals);
    }
    void parameter(std::string_view rest, std::size_t ln) {
        std::vector<std::string>& parameters = m_b.dataset().parameters;
        for_each_word(rest, [&](std::string_view n) { parameters.emplace_back(n); });
        check_parameter_count(parameters.size(), m_file, line_field(ln));
    }
    void points(std::string_view rest, std::size_t ln) {
        const std::string field = line_field(ln);
        const std::size_t parameters = m_b.dataset().parameters.size();
        if (parameters == 0)
            throw InputError(m_file, field, "expected PARAMETER before POINTS");
        for (const auto& p : parse_points(rest, m_file, field))
            m_points.push_back(to_coord(p, parameters, m_file, field));
    }
    void metric(std::string_view rest, std::size_t ln) {
        finish_region(ln);
        if (rest.empty())
            throw InputError(m_file, line_field(ln), "expected a metric name after METRIC");
        m_metric = rest;
        m_data_index = 0;
    }
    void region(std::string_view rest, std::size_t ln) {
        finish_region(ln);
        if (rest.empty())
            throw InputError(m_file, line_field(ln), "expected a call path after REGION");
        m_region = rest;
        m_region_line = ln;
        m_data_index = 0;
    }

    std::vector<Coord>& m_points;
    const std::string& m_file;
    std::string m_metric;
    Builder& m_b;
    std::string m_region;
    std::size_t m_data_index = 0;
    std::size_t m_region_line = 0;
    std::vector<double> m_vals;
};

// Where each line whose tag (its first word) is `tag` starts in `text`, in order.
std::vector<std::size_t> tagged_lines(std::string_view text, std::string_view tag) {
    std::vector<std::size_t> out;
    for (std::size_t at = text.find(tag); at != std::string_view::npos; at = text.find(tag, at + 1)) {
        const std::size_t after = at + tag.size();
        if (after < text.size() && !is_space(text[after]))
            continue;
        std::size_t k = at;
        while (k > 0 && text[k - 1] != '\n' && is_space(text[k - 1]))
            --k;
        if (k == 0 || text[k - 1] == '\n')
            out.push_back(k);
    }
    return out;
}

// The metric each part of the regions (between `bounds`) starts in: the last METRIC line before it, else
// `first`.
std::vector<std::string> part_metrics(std::string_view regions, const std::vector<std::size_t>& bounds,
                                      const std::string& first) {
    std::vector<std::string> metrics{first};
    for (std::size_t k = 1; k + 1 < bounds.size(); ++k) {
        const std::string_view before = regions.substr(bounds[k - 1], bounds[k] - bounds[k - 1]);
        const std::vector<std::size_t> at = tagged_lines(before, "METRIC");
        if (at.empty()) {
            metrics.push_back(metrics.back());
            continue;
        }
        const std::string_view line =
            trim_view(before.substr(at.back(), before.find('\n', at.back()) - at.back()));
        metrics.emplace_back(trim_view(line.substr(std::string_view("METRIC").size())));
    }
    return metrics;
}

} // namespace

Dataset read_extrap_text(const std::string& text, const std::string& file) {
    Dataset d;
    std::vector<Coord> points;
    Builder b(d);
    ExtrapLines reader(b, points, file, "metric");
    Lines lines(text);
    std::string_view raw;
    std::size_t ln = 0;
    // A large file's regions are read in parts once the lines before its first region are read, unless a
    // PARAMETER or POINTS line follows that region (a part could not know its points then).
    std::optional<std::string_view> regions;
    bool first_region = read_in_parts_here(text);
    for (std::size_t at = 0; lines.next(raw, ln); at = lines.offset()) {
        if (first_region && trim_view(raw).starts_with("REGION")) {
            first_region = false;
            const std::string_view rest = std::string_view(text).substr(at);
            if (tagged_lines(rest, "PARAMETER").empty() && tagged_lines(rest, "POINTS").empty()) {
                regions = rest;
                break;
            }
        }
        reader.line(raw, ln);
    }
    if (!regions) {
        reader.finish_region(0);
    } else {
        const std::vector<std::size_t> bounds = line_parts(*regions, "\nREGION");
        const std::vector<std::string> metrics = part_metrics(*regions, bounds, reader.metric());
        read_in_parts(*regions, ln - 1, bounds, b,
                      [&](std::size_t k, std::string_view part, std::size_t first, std::size_t next_line,
                          Builder& into) {
                          std::optional<ExtrapLines> mine;
                          if (k > 0)
                              mine.emplace(into, points, file, metrics[k]);
                          (k > 0 ? *mine : reader).read(part, first, next_line);
                      });
    }
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
    if (read_in_parts_here(data))
        read_in_parts(data, ln, line_parts(data, "\n"), b,
                      [&](std::size_t, std::string_view part, std::size_t first, std::size_t, Builder& into) {
                          csv_rows(part, first, d.parameters, header.size(), file, into);
                      });
    else
        csv_rows(data, ln, d.parameters, header.size(), file, b);
    if (d.series.empty())
        throw InputError(file, "", "expected at least one data line after the header");
    normalize(d);
    return d;
}

} // namespace roofcast::model::scale
