// The format registry: every input roofcast reads, recognised in one place. A format is one reader (name,
// sniff, read) in its own file under src/formats/ and one line in registry.cpp; `validate`, `scale`,
// `plot`, `report`, `profile --import-*` and the fuzz targets all ask the registry what a file is and read it
// through the entry they are given (docs/extending.md, "A file format").
// Contract: sniff() is cheap and never throws (a file it cannot make sense of is not its format); read()
// checks every field and throws core::InputError(file, field, expected); the registry's order is the order
// in which formats are asked, and a unit test checks that each format's sample is claimed by it alone.
#pragma once

#include "analysis/scale/dataset.hpp"
#include "analysis/threads/data.hpp"
#include "core/doc.hpp"
#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/results.hpp"
#include "measure/profile/marker_file.hpp"
#include "model/kernel.hpp"

#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace roofcast::model::formats {

// A file or directory handed to the registry. Its text is read once, on first use (BOM stripped, bounded by
// core::read_file); a directory has none.
class Input {
public:
    // `path` names the file or directory; nothing is read yet.
    static Input open(const std::string& path);
    // A document already in memory (tests, fuzz targets), labelled `path` in errors and for extensions.
    static Input from_text(std::string text, const std::string& path);

    const std::string& path() const { return m_path; }
    bool is_directory() const { return m_directory; }
    const std::string& text() const; // the whole file; "" for a directory
    bool is_binary() const;          // a NUL byte in the text
    bool is_json() const;            // first non-blank character '{'
    // The document parsed as YAML when it is a YAML map (JSON objects are YAML too); nullptr otherwise.
    // The sniffers only look (YamlField::node()), so no key counts as read.
    const core::YamlField* yaml() const;
    // Throws the YAML parser's error (core::InputError naming the line) when the text did not parse.
    void throw_yaml_error() const;
    // How a directory of runs reduces the locations (threads, processes) of one run to the series' values:
    // "weak" (each location a sample: their mean) or "strong" (their sum), as Extra-P's option says.
    const std::string& scaling() const { return m_scaling; }
    void set_scaling(std::string scaling) { m_scaling = std::move(scaling); }

private:
    std::string m_path;
    bool m_directory = false;
    mutable std::optional<std::string> m_text;
    mutable bool m_yaml_tried = false;
    mutable std::shared_ptr<core::YamlField> m_yaml;
    mutable std::exception_ptr m_yaml_error;
    std::string m_scaling = "weak";
};

// What a reader produces: one of roofcast's in-memory types.
using Document = std::variant<core::Machine, KernelSpec, core::Results, core::Profile, threads::ThreadsData,
                              measure::profile::MarkerFile, scale::Dataset>;

struct FormatReader {
    std::string_view name;  // "extrap-text": what --format and the error messages say
    std::string_view label; // "Extra-P text": how `validate` and errors describe a file of it
    // A file of this format shipped with the sources (path from the source root), which the registry's test
    // reads: its sniff must claim it, no other format's may, and read must accept it.
    std::string_view sample;
    bool (*sniff)(const Input& in) = nullptr;
    // Reads the document; keys the format does not read go to `unread` (as paths) where it names keys.
    Document (*read)(const Input& in, std::vector<std::string>* unread) = nullptr;
    // The scaling series of a file of this format, for `roofcast scale`; nullptr when it holds none.
    scale::Dataset (*dataset)(const Input& in, std::vector<std::string>* unread) = nullptr;
    // Writers (`roofcast convert --format NAME`): the text of a file of this format holding one profile, or
    // a set of them as scaling series; nullptr where the format is not written that way. A format that is
    // only written has no sniff, read or sample. Data a format cannot hold is a core::InputError naming
    // the function or metric (`file` labels it).
    std::string (*write_profile)(const core::Profile& p, const std::string& file) = nullptr;
    std::string (*write_dataset)(const scale::Dataset& d, const std::string& file) = nullptr;
};

// Every format, in the order they are asked.
std::span<const FormatReader> registry();
// The series of a profile as `roofcast scale` reads them: a profile read from another tool's format is
// fitted exactly as the roofcast profile it converts to.
scale::Dataset dataset_of(const core::Profile& p, const std::string& file);

// The format named `name`, or nullptr.
const FormatReader* find(std::string_view name);
// The first format whose sniff claims `in`, or nullptr.
const FormatReader* detect(const Input& in);
// Every format whose sniff claims `in` (the registry's test: exactly one for each sample).
std::vector<const FormatReader*> claims(const Input& in);

// The scaling series of one input of `roofcast scale` (a roofcast profile, Extra-P text or JSON, CSV ...):
// the format whose sniff claims it and that holds series. A JSON file no format claims is read as Extra-P
// JSON, whose reader names what it lacks. `unread` receives the keys of a roofcast profile that its format
// does not read; it is cleared for the others.
scale::Dataset read_dataset(const std::string& path, std::vector<std::string>* unread = nullptr,
                            const std::string& scaling = "weak");

// The registry's readers of a format built from one function `Read(in, unread)`, which yields the format's
// profile or series: its document, and the series of a profile as dataset_of converts them.
template <auto Read> Document document_of(const Input& in, std::vector<std::string>* unread) {
    return Read(in, unread);
}
template <auto Read> scale::Dataset profile_dataset(const Input& in, std::vector<std::string>* unread) {
    return dataset_of(Read(in, unread), in.path());
}
// The document of a YAML format: a fresh parse, so that the record of the keys read is this reader's alone.
template <auto FromYaml> Document yaml_document(const Input& in, std::vector<std::string>* unread) {
    const core::YamlField root = core::YamlField::load_text(in.text(), in.path());
    auto doc = FromYaml(root);
    if (unread)
        *unread = root.unread_keys();
    return doc;
}

// A reader of another tool's text output: `parse(text, file)`.
template <auto Parse> auto parsed_text(const Input& in, std::vector<std::string>* /*unread*/) {
    return Parse(in.text(), in.path());
}

// The sniff of another tool's text output: a regular file, not binary, whose text `looks_like(text)` says
// is that tool's.
template <auto LooksLike> bool text_output_of(const Input& in) {
    return !in.is_directory() && !in.is_binary() && LooksLike(in.text());
}

// Shared sniffing helpers.
bool has_extension(const Input& in, std::string_view ext); // ".txt"
// A JSON document whose text holds `tag` as a string ("\"roofcast-results\""): how roofcast's own JSON
// files name their kind.
bool json_with_tag(const Input& in, std::string_view tag);
// A YAML map (not JSON) with a top-level `key`.
bool yaml_with_key(const Input& in, const char* key);
// The input parsed as a YAML map, where its text spells `word` at all (nullptr otherwise, without parsing):
// what a sniffer looking for a key or a value in YAML asks, so that a large file of another format is never
// parsed as YAML only to learn it holds no such word.
const core::YamlField* yaml_spelling(const Input& in, std::string_view word);

} // namespace roofcast::model::formats
