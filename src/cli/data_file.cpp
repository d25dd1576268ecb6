#include "cli/data_file.hpp"

#include "core/doc.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/nesting.hpp"

#include <cctype>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace roofcast::cli {

bool looks_like_json(const std::string& text) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    return i < text.size() && text[i] == '{';
}

void check_unread_keys(const std::string& path, const std::vector<std::string>& keys, bool strict) {
    if (keys.empty())
        return;
    if (strict)
        throw core::InputError(
            path, keys.front(),
            "unknown key: not part of the format (misspelt? without --strict it is ignored "
            "with a warning)");
    // At most ten lines: a file of a foreign format would otherwise flood the terminal.
    constexpr std::size_t shown = 10;
    for (std::size_t i = 0; i < keys.size() && i < shown; ++i)
        fmt::print(stderr,
                   "roofcast: warning: {}: unknown key '{}' is not part of the format and is ignored\n",
                   core::terminal_safe(path), core::terminal_safe(keys[i], 120));
    if (keys.size() > shown)
        fmt::print(stderr, "roofcast: warning: {}: {} more unknown keys\n", core::terminal_safe(path),
                   keys.size() - shown);
}

core::Machine read_machine_file(const std::string& path) {
    std::vector<std::string> unread;
    core::Machine m = core::load_machine(path, &unread);
    check_unread_keys(path, unread, false);
    return m;
}

core::Machine machine_of_data_file(const std::string& path) {
    DataFile d = load_data_file(path);
    if (d.machine)
        return std::move(*d.machine);
    if (d.results && d.results->machine)
        return std::move(*d.results->machine);
    throw core::InputError(path, "machine", "expected a machine file or a results file with one");
}

model::KernelSpec read_kernel_file(const std::string& path) {
    std::vector<std::string> unread;
    model::KernelSpec k = model::load_kernel(path, &unread);
    check_unread_keys(path, unread, false);
    return k;
}

core::Profile read_profile_file(const std::string& path) {
    std::vector<std::string> unread;
    core::Profile p = core::load_profile(path, &unread);
    check_unread_keys(path, unread, false);
    return p;
}

std::optional<model::threads::ThreadsData> read_threads_text(const std::string& text, const std::string& path,
                                                             bool strict) {
    if (!looks_like_json(text))
        return std::nullopt;
    core::check_nesting(text, path);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("format") || j["format"] != "roofcast-threads")
        return std::nullopt;
    std::vector<std::string> unread;
    auto data = model::threads::data_from_json(j, path, &unread);
    check_unread_keys(path, unread, strict);
    return data;
}

DataFile load_data_file(const std::string& path) {
    const std::string text = core::read_file(path);
    if (text.find('\0') != std::string::npos)
        throw core::InputError(path, "",
                               "binary file, not a roofcast data file (expected a results file (JSON) "
                               "or a machine file (YAML))");
    DataFile out;
    if (looks_like_json(text)) {
        core::check_nesting(text, path);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception& e) {
            throw core::InputError(path, "", std::string("malformed JSON: ") + e.what());
        }
        std::vector<std::string> unread;
        out.results = core::results_from_json(j, path, &unread);
        check_unread_keys(path, unread, false);
        return out;
    }
    const core::YamlField root = core::YamlField::load_text(text, path);
    if (root.is_map() && (root.has("levels") || root.has("compute"))) {
        out.machine = core::machine_from_yaml(root);
        check_unread_keys(path, root.unread_keys(), false);
        return out;
    }
    throw core::InputError(path, "",
                           "not a roofcast data file (expected a results file (JSON, kind "
                           "\"roofcast-results\") or a machine file (YAML with 'compute' and 'levels'))");
}

} // namespace roofcast::cli
