#include "cli/threads_report.hpp"

#include "cli/data_file.hpp"

#include "analysis/threads/analysis.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "report/threads_table.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <utility>
#include <vector>

namespace roofcast::cli {

model::threads::ThreadsAnalysis analyse_file(model::threads::ThreadsData data,
                                             const std::vector<model::threads::Target>& targets, int holdout,
                                             const std::string& file) {
    try {
        return model::threads::analyse(std::move(data), targets, holdout);
    } catch (const core::InputError& e) {
        if (!e.file().empty())
            throw;
        throw core::InputError(file, "series[].measurements", e.message());
    }
}

bool write_threads_report(const std::string& file, const std::string& dir) {
    const auto data = read_threads_text(core::read_file(file), file, false);
    if (!data)
        return false;
    const auto a = analyse_file(*data, {}, data->holdout, file);
    // Rendered first, then swapped in whole like the main report (core::replace_directory).
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; i < a.series.size(); ++i)
        files.emplace_back(fmt::format("threads-{}.svg", a.series[i].api), report::threads_svg(a, i));
    files.emplace_back("index.html", report::threads_html_page(a));
    const std::set<std::string> own = {"index.html", "threads-omp.svg", "threads-pthread.svg",
                                       "threads-command.svg"};
    core::replace_directory(dir, own, [&](const std::filesystem::path& staging) {
        for (const auto& [name, text_out] : files)
            core::write_file_atomic(staging / name, text_out);
    });
    return true;
}

} // namespace roofcast::cli
