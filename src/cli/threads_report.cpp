#include "cli/threads_report.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "model/threads/analysis.hpp"
#include "report/threads_report.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace roofcast::cli {

bool write_threads_report(const std::string& file, const std::string& dir) {
    const std::string text = core::read_file(file);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("format", "") != "roofcast-threads")
        return false;
    const int holdout =
        j.contains("holdout") && j["holdout"].is_number_integer() ? j["holdout"].get<int>() : 0;
    const auto a = model::threads::analyse(model::threads::data_from_json(j, file), {}, holdout);
    core::make_directories(dir);
    for (std::size_t i = 0; i < a.series.size(); ++i)
        core::write_file_atomic(std::filesystem::path(dir) / fmt::format("threads-{}.svg", a.series[i].api),
                                report::threads_svg(a, i));
    core::write_file_atomic(std::filesystem::path(dir) / "index.html", report::threads_html_page(a));
    return true;
}

} // namespace roofcast::cli
