#include "cli/data_file.hpp"

#include "core/doc.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "formats/format.hpp"

#include <cstdio>
#include <fmt/format.h>

namespace roofcast::cli {

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

namespace {

// The document `load(path, &unread)` reads, with a warning for each key it did not read.
template <class Load> auto load_warning_unread(const std::string& path, Load load) {
    std::vector<std::string> unread;
    auto doc = load(path, &unread);
    check_unread_keys(path, unread, false);
    return doc;
}

} // namespace

core::Machine read_machine_file(const std::string& path) {
    return load_warning_unread(path, core::load_machine);
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
    return load_warning_unread(path, model::load_kernel);
}

core::Profile read_profile_file(const std::string& path) {
    return load_warning_unread(path, core::load_profile);
}

model::scale::Dataset read_scaling_file(const std::string& path, const std::string& scaling) {
    return load_warning_unread(path, [&](const std::string& p, std::vector<std::string>* unread) {
        return model::formats::read_dataset(p, unread, scaling);
    });
}

std::optional<core::Profile> profile_of(const std::string& path) {
    const auto in = model::formats::Input::open(path);
    const model::formats::FormatReader* f = model::formats::detect(in);
    if (!f || !f->dataset) // profiles carry scaling series; results, machine and kernel files do not
        return std::nullopt;
    if (f->name == "roofcast-profile")
        return read_profile_file(path);
    std::vector<std::string> unread;
    model::formats::Document doc = f->read(in, &unread);
    check_unread_keys(path, unread, false);
    if (auto* p = std::get_if<core::Profile>(&doc))
        return std::move(*p);
    return std::nullopt;
}

core::Profile import_profile(std::string_view format, const std::string& path) {
    const model::formats::FormatReader* f = model::formats::find(format);
    return std::get<core::Profile>(f->read(model::formats::Input::open(path), nullptr));
}

std::optional<model::threads::ThreadsData> read_threads_text(const std::string& text, const std::string& path,
                                                             bool strict) {
    const auto in = model::formats::Input::from_text(text, path);
    const model::formats::FormatReader* f = model::formats::detect(in);
    if (!f || f->name != "threads")
        return std::nullopt;
    std::vector<std::string> unread;
    auto doc = f->read(in, &unread);
    check_unread_keys(path, unread, strict);
    return std::get<model::threads::ThreadsData>(std::move(doc));
}

DataFile load_data_file(const std::string& path) {
    const auto in = model::formats::Input::open(path);
    if (in.is_binary())
        throw core::InputError(path, "",
                               "binary file, not a roofcast data file (expected a results file (JSON) "
                               "or a machine file (YAML))");
    const model::formats::FormatReader* f = model::formats::detect(in);
    if (!f || (f->name != "results" && f->name != "machine")) {
        // A JSON file is read as the results it should be, so that the error names what it lacks.
        if (!in.is_json()) {
            in.throw_yaml_error();
            throw core::InputError(
                path, "",
                "not a roofcast data file (expected a results file (JSON, kind "
                "\"roofcast-results\") or a machine file (YAML with 'compute' and 'levels'))");
        }
        f = model::formats::find("results");
    }
    std::vector<std::string> unread;
    auto doc = f->read(in, &unread);
    check_unread_keys(path, unread, false);
    DataFile out;
    if (auto* r = std::get_if<core::Results>(&doc))
        out.results = std::move(*r);
    else
        out.machine = std::get<core::Machine>(std::move(doc));
    return out;
}

} // namespace roofcast::cli
