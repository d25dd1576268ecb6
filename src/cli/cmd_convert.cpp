// `roofcast convert`: a profile or a set of profiles written in another tool's format (Hatchet's literal
// JSON, Extra-P text) or as a roofcast profile. Inputs are whatever the format registry reads; the
// writers are the registry's (docs/extending.md, "A file format").
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "formats/format.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <vector>

namespace roofcast::cli {

namespace {

namespace formats = model::formats;

struct ConvertOptions {
    std::vector<std::string> inputs;
    std::string format;
    std::string output;
};

std::vector<std::string> writer_names() {
    std::vector<std::string> out;
    for (const auto& f : formats::registry())
        if (f.write_profile || f.write_dataset)
            out.emplace_back(f.name == "extrap-text" ? "extrap" : f.name);
    return out;
}

const formats::FormatReader& writer(const std::string& name) {
    const formats::FormatReader* f = formats::find(name == "extrap" ? "extrap-text" : name);
    if (!f || (!f->write_profile && !f->write_dataset))
        throw core::InputError(
            "", "--format",
            fmt::format("expected one of {}, got '{}'", fmt::join(writer_names(), ", "), name));
    return *f;
}

// An input read as one profile: a format whose document is a roofcast profile (roofcast's own, or another
// tool's that `profile --import-*` reads).
core::Profile profile_input(const std::string& path) {
    const auto in = formats::Input::open(path);
    const formats::FormatReader* f = formats::detect(in);
    if (!f)
        throw core::InputError(path, "",
                               "not a profile that roofcast reads (expected a roofcast profile or "
                               "another tool's profile, e.g. a TAU directory)");
    std::vector<std::string> unread;
    formats::Document doc = f->read(in, &unread);
    check_unread_keys(path, unread, false);
    if (auto* p = std::get_if<core::Profile>(&doc))
        return std::move(*p);
    throw core::InputError(path, "",
                           std::holds_alternative<model::scale::Dataset>(doc)
                               ? fmt::format("{}: scaling series, not one run's profile (--format extrap "
                                             "writes them)",
                                             f->label)
                               : fmt::format("a {}, not a profile", f->label));
}

// Series measured at every point of the data set; the others are removed and named (Extra-P text holds one
// value per point and call path, and has no way to say "not measured").
std::vector<std::string> keep_complete_series(model::scale::Dataset& d) {
    const std::size_t points = d.point_count();
    std::vector<std::string> dropped;
    std::erase_if(d.series, [&](const model::scale::Series& s) {
        if (s.points.size() == points)
            return false;
        dropped.push_back(fmt::format("{} ({}): measured at {} of {} points", s.function, s.metric,
                                      s.points.size(), points));
        return true;
    });
    return dropped;
}

void run_convert(const ConvertOptions& o) {
    const formats::FormatReader& f = writer(o.format);
    core::ensure_distinct_output(o.output, o.inputs, "--output");
    if (f.write_dataset) { // every input's series into one file, as `roofcast scale` merges them
        model::scale::Dataset data;
        for (const auto& path : o.inputs)
            model::scale::merge(data, read_scaling_file(path), path);
        if (f.name == "extrap-text")
            for (const auto& d : keep_complete_series(data))
                fmt::print(stderr, "roofcast: warning: left out of the Extra-P text: {}\n",
                           core::terminal_safe(d));
        core::write_file_atomic(o.output, f.write_dataset(data, o.output));
        fmt::print("wrote {} ({}: {} series over {} points)\n", core::terminal_safe(o.output), f.label,
                   data.series.size(), data.point_count());
        return;
    }
    // One file per profile: a single input to the file named, several into the directory named.
    if (o.inputs.size() == 1) {
        const core::Profile p = profile_input(o.inputs[0]);
        core::write_file_atomic(o.output, f.write_profile(p, o.inputs[0]));
        fmt::print("wrote {} ({}, {} functions/regions)\n", core::terminal_safe(o.output), f.label,
                   p.functions.size());
        return;
    }
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    for (const auto& path : o.inputs) {
        const std::filesystem::path target =
            std::filesystem::path(o.output) /
            (std::filesystem::path(path).filename().stem().string() + ".json");
        for (const auto& [earlier, _] : files)
            if (earlier == target)
                throw core::InputError(path, "",
                                       fmt::format("another input is written to {} too (inputs need "
                                                   "distinct file names)",
                                                   target.string()));
        files.emplace_back(target, f.write_profile(profile_input(path), path));
    }
    core::make_directories(o.output);
    for (const auto& [target, text] : files) {
        core::write_file_atomic(target, text);
        fmt::print("wrote {}\n", core::terminal_safe(target.string()));
    }
}

} // namespace

void add_convert_command(CLI::App& app) {
    auto [cmd, o] = add_command(
        app, "convert", run_convert,
        "Write profiles in another tool's format: Hatchet/Thicket (hatchet), Extra-P text (extrap)");
    cmd->add_option("FILE", o->inputs,
                    "profiles: roofcast profile JSON, a TAU directory, ... (hatchet: one file each), or any "
                    "input of `roofcast scale` (extrap: all merged into one file)")
        ->required();
    offer_choices(cmd->add_option("--format", o->format,
                                  fmt::format("format to write: {}", fmt::join(writer_names(), ", "))),
                  writer_names())
        ->required();
    cmd->add_option("-o,--output", o->output,
                    "file to write (a directory for hatchet or roofcast-profile with several inputs)")
        ->required();
}

} // namespace roofcast::cli
