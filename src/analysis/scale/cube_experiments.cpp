#include "analysis/scale/cube_experiments.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "measure/profile/cube.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

namespace roofcast::model::scale {

namespace {

namespace fs = std::filesystem;

// Every run: its cubex file and its subdirectory's name, sorted for a stable order.
std::vector<std::pair<fs::path, std::string>> cube_runs(const std::string& dir) {
    std::vector<std::pair<fs::path, std::string>> runs;
    std::error_code ec;
    for (const auto& sub : fs::directory_iterator(dir, ec)) {
        if (!sub.is_directory(ec))
            continue;
        for (const auto& f : fs::directory_iterator(sub.path(), ec)) {
            const std::string name = f.path().filename().string();
            if (f.is_regular_file(ec) && !name.starts_with(".") && f.path().extension() == ".cubex")
                runs.emplace_back(f.path(), sub.path().filename().string());
        }
    }
    std::sort(runs.begin(), runs.end());
    return runs;
}

} // namespace

bool is_cube_experiment_dir(const std::string& dir) {
    std::error_code ec;
    return fs::is_directory(dir, ec) && !cube_runs(dir).empty();
}

std::vector<std::pair<std::string, double>> cube_experiment_point(const std::string& folder,
                                                                  const std::string& dir) {
    // Between the first '.' and the first ".r": alternating names and numbers ([0-9.,]+, ',' read as '.').
    const auto start = folder.find('.');
    const auto end = folder.find(".r", start == std::string::npos ? 0 : start + 1);
    const std::string text = folder.substr(
        start == std::string::npos ? 0 : start + 1,
        end == std::string::npos ? std::string::npos : end - (start == std::string::npos ? 0 : start + 1));
    std::vector<std::pair<std::string, double>> out;
    std::size_t i = 0;
    const auto is_num = [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ',';
    };
    while (i < text.size()) {
        std::size_t j = i;
        while (j < text.size() && !is_num(text[j]))
            ++j;
        std::string name = text.substr(i, j - i);
        std::size_t k = j;
        while (k < text.size() && is_num(text[k]))
            ++k;
        if (k == j)
            break; // a trailing name without a value
        std::string number = text.substr(j, k - j);
        std::replace(number.begin(), number.end(), ',', '.');
        while (!number.empty() && number.back() == '.')
            number.pop_back();
        char* stop = nullptr;
        const double v = std::strtod(number.c_str(), &stop);
        if (number.empty() || *stop != '\0')
            throw core::InputError(dir, folder,
                                   fmt::format("expected a number after '{}', got '{}'", name, number));
        out.emplace_back(std::move(name), v);
        i = k;
    }
    if (out.empty())
        throw core::InputError(
            dir, folder,
            "expected the point in the folder's name, e.g. mm.x25y10z1.r1 (x = 25, y = 10, z = 1)");
    return out;
}

Dataset read_cube_experiments(const std::string& dir, const std::string& scaling) {
    if (scaling != "weak" && scaling != "strong")
        throw core::InputError("", "scaling", fmt::format("expected weak or strong, got '{}'", scaling));
    const auto runs = cube_runs(dir);
    if (runs.empty())
        throw core::InputError(dir, "", "no */*.cubex files: expected a directory of Score-P experiments");
    std::vector<std::string> names;
    std::vector<std::vector<double>> values;
    std::map<std::string, std::set<double>> distinct;
    for (const auto& [file, folder] : runs) {
        const auto point = cube_experiment_point(folder, dir);
        std::vector<std::string> these;
        values.emplace_back();
        for (const auto& [n, v] : point) {
            these.push_back(n);
            values.back().push_back(v);
            distinct[n].insert(v);
        }
        if (names.empty())
            names = these;
        else if (these != names)
            throw core::InputError(
                dir, folder,
                fmt::format("expected the parameters of the other folders in the same order ({})",
                            fmt::join(names, ", ")));
    }
    Dataset d;
    std::vector<std::size_t> varying;
    for (std::size_t k = 0; k < names.size(); ++k)
        if (distinct[names[k]].size() > 1) {
            varying.push_back(k);
            d.parameters.push_back(names[k]);
        }
    if (d.parameters.empty())
        throw core::InputError(dir, "", "no parameter varies between the folders' names: nothing to fit");
    if (d.parameters.size() > k_max_parameters)
        throw core::InputError(dir, "",
                               fmt::format("expected at most {} varying parameters, got {} ({})",
                                           k_max_parameters, d.parameters.size(),
                                           fmt::join(d.parameters, ", ")));
    const bool strong = scaling == "strong" && d.parameters.size() == 1;
    if (scaling == "strong" && !strong)
        d.warnings.push_back(
            "strong scaling sums over locations for one parameter only: weak scaling is used");
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        Coord x{};
        for (std::size_t k = 0; k < varying.size(); ++k)
            x[k] = values[r][varying[k]];
        const std::string path = runs[r].first.string();
        const auto cube = measure::profile::parse_cube(core::read_file(runs[r].first), path);
        for (const auto& w : cube.warnings)
            d.warnings.push_back(path + ": " + w);
        for (const auto& m : cube.metrics) {
            // A call path reached from two call sites adds up per location.
            std::map<std::string, std::vector<double>> by_path;
            for (std::size_t i = 0; i < cube.paths.size(); ++i) {
                auto& row = by_path[cube.paths[i]];
                row.resize(m.exclusive[i].size(), 0.0);
                for (std::size_t l = 0; l < row.size(); ++l)
                    row[l] += m.exclusive[i][l];
            }
            for (auto& [callpath, row] : by_path) {
                const auto [it, fresh] = index.emplace(std::make_pair(callpath, m.name), d.series.size());
                if (fresh)
                    d.series.push_back(Series{callpath, m.name, {}, {}});
                double sum = 0;
                for (double v : row)
                    sum += v;
                d.series[it->second].points.push_back(
                    Point{x, strong ? std::vector<double>{sum} : std::move(row)});
            }
        }
    }
    normalize(d);
    return d;
}

} // namespace roofcast::model::scale
