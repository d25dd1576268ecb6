// File I/O with roofcast's guarantees.
// Reads: only regular files, bounded in size, checked before a byte is read, so a device, a FIFO or a
// huge file fails at once instead of hanging or exhausting memory. Writes: one writer for every output,
// a temporary file created with O_EXCL under an unpredictable name in the target's own directory, fsync,
// rename, fsync of the directory; a symlink target is resolved (the file it names is replaced, the link
// stays), a character device or FIFO is written in place (never replaced), anything else that is not a
// regular file is refused. A report directory is built in a sibling temporary directory and swapped in
// whole, so an interrupted run leaves the old set or the new one, never a mix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::core {

// The largest input file any reader accepts (the biggest real results files are a few MB).
inline constexpr std::uintmax_t k_max_input_bytes = std::uintmax_t{256} << 20;

// Reads a whole regular file of at most `max_bytes`; throws InputError(path, "", why) otherwise. A UTF-8
// byte-order mark at the start is dropped: every format roofcast reads is text, and the mark is no part of
// it.
std::string read_file(const std::filesystem::path& path, std::uintmax_t max_bytes = k_max_input_bytes);

// The start of the name of every temporary sibling a write to `name` makes: `.name.tmp.<host>.`, followed
// by `<pid>.XXXXXX`. The host and pid let a later writer tell a temporary left by a killed run (SIGKILL
// cannot be caught) from one in use: write_file_atomic and replace_directory remove the ones made on this
// host by processes that no longer exist. A long name is cut so that the whole stays within 255 bytes.
std::string temporary_prefix(const std::filesystem::path& name);

// Writes `content` as described above. Throws Error naming the path when the directory is missing or
// unwritable or the target is a directory, block device or socket. Parent directories are not created.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Fails at once, before minutes of measurement, when `path` could not be written afterwards: an empty
// name, a directory, or a directory where no file can be created (tried with a temporary file, since
// access() says yes to root even in /proc). Throws InputError(path, field, why).
void check_output_writable(const std::filesystem::path& path, const std::string& field);

// Creates the directory (and parents); throws Error naming it when that fails.
void make_directories(const std::filesystem::path& dir);

// A new private directory (mkdtemp, mode 0700) under the system's temporary directory, named
// `<prefix>.<host>.<pid>.XXXXXX`; throws Error when it cannot be made. The caller removes it; the next
// call with the same prefix removes those of processes on this host that are gone (a run killed by SIGKILL).
std::filesystem::path make_temp_directory(std::string_view prefix);

// Removes a directory made by make_temp_directory when it goes out of scope.
class TempDirectory {
public:
    explicit TempDirectory(std::string_view prefix) : m_path(make_temp_directory(prefix)) {}
    ~TempDirectory();
    TempDirectory(const TempDirectory&) = delete;
    TempDirectory& operator=(const TempDirectory&) = delete;
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

// Throws InputError(output, field, ...) when `output` names the same file as one of `inputs` (after
// resolving links), so that a command never overwrites what it reads.
void ensure_distinct_output(const std::filesystem::path& output, const std::vector<std::string>& inputs,
                            const std::string& field);

// The check replace_directory makes first, for commands that want to fail before measuring: returns the
// normalised directory name, or throws Error when `dir` is not a named directory of its own or holds a
// name outside `own_names`.
std::filesystem::path check_replaceable_directory(const std::filesystem::path& dir,
                                                  const std::set<std::string>& own_names);

// Replaces directory `dir` as a whole: `fill` writes the new content into a fresh sibling directory,
// which is then swapped with `dir` atomically (renameat2 RENAME_EXCHANGE) and the old content removed.
// An existing `dir` may only hold names in `own_names` (a previous report), so a mistyped -o never
// deletes a user's files: anything else is an Error naming the first foreign entry.
void replace_directory(const std::filesystem::path& dir, const std::set<std::string>& own_names,
                       const std::function<void(const std::filesystem::path& staging)>& fill);

} // namespace roofcast::core
