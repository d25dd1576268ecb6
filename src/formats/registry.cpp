// The one list of formats (docs/extending.md, "A file format"): a new format is a file beside this one that
// defines `extern constinit const FormatReader NAME_format{...}` and one X(NAME) line in ROOFCAST_FORMATS
// below. The order is the order in which formats are asked: roofcast's own tagged JSON first, then the
// foreign formats, then the YAML files that are recognised by their keys.
#include "core/error.hpp"
#include "formats/format.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

// X-macro: declares each format's reader and lists it, so that a format is named once.
#define ROOFCAST_FORMATS(X)                                                                                  \
    X(threads)                                                                                               \
    X(marker)                                                                                                \
    X(results)                                                                                               \
    X(roofcast_profile)                                                                                      \
    X(extrap_json)                                                                                           \
    X(likwid)                                                                                                \
    X(callgrind)                                                                                             \
    X(extrap_text)                                                                                           \
    X(csv)                                                                                                   \
    X(tau)                                                                                                   \
    X(cube)                                                                                                  \
    X(cube_experiments)                                                                                      \
    X(hatchet)                                                                                               \
    X(machine)                                                                                               \
    X(kernel)

namespace roofcast::model::formats {

// Each reader is constant-initialised (string views and function pointers), so the list may copy them at any
// time.
#define ROOFCAST_DECLARE_FORMAT(id) extern const FormatReader id##_format;
ROOFCAST_FORMATS(ROOFCAST_DECLARE_FORMAT)
#undef ROOFCAST_DECLARE_FORMAT

namespace {

const std::vector<FormatReader>& all_formats() {
#define ROOFCAST_LIST_FORMAT(id) id##_format,
    static const std::vector<FormatReader> formats{ROOFCAST_FORMATS(ROOFCAST_LIST_FORMAT)};
#undef ROOFCAST_LIST_FORMAT
    return formats;
}

} // namespace

std::span<const FormatReader> registry() {
    return all_formats();
}

const FormatReader* find(std::string_view name) {
    for (const auto& f : registry())
        if (f.name == name)
            return &f;
    return nullptr;
}

const FormatReader* detect(const Input& in) {
    for (const auto& f : registry())
        if (f.sniff && f.sniff(in))
            return &f;
    return nullptr;
}

std::vector<const FormatReader*> claims(const Input& in) {
    std::vector<const FormatReader*> out;
    for (const auto& f : registry())
        if (f.sniff && f.sniff(in))
            out.push_back(&f);
    return out;
}

scale::Dataset dataset_of(const core::Profile& p, const std::string& file) {
    return scale::read_roofcast_profile(core::profile_to_json(p).dump(), file);
}

scale::Dataset read_dataset(const std::string& path, std::vector<std::string>* unread,
                            const std::string& scaling) {
    if (unread)
        unread->clear();
    Input in = Input::open(path);
    in.set_scaling(scaling);
    const FormatReader* f = detect(in);
    if (!f && !in.is_directory() && in.is_json())
        f = find("extrap-json");
    if (f && f->dataset)
        return f->dataset(in, unread);
    std::string inputs;
    for (const auto& g : registry())
        if (g.dataset)
            inputs += fmt::format("{}{}", inputs.empty() ? "" : ", ", g.label);
    if (f)
        throw core::InputError(path, "",
                               fmt::format("a {}, not a scaling input (expected {})", f->label, inputs));
    throw core::InputError(path, "", "unknown profile format (expected .json, .txt (Extra-P text) or .csv)");
}

} // namespace roofcast::model::formats
