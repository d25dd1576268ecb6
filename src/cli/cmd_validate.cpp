#include "cli/commands.hpp"
#include "cli/data_file.hpp"
#include "core/doc.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/machine.hpp"
#include "core/nesting.hpp"
#include "core/profile.hpp"
#include "core/results.hpp"
#include "measure/profile/marker_file.hpp"
#include "model/kernel.hpp"
#include "model/scale/dataset.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace roofcast::cli {

namespace {

// The scaling inputs of `roofcast scale` that are not roofcast's own formats, read as `scale` reads them.
std::string scale_input_summary(const model::scale::Dataset& d, const char* kind) {
    std::string params;
    for (const auto& p : d.parameters)
        params += (params.empty() ? "" : ", ") + p;
    return fmt::format("{}, {} series over ({}), {} points", kind, d.series.size(), params, d.point_count());
}

// Recognises the kind of a roofcast data file from its extension or top-level keys and validates it fully.
// Keys that the file's format does not read (machine, kernel, results, profile and threads files) are warned
// about, or with `strict` refused.
std::string validate_file(const std::string& path, bool strict) {
    if (path.ends_with(".csv"))
        return scale_input_summary(model::scale::read_csv(core::read_file(path), path), "CSV profile");
    if (path.ends_with(".txt"))
        return scale_input_summary(model::scale::read_extrap_text(core::read_file(path), path),
                                   "Extra-P text");
    const std::string text = core::read_file(path);
    if (looks_like_json(text) && text.find("\"measurements\"") != std::string::npos &&
        text.find("\"roofcast-") == std::string::npos)
        return scale_input_summary(model::scale::read_extrap_json(text, path), "Extra-P JSON");
    if (text.find("\"roofcast-threads\"") != std::string::npos)
        if (const auto d = read_threads_text(text, path, strict)) {
            std::size_t points = 0;
            for (const auto& s : d->series)
                points += s.points.size();
            return fmt::format("threads results file, kernel {}, {} series, {} points", d->context.kernel,
                               d->series.size(), points);
        }
    if (looks_like_json(text) && text.find("\"roofcast-marker\"") != std::string::npos) {
        // The marker library's own output (docs/formats-marker.md), read as `profile` reads it.
        core::check_nesting(text, path);
        const auto m = measure::profile::parse_marker_file(text, path);
        return fmt::format("marker file of rank {} of {}, {} regions, {} thread{}{}", m.rank, m.ranks,
                           m.regions.size(), m.threads, m.threads == 1 ? "" : "s",
                           m.warnings.empty() ? "" : fmt::format(", {} warnings", m.warnings.size()));
    }
    if (looks_like_json(text) && text.find("\"roofcast-results\"") != std::string::npos) {
        std::vector<std::string> unread;
        const core::Results r = core::results_from_text(text, path, &unread);
        check_unread_keys(path, unread, strict);
        return fmt::format("results file, {} kernels{}", r.kernels.size(),
                           r.machine ? ", machine '" + r.machine->name + "'" : "");
    }
    // `parsed`: the document when it was parsed as JSON here already.
    const auto profile_summary = [&](const nlohmann::json* parsed) {
        const auto d = model::scale::read_roofcast_profile(text, path);
        std::vector<std::string> unread;
        // origins, backend, per-rank shapes (v2)
        const core::Profile p = parsed ? core::profile_from_json(*parsed, path, &unread)
                                       : core::profile_from_text(text, path, &unread);
        check_unread_keys(path, unread, strict);
        return fmt::format("roofcast profile v{}, {} series{}", p.format_version, d.series.size(),
                           p.backend.empty() ? "" : ", backend " + p.backend);
    };
    // A JSON profile is recognised as JSON: YAML takes no keys over 1024 characters, which JSON allows.
    if (looks_like_json(text)) {
        core::check_nesting(text, path);
        const auto j = nlohmann::json::parse(text, nullptr, false);
        if (!j.is_discarded() && j.is_object() && j.contains("format") && j["format"] == "roofcast-profile")
            return profile_summary(&j);
    }
    const core::YamlField root = core::YamlField::load_text(text, path);
    if (root.has("format") && root["format"].as_string() == "roofcast-profile")
        return profile_summary(nullptr);
    if (root.has("levels") || root.has("compute")) {
        const core::Machine m = core::machine_from_yaml(root);
        check_unread_keys(path, root.unread_keys(), strict);
        return fmt::format("machine file '{}', {} levels", m.name, m.levels.size());
    }
    if (root.has("flops_per_iteration")) {
        const model::KernelSpec k = model::kernel_from_yaml(root);
        check_unread_keys(path, root.unread_keys(), strict);
        const char* form = !k.explicit_bytes.empty() ? "explicit bytes"
                           : k.arrays                ? "array counts"
                                                     : "loop nest";
        return fmt::format("kernel file '{}', {}", k.name, form);
    }
    throw core::InputError(
        path, "",
        "not a roofcast data file (expected a machine file with 'compute' and "
        "'levels', a kernel file with 'flops_per_iteration', a results, profile, threads or marker file, or "
        "an Extra-P (.txt, JSON with 'measurements') or CSV (.csv) scaling input)");
}

} // namespace

void add_validate_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("validate", "Check roofcast data files against their schema");
    auto files = std::make_shared<std::vector<std::string>>();
    cmd->add_option("FILE", *files,
                    "machine, kernel, results, profile, threads or marker files, or scaling inputs (Extra-P "
                    "text/JSON, CSV)")
        ->required();
    auto strict = std::make_shared<bool>(false);
    cmd->add_flag("--strict", *strict,
                  "a key of a machine, kernel, results or profile file that the format does not read is an "
                  "error (default: a warning)");
    cmd->callback([files, strict] {
        for (const auto& f : *files)
            fmt::print("{}: ok ({})\n", core::terminal_safe(f),
                       core::terminal_text(validate_file(f, *strict)));
    });
}

} // namespace roofcast::cli
