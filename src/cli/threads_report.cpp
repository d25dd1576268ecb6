#include "cli/threads_report.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/nesting.hpp"
#include "model/threads/analysis.hpp"
#include "report/threads_report.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

namespace roofcast::cli {

bool write_threads_report(const std::string& file, const std::string& dir) {
    const std::string text = core::read_file(file);
    core::check_nesting(text, file);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("format", "") != "roofcast-threads")
        return false;
    const int holdout =
        j.contains("holdout") && j["holdout"].is_number_integer() ? j["holdout"].get<int>() : 0;
    const auto a = model::threads::analyse(model::threads::data_from_json(j, file), {}, holdout);
    // Rendered first, then swapped in whole like the main report (core::replace_directory).
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; i < a.series.size(); ++i)
        files.emplace_back(fmt::format("threads-{}.svg", a.series[i].api), report::threads_svg(a, i));
    files.emplace_back("index.html", report::threads_html_page(a));
    const std::set<std::string> own = {"index.html", "threads-omp.svg", "threads-pthread.svg"};
    core::replace_directory(dir, own, [&](const std::filesystem::path& staging) {
        for (const auto& [name, text_out] : files)
            core::write_file_atomic(staging / name, text_out);
    });
    return true;
}

} // namespace roofcast::cli
