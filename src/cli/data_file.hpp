// Recognises a roofcast data file by its content (the format registry, src/formats) and loads it: a results
// file (JSON with kind "roofcast-results") or a machine file (YAML with 'compute' and 'levels'). Anything
// else is a one-line core::InputError naming the file and what was expected. Shared by `validate` and `plot`.
// Keys a file's format does not read are warned about on stderr (check_unread_keys).
#pragma once

#include "analysis/scale/dataset.hpp"
#include "analysis/threads/data.hpp"
#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/results.hpp"
#include "model/kernel.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::cli {

struct DataFile {
    std::optional<core::Results> results; // set for a results file
    std::optional<core::Machine> machine; // set for a machine file
};

// Returns a DataFile with exactly one member set, or throws core::InputError.
DataFile load_data_file(const std::string& path);

// Keys of a file that its format does not read (core::YamlField::unread_keys): one
// "roofcast: warning: FILE: unknown key 'K' ..." line each on stderr, or with `strict` a core::InputError
// naming the first.
void check_unread_keys(const std::string& path, const std::vector<std::string>& keys, bool strict);

// A machine, kernel or profile file read for a command, its unknown keys warned about.
core::Machine read_machine_file(const std::string& path);
model::KernelSpec read_kernel_file(const std::string& path);
core::Profile read_profile_file(const std::string& path);
// The scaling series of one input of `scale` or `convert` (formats::read_dataset; `scaling` as its), its
// unknown keys warned about.
model::scale::Dataset read_scaling_file(const std::string& path, const std::string& scaling = "weak");
// The profile a file holds when its format's document is one run's profile (roofcast's own, or another
// tool's: TAU, likwid, CUBE, callgrind); nullopt for any other file (results, machine files, scaling series).
std::optional<core::Profile> profile_of(const std::string& path);
// A profile of another tool (`profile --import-tau DIR` ...) read by the registry's format `format`.
core::Profile import_profile(std::string_view format, const std::string& path);
// The machine of a machine file or the one embedded in a results file (profile, plot and report place a
// profile's regions under it); InputError naming the file otherwise.
core::Machine machine_of_data_file(const std::string& path);

// The data of a threads results file (`roofcast threads --json`) held in `text`, its unknown keys warned
// about (with `strict`: refused); nullopt when `text` is not one (not JSON, or another format).
std::optional<model::threads::ThreadsData> read_threads_text(const std::string& text, const std::string& path,
                                                             bool strict);

} // namespace roofcast::cli
