// File I/O with roofcast's guarantees: reads name the file on failure, and writes go to a
// temporary file in the same directory that is renamed over the target, so a crash or an error
// never leaves half a file behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace roofcast::core {

// Reads a whole file; throws InputError(path, "", "cannot read ...") when it cannot.
std::string read_file(const std::filesystem::path& path);

// Writes `content` atomically (temp file + fsync + rename). Throws Error naming the path when the
// directory is missing or unwritable. Parent directories are not created.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Creates the directory (and parents); throws Error naming it when that fails.
void make_directories(const std::filesystem::path& dir);

} // namespace roofcast::core
