#include "measure/profile/likwid.hpp"

#include "core/error.hpp"
#include "measure/profile/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace roofcast::measure::profile {

namespace {

// A CSV row as likwid prints it: fields separated by commas, no quoting, padded with empty fields.
std::vector<std::string> likwid_cells(std::string_view line) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    for (;;) {
        const auto comma = line.find(',', pos);
        out.push_back(text::trim(
            line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos)));
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    while (!out.empty() && out.back().empty())
        out.pop_back();
    return out;
}

// A value as likwid's num2str prints it: an integer, "%.4f", "%e" or "nan" (nullopt).
std::optional<double> likwid_value(const std::string& cell, const text::Lines& lines,
                                   const std::string& file) {
    if (cell == "nan" || cell == "-nan")
        return std::nullopt;
    double v = 0;
    if (!text::parse_number(cell, v) || !std::isfinite(v) || v < 0)
        throw core::InputError(file, lines.field(),
                               fmt::format("expected a count or time (a number >= 0 or nan), got '{}'",
                                           core::terminal_safe(cell, 40)));
    return core::check_profile_value(v, file, lines.field());
}

// The header of a raw table: "TABLE,Region <tag>,Group <g> Raw,<group name>,<rows>". The tag may hold
// commas (likwid does not quote it): it runs to the last ",Group <g> Raw,".
struct RawHeader {
    std::string region;
    std::size_t rows = 0;
};

std::optional<RawHeader> raw_header(std::string_view line, const text::Lines& lines,
                                    const std::string& file) {
    constexpr std::string_view prefix = "TABLE,Region ";
    if (!line.starts_with(prefix))
        return std::nullopt;
    const auto group = line.rfind(",Group ");
    if (group == std::string_view::npos || group < prefix.size())
        throw core::InputError(file, lines.field(), "expected 'TABLE,Region <tag>,Group <n> ...'");
    const auto cells = likwid_cells(line.substr(group + 1));
    // cells: "Group <n> Raw", "<group name>", "<rows>" (or "... Raw STAT", "... Metric", ...)
    if (cells.empty() || !cells[0].ends_with(" Raw"))
        return std::nullopt;
    double rows = 0;
    if (cells.size() < 3 || !text::parse_number(cells[2], rows) || rows < 0 || rows > 100000 ||
        rows != std::floor(rows))
        throw core::InputError(file, lines.field(),
                               "expected 'TABLE,Region <tag>,Group <n> Raw,<group>,<number of events>'");
    return RawHeader{std::string(line.substr(prefix.size(), group - prefix.size())),
                     static_cast<std::size_t>(rows)};
}

// One region's values: metric -> hardware thread -> value, with the metric's aggregate and unit.
struct LikwidMetric {
    const char* aggregate = "sum";
    const char* unit = "count";
    std::map<std::string, double> by_thread;
};
using LikwidRegion = std::map<std::string, LikwidMetric>;

// The next line of the block, or an error naming what the block still lacks.
std::vector<std::string> likwid_row(text::Lines& lines, const std::string& file, const char* expected) {
    std::string_view line;
    if (!lines.next(line))
        throw core::InputError(file, "end of file",
                               fmt::format("the file ends inside a region table: expected {}", expected));
    return likwid_cells(line);
}

} // namespace

bool looks_like_likwid_csv(const std::string& text) {
    std::size_t pos = 0;
    while ((pos = text.find("TABLE,Region ", pos)) != std::string::npos) {
        if (pos == 0 || text[pos - 1] == '\n') {
            const auto end = text.find('\n', pos);
            const std::string_view line(text.data() + pos,
                                        (end == std::string::npos ? text.size() : end) - pos);
            if (line.find(" Raw,") != std::string_view::npos)
                return true;
        }
        pos += 1;
    }
    return false;
}

// Hardware threads in the order the file first names them (a region run by some of them has columns for
// those only).
struct LikwidThreads {
    std::vector<std::string> names;
    void add(const std::vector<std::string>& columns) {
        for (const auto& c : columns)
            if (std::find(names.begin(), names.end(), c) == names.end())
                names.push_back(c);
    }
};

// One raw table's rows after its header: the region info, then the events.
void read_likwid_table(text::Lines& lines, const std::string& file, const RawHeader& header,
                       LikwidRegion& reg, LikwidThreads& threads, std::vector<std::string>& warnings) {
    auto row = likwid_row(lines, file, "'Region Info,HWThread ...'");
    if (row.size() < 2 || row[0] != "Region Info")
        throw core::InputError(file, lines.field(), "expected 'Region Info,HWThread <n>,...'");
    const std::vector<std::string> columns(row.begin() + 1, row.end());
    threads.add(columns);
    if (threads.names.size() > k_likwid_max_threads)
        throw core::InputError(file, lines.field(),
                               fmt::format("expected at most {} hardware threads", k_likwid_max_threads));
    const auto add = [&](const std::string& name, const std::vector<std::string>& cells, std::size_t first,
                         const char* aggregate, const char* unit) {
        if (cells.size() != first + columns.size())
            throw core::InputError(file, lines.field(),
                                   fmt::format("expected {} values, one per hardware thread, got {}",
                                               columns.size(),
                                               cells.size() < first ? 0 : cells.size() - first));
        std::map<std::string, double> by_thread;
        bool nan = false;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const auto v = likwid_value(cells[first + i], lines, file);
            nan = nan || !v;
            by_thread[columns[i]] = v.value_or(0.0);
        }
        if (nan) {
            warnings.push_back(
                fmt::format("region '{}': {} is nan on some hardware thread: left out", header.region, name));
            return;
        }
        // Measured in an earlier group too: the first group's value is kept.
        if (!reg.count(name))
            reg[name] = LikwidMetric{aggregate, unit, std::move(by_thread)};
    };
    row = likwid_row(lines, file, "'RDTSC Runtime [s],...'");
    if (row.empty() || row[0] != "RDTSC Runtime [s]")
        throw core::InputError(file, lines.field(), "expected 'RDTSC Runtime [s],<seconds per thread>'");
    add("time", row, 1, "max", "seconds");
    row = likwid_row(lines, file, "'call count,...'");
    if (row.empty() || row[0] != "call count")
        throw core::InputError(file, lines.field(), "expected 'call count,<calls per thread>'");
    add("calls", row, 1, "max", "count");
    row = likwid_row(lines, file, "'Event,Counter,HWThread ...'");
    if (row.size() != 2 + columns.size() || row[0] != "Event" || row[1] != "Counter" ||
        !std::equal(columns.begin(), columns.end(), row.begin() + 2))
        throw core::InputError(file, lines.field(),
                               "expected 'Event,Counter,' and the hardware threads of 'Region Info'");
    for (std::size_t e = 0; e < header.rows; ++e) {
        row = likwid_row(lines, file, "one row per event");
        if (row.size() < 2 || row[0].empty())
            throw core::InputError(file, lines.field(), "expected '<event>,<counter>,<value per thread>'");
        // The region's time again, printed for a group without derived metrics: checked, not kept twice.
        if (row[0] == "Runtime (RDTSC) [s]" && row[1] == "TSC")
            add("time", row, 2, "max", "seconds");
        else
            add(row[0], row, 2, "sum", "count");
    }
}

core::Profile parse_likwid_csv(const std::string& text, const std::string& file) {
    text::Lines lines(text, file, k_likwid_max_line_bytes);
    LikwidThreads threads;
    std::map<std::string, LikwidRegion> regions;
    std::vector<std::string> region_order;
    std::vector<std::string> warnings;
    std::string cpu;
    std::string_view line;
    while (lines.next(line)) {
        if (line.starts_with("CPU name:,")) {
            const auto cells = likwid_cells(line);
            if (cells.size() > 1)
                cpu = cells[1];
            continue;
        }
        const auto header = raw_header(line, lines, file);
        if (!header)
            continue; // a derived table's row, the program's output, a separator line
        if (!regions.count(header->region)) {
            if (regions.size() == k_likwid_max_regions)
                throw core::InputError(file, lines.field(),
                                       fmt::format("expected at most {} regions", k_likwid_max_regions));
            region_order.push_back(header->region);
        }
        read_likwid_table(lines, file, *header, regions[header->region], threads, warnings);
    }
    if (regions.empty())
        throw core::InputError(file, "",
                               "no likwid marker region table ('TABLE,Region <tag>,Group <n> Raw,...'): "
                               "expected the CSV output of likwid-perfctr -m -O");
    core::Profile p;
    p.backend = "likwid";
    p.backend_reason = "imported from " + file;
    p.ranks = 1;
    p.threads = static_cast<int>(threads.names.size());
    p.parameters = {{"threads", static_cast<double>(threads.names.size())}};
    p.exit_status = 0;
    std::string columns;
    for (const auto& t : threads.names)
        columns += (columns.empty() ? "" : ",") + t;
    p.settings["likwid.hwthreads"] = columns;
    if (!cpu.empty())
        p.settings["likwid.cpu"] = cpu;
    p.warnings = std::move(warnings);
    for (const auto& name : region_order) {
        core::ProfileFunction f;
        f.name = name;
        f.kind = "region";
        for (const auto& [metric, m] : regions[name]) {
            core::ProfileMetric pm;
            pm.origin = core::MetricOrigin::counted;
            pm.aggregate = m.aggregate;
            pm.unit = m.unit;
            std::vector<double> row; // a thread that did not run the region counts 0
            for (const auto& t : threads.names) {
                const auto it = m.by_thread.find(t);
                row.push_back(it == m.by_thread.end() ? 0.0 : it->second);
            }
            pm.per_rank.push_back(std::move(row));
            f.metrics[metric] = std::move(pm);
        }
        p.functions.push_back(std::move(f));
    }
    return p;
}

} // namespace roofcast::measure::profile
