#include "cli/commands.hpp"
#include "cli/data_file.hpp"
#include "core/doc.hpp"
#include "core/error.hpp"
#include "formats/format.hpp"

#include <fmt/format.h>
#include <memory>
#include <string>

namespace roofcast::cli {

namespace {

// The scaling inputs of `roofcast scale` that are not roofcast's own formats, read as `scale` reads them.
std::string scale_input_summary(const model::scale::Dataset& d, std::string_view kind) {
    std::string params;
    for (const auto& p : d.parameters)
        params += (params.empty() ? "" : ", ") + p;
    return fmt::format("{}, {} series over ({}), {} points", kind, d.series.size(), params, d.point_count());
}

std::string kernel_summary(const model::KernelSpec& k) {
    const char* form = !k.explicit_bytes.empty() ? "explicit bytes" : k.arrays ? "array counts" : "loop nest";
    return fmt::format("kernel file '{}', {}", k.name, form);
}

// Recognises the kind of a file with the format registry (src/formats) and validates it fully. Keys that
// the file's format does not read (machine, kernel, results, profile and threads files) are warned about, or
// with `strict` refused.
std::string validate_file(const std::string& path, bool strict) {
    namespace formats = model::formats;
    const auto in = formats::Input::open(path);
    const formats::FormatReader* f = formats::detect(in);
    if (!f) {
        if (!in.is_directory() && !in.is_json())
            in.throw_yaml_error();
        throw core::InputError(path, "",
                               "not a roofcast data file (expected a machine file with 'compute' and "
                               "'levels', a kernel file with 'flops_per_iteration', a results, profile, "
                               "threads or marker file, or "
                               "an Extra-P (.txt, JSON with 'measurements') or CSV (.csv) scaling input)");
    }
    // A roofcast profile's series are read first, as `scale` reads them.
    std::optional<model::scale::Dataset> series;
    if (f->dataset && f->name == "roofcast-profile")
        series = f->dataset(in, nullptr);
    std::vector<std::string> unread;
    const formats::Document doc = f->read(in, &unread);
    check_unread_keys(path, unread, strict);
    if (const auto* d = std::get_if<model::scale::Dataset>(&doc))
        return scale_input_summary(*d, f->label);
    if (const auto* d = std::get_if<model::threads::ThreadsData>(&doc)) {
        std::size_t points = 0;
        for (const auto& s : d->series)
            points += s.points.size();
        return fmt::format("threads results file, kernel {}, {} series, {} points", d->context.kernel,
                           d->series.size(), points);
    }
    if (const auto* m = std::get_if<measure::profile::MarkerFile>(&doc))
        // The marker library's own output (docs/formats-marker.md), read as `profile` reads it.
        return fmt::format("marker file of rank {} of {}, {} regions, {} thread{}{}", m->rank, m->ranks,
                           m->regions.size(), m->threads, m->threads == 1 ? "" : "s",
                           m->warnings.empty() ? "" : fmt::format(", {} warnings", m->warnings.size()));
    if (const auto* r = std::get_if<core::Results>(&doc))
        return fmt::format("results file, {} kernels{}", r->kernels.size(),
                           r->machine ? ", machine '" + r->machine->name + "'" : "");
    if (const auto* p = std::get_if<core::Profile>(&doc)) {
        if (series)
            return fmt::format("roofcast profile v{}, {} series{}", p->format_version, series->series.size(),
                               p->backend.empty() ? "" : ", backend " + p->backend);
        return fmt::format("{}, {} functions/regions, {} rank(s), backend {}", f->label, p->functions.size(),
                           p->ranks, p->backend);
    }
    if (const auto* m = std::get_if<core::Machine>(&doc))
        return fmt::format("machine file '{}', {} levels", m->name, m->levels.size());
    return kernel_summary(std::get<model::KernelSpec>(doc));
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
