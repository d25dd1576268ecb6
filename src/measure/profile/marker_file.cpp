#include "measure/profile/marker_file.hpp"

#include "core/error.hpp"
#include "core/io.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>

namespace roofcast::measure::profile {

using nlohmann::json;

namespace {

double num(const json& j, const char* key, const std::string& file, const std::string& where, bool required,
           double fallback = 0) {
    if (!j.contains(key)) {
        if (required)
            throw core::InputError(file, where + key, "missing required field");
        return fallback;
    }
    const json& v = j.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        throw core::InputError(file, where + key, "expected a finite non-negative number");
    return v.get<double>();
}

// A count held as an int (rank, ranks, threads): a number past INT_MAX is refused, never converted (the
// conversion is undefined and gave -2147483648 for a rank of 1e10).
int int_num(const json& j, const char* key, const std::string& file, bool required, int fallback) {
    const double v = num(j, key, file, "", required, fallback);
    if (v > static_cast<double>(std::numeric_limits<int>::max()))
        throw core::InputError(
            file, key, fmt::format("expected a number from 0 to {}", std::numeric_limits<int>::max()));
    return static_cast<int>(v);
}

} // namespace

MarkerFile parse_marker_file(const std::string& text, const std::string& file) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw core::InputError(file, "", std::string("not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object() || j.value("format", std::string()) != "roofcast-marker")
        throw core::InputError(file, "format", "expected \"roofcast-marker\"");
    if (!j.contains("format_version") || !j.at("format_version").is_number_integer() ||
        j.at("format_version").get<int>() != 1)
        throw core::InputError(file, "format_version", "expected 1");
    MarkerFile m;
    m.rank = int_num(j, "rank", file, true, 0);
    m.ranks = int_num(j, "ranks", file, false, 1);
    m.wall_seconds = num(j, "wall_seconds", file, "", false);
    m.threads = std::max(1, int_num(j, "threads", file, false, 1));
    if (j.contains("papi_events") && j.at("papi_events").is_array())
        for (const auto& e : j.at("papi_events"))
            if (e.is_string())
                m.papi_events.push_back(e.get<std::string>());
    if (j.contains("papi_error") && j.at("papi_error").is_string())
        m.papi_error = j.at("papi_error").get<std::string>();
    if (j.contains("warnings") && j.at("warnings").is_array())
        for (const auto& w : j.at("warnings"))
            if (w.is_string())
                m.warnings.push_back(w.get<std::string>());
    if (!j.contains("regions") || !j.at("regions").is_array())
        throw core::InputError(file, "regions", "expected an array of regions");
    const json& regions = j.at("regions");
    if (regions.size() > k_marker_max_regions)
        throw core::InputError(file, "regions",
                               fmt::format("expected at most {} regions", k_marker_max_regions));
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const std::string w = fmt::format("regions[{}].", i);
        const json& r = regions[i];
        if (!r.is_object() || !r.contains("path") || !r.at("path").is_string() ||
            r.at("path").get<std::string>().empty())
            throw core::InputError(file, w + "path", "expected a non-empty call path");
        MarkerRegion mr;
        mr.path = r.at("path").get<std::string>();
        mr.calls = num(r, "calls", file, w, false);
        mr.seconds = num(r, "seconds", file, w, true);
        if (r.contains("flops"))
            mr.flops = num(r, "flops", file, w, true);
        if (r.contains("bytes"))
            mr.bytes = num(r, "bytes", file, w, true);
        if (r.contains("counters")) {
            if (!r.at("counters").is_object())
                throw core::InputError(file, w + "counters", "expected an object {event: count}");
            for (const auto& [k, v] : r.at("counters").items()) {
                if (!v.is_number())
                    throw core::InputError(file, w + "counters." + k, "expected a number");
                mr.counters[k] = v.get<double>();
            }
        }
        m.regions.push_back(std::move(mr));
    }
    return m;
}

std::map<int, MarkerFile> read_marker_dir(const std::string& dir, std::vector<std::string>& warnings) {
    namespace fs = std::filesystem;
    std::map<int, MarkerFile> out;
    std::map<int, long> pid_of;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return out;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        int rank = 0;
        long pid = 0;
        if (std::sscanf(name.c_str(), "marker.%d.%ld.json", &rank, &pid) != 2)
            continue;
        if (e.file_size(ec) > k_marker_max_file_bytes)
            throw core::InputError(
                e.path().string(), "",
                fmt::format("expected a marker file under {} bytes", k_marker_max_file_bytes));
        MarkerFile m = parse_marker_file(core::read_file(e.path()), e.path().string());
        if (out.count(m.rank)) {
            warnings.push_back(
                fmt::format("rank {} wrote two marker files; the later process (pid {}) is used", m.rank,
                            std::max(pid, pid_of[m.rank])));
            if (pid < pid_of[m.rank])
                continue;
        }
        pid_of[m.rank] = pid;
        out[m.rank] = std::move(m);
    }
    return out;
}

} // namespace roofcast::measure::profile
