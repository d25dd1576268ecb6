#include "core/io.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace roofcast::core {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) {
    return std::strerror(err);
}

// Closes a descriptor on every path out of a function.
class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

// Writes all of `content` to `fd`; returns 0 or the errno of the failing write.
int write_all(int fd, std::string_view content) {
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        done += static_cast<std::size_t>(n);
    }
    return 0;
}

// A character device or FIFO is written where it is: replacing it by a regular file would destroy it
// (as root, `-o /dev/full` would replace the system's device node). A FIFO without a reader fails at
// once instead of blocking.
void write_in_place(const fs::path& path, std::string_view content) {
    Fd fd(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        const int err = errno;
        throw Error(fmt::format("cannot write '{}': {}", path.string(),
                                err == ENXIO ? std::string("a FIFO with no reader") : errno_text(err)));
    }
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0)
        ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    if (const int err = write_all(fd.get(), content); err != 0)
        throw Error(fmt::format("cannot write '{}': {}", path.string(), errno_text(err)));
}

fs::path parent_or_dot(const fs::path& p) {
    return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// The file a write to `path` should replace: the end of a symlink chain, so that the link survives and
// the temporary file is made beside the real target, never through the link.
fs::path resolve_target(const fs::path& path) {
    std::error_code ec;
    fs::path target = path;
    // Followed link by link (not weakly_canonical, which stops at a dangling link and would have it
    // replaced): a link to a file that does not exist yet names the file to create.
    for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
        const fs::path next = fs::read_symlink(target, ec);
        if (ec || hops == 40)
            throw Error(fmt::format("cannot write '{}': cannot resolve the link{}", path.string(),
                                    ec ? ": " + ec.message() : std::string(" (more than 40 links)")));
        target = next.is_absolute() ? next : parent_or_dot(target) / next;
    }
    return target;
}

void sync_directory(const fs::path& dir) {
    Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() >= 0)
        ::fsync(fd.get());
}

// `dir/.name<suffix>`: a hidden sibling name template for mkstemp/mkdtemp (built by appending: g++ 12
// warns falsely about `"." + string`).
std::string hidden_template(const fs::path& dir, const fs::path& name, std::string_view suffix) {
    std::string leaf(".");
    leaf += name.string();
    leaf += suffix;
    return (dir / leaf).string();
}

// This host's name as it goes into a temporary name: letters, digits and '-' only, at most 32 characters.
std::string host_tag() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
        return "host";
    std::string tag;
    for (const char* c = buf; *c != '\0' && tag.size() < 32; ++c)
        tag += std::isalnum(static_cast<unsigned char>(*c)) != 0 ? *c : '-';
    return tag;
}

} // namespace

std::string temporary_prefix(const fs::path& name) {
    std::string tail(".tmp.");
    tail += host_tag();
    tail += '.';
    std::string leaf(".");
    leaf += name.string();
    const std::size_t room = 255 - tail.size() - 10 - 7; // pid of up to 10 digits, ".XXXXXX"
    if (leaf.size() > room)
        leaf.resize(room);
    return leaf + tail;
}

namespace {

// A mkstemp/mkdtemp template for this process's temporary sibling of `name` in `dir`.
std::string temp_template(const fs::path& dir, const fs::path& name) {
    return (dir / fmt::format("{}{}.XXXXXX", temporary_prefix(name), ::getpid())).string();
}

// Removes the temporaries a killed run left in `dir`: entries `<prefix><pid>.XXXXXX`, where `prefix` ends
// with this host's tag, made by a process that no longer exists. Another host's temporaries (a shared file
// system) and a live process's are left alone; errors are ignored, as the leftovers are only clutter.
void remove_stale_temps(const fs::path& dir, const std::string& prefix) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string leaf = it->path().filename().string();
        if (!leaf.starts_with(prefix))
            continue;
        const std::string rest = leaf.substr(prefix.size()); // <pid>.XXXXXX
        const auto dot = rest.find('.');
        if (dot == 0 || dot == std::string::npos || rest.size() - dot - 1 != 6)
            continue;
        long pid = 0;
        bool digits = dot <= 9;
        for (std::size_t i = 0; digits && i < dot; ++i) {
            digits = std::isdigit(static_cast<unsigned char>(rest[i])) != 0;
            pid = pid * 10 + (rest[i] - '0');
        }
        if (!digits || pid <= 0 || pid == ::getpid())
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
            continue; // alive, or not ours to ask about
        std::error_code rm;
        fs::remove_all(it->path(), rm); // a symlink is removed itself, never followed
    }
}

// Reads the `size` bytes a file had when it was opened into `text` (empty) and leaves the file's offset after
// them. A large file is read in parts at once (pread), one per core up to four: the copies and page faults of
// a file of hundreds of megabytes share the cores. A part that meets the end early (the file shrank
// meanwhile) leaves `text` at the bytes before that part's.
void read_known_size(int fd, const fs::path& path, std::size_t size, std::string& text) {
    constexpr std::size_t k_part_min = std::size_t{32} << 20;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t parts = std::clamp<std::size_t>(size / k_part_min, 1, std::min<std::size_t>(cores, 4));
    text.resize(size);
    std::vector<std::size_t> got(parts, 0);
    std::vector<int> error(parts, 0);
    const auto read_part = [&](std::size_t k) {
        const std::size_t begin = k * size / parts, end = (k + 1) * size / parts;
        while (begin + got[k] < end) {
            const ssize_t n = ::pread(fd, text.data() + begin + got[k], end - begin - got[k],
                                      static_cast<off_t>(begin + got[k]));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                error[k] = n < 0 ? errno : 0;
                return;
            }
            got[k] += static_cast<std::size_t>(n);
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < parts; ++k)
        threads.emplace_back(read_part, k);
    read_part(0);
    for (auto& t : threads)
        t.join();
    std::size_t kept = 0;
    for (std::size_t k = 0; k < parts; ++k) {
        if (error[k] != 0)
            throw InputError(path.string(), "", "cannot read file: " + errno_text(error[k]));
        kept += got[k];
        if (kept < (k + 1) * size / parts)
            break;
    }
    text.resize(kept);
    if (::lseek(fd, static_cast<off_t>(kept), SEEK_SET) < 0)
        throw InputError(path.string(), "", "cannot read file: " + errno_text(errno));
}

} // namespace

std::string read_file(const fs::path& path, std::uintmax_t max_bytes) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below then refuses it.
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0)
        throw InputError(path.string(), "", "cannot read file: " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        throw InputError(path.string(), "", "cannot read file: " + errno_text(errno));
    if (S_ISDIR(st.st_mode))
        throw InputError(path.string(), "", "is a directory, expected a file");
    if (!S_ISREG(st.st_mode))
        throw InputError(path.string(), "",
                         "is not a regular file (a device, FIFO or socket), expected a file");
    const auto too_big = [&] {
        return InputError(
            path.string(), "",
            fmt::format("is larger than the limit of {} MiB for an input file", max_bytes >> 20));
    };
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
        throw too_big();
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0)
        ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    std::string text;
    read_known_size(fd.get(), path, static_cast<std::size_t>(st.st_size), text);
    char buf[1 << 16];
    for (;;) { // what the file holds beyond the size it had (a file still being written)
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw InputError(path.string(), "", "cannot read file: " + errno_text(errno));
        }
        if (n == 0)
            break;
        if (text.size() + static_cast<std::size_t>(n) > max_bytes) // the file grew while being read
            throw too_big();
        text.append(buf, static_cast<std::size_t>(n));
    }
    // A UTF-8 byte-order mark is an encoding signature, not content: editors on Windows put one before
    // JSON, YAML and CSV alike (RFC 8259 section 8.1 lets a parser ignore it; YAML 1.2 section 5.2 allows
    // it), and every sniffer and reader downstream expects the first character of the data.
    if (text.starts_with("\xEF\xBB\xBF"))
        text.erase(0, 3);
    return text;
}

void write_file_atomic(const fs::path& path, std::string_view content) {
    const fs::path target = resolve_target(path);
    mode_t mode = 0644;
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            throw Error(fmt::format("cannot write '{}': it is a directory", path.string()));
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
            return write_in_place(target, content);
        if (!S_ISREG(st.st_mode))
            throw Error(fmt::format("cannot write '{}': it is not a regular file (a block device or socket), "
                                    "refusing to replace it",
                                    path.string()));
        mode = st.st_mode & 07777;
    }
    const fs::path dir = parent_or_dot(target);
    remove_stale_temps(dir, temporary_prefix(target.filename()));
    // mkstemp: O_CREAT | O_EXCL under a random name, so nothing planted beforehand can be followed.
    std::string tmpl = temp_template(dir, target.filename());
    Fd fd(::mkstemp(tmpl.data()));
    if (fd.get() < 0)
        throw Error(fmt::format("cannot write '{}': {}", path.string(), errno_text(errno)));
    const auto fail = [&](int err) {
        ::unlink(tmpl.c_str());
        throw Error(fmt::format("cannot write '{}': {}", path.string(), errno_text(err)));
    };
    if (const int err = write_all(fd.get(), content); err != 0)
        fail(err);
    ::fchmod(fd.get(), mode);
    if (::fsync(fd.get()) != 0)
        fail(errno);
    if (::close(fd.release()) != 0)
        fail(errno);
    if (std::rename(tmpl.c_str(), target.c_str()) != 0)
        fail(errno);
    sync_directory(dir);
}

void check_output_writable(const fs::path& path, const std::string& field) {
    if (path.empty())
        throw InputError("", field, "the output name is empty");
    const fs::path target = resolve_target(path);
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            throw InputError(path.string(), field, "is a directory, expected a file name");
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
            return; // written in place
    }
    const fs::path dir = parent_or_dot(target);
    std::string tmpl = hidden_template(dir, target.filename(), ".probe.XXXXXX");
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        throw InputError(path.string(), field,
                         fmt::format("cannot create a file in '{}': the directory does not exist or is not "
                                     "writable ({})",
                                     dir.string(), errno_text(errno)));
    ::close(fd);
    ::unlink(tmpl.c_str());
}

void make_directories(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw Error("cannot create directory '" + dir.string() + "': " + ec.message());
}

fs::path make_temp_directory(std::string_view prefix) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec)
        base = "/tmp";
    // `<prefix>.<host>.<pid>.XXXXXX`, so that a later run removes what a killed one left.
    std::string leaf(prefix);
    leaf += '.';
    leaf += host_tag();
    leaf += '.';
    remove_stale_temps(base, leaf);
    std::string tmpl = (base / fmt::format("{}{}.XXXXXX", leaf, ::getpid())).string();
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw Error(
            fmt::format("cannot create a temporary directory in '{}': {}", base.string(), errno_text(errno)));
    return tmpl;
}

TempDirectory::~TempDirectory() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
}

void ensure_distinct_output(const fs::path& output, const std::vector<std::string>& inputs,
                            const std::string& field) {
    std::error_code ec;
    if (!fs::exists(output, ec))
        return;
    for (const auto& in : inputs) {
        std::error_code ec2;
        if (fs::exists(in, ec2) && fs::equivalent(output, in, ec2))
            throw InputError(output.string(), field,
                             fmt::format("names the input file '{}'; choose another output", in));
    }
}

fs::path check_replaceable_directory(const fs::path& dir_in, const std::set<std::string>& own_names) {
    fs::path dir = dir_in.lexically_normal();
    if (dir.filename().empty())
        dir = dir.parent_path();
    if (dir.empty() || dir == "." || dir == ".." || dir == dir.root_path())
        throw Error(
            fmt::format("cannot replace directory '{}': name a directory of its own", dir_in.string()));
    std::error_code ec;
    const auto st = fs::symlink_status(dir, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(st))
            throw Error(fmt::format("cannot write the report to '{}': it exists and is not a directory",
                                    dir.string()));
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (!own_names.contains(name))
                throw Error(
                    fmt::format("cannot write the report to '{}': it holds '{}', which is not part of "
                                "a roofcast report; choose a new or empty directory",
                                dir.string(), name));
        }
    }
    return dir;
}

void replace_directory(const fs::path& dir_in, const std::set<std::string>& own_names,
                       const std::function<void(const fs::path& staging)>& fill) {
    const fs::path dir = check_replaceable_directory(dir_in, own_names);
    std::error_code ec;
    const fs::path parent = parent_or_dot(dir);
    make_directories(parent);
    remove_stale_temps(parent, temporary_prefix(dir.filename()));
    std::string tmpl = temp_template(parent, dir.filename());
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw Error(
            fmt::format("cannot create a directory beside '{}': {}", dir.string(), errno_text(errno)));
    const fs::path staging = tmpl;
    ::chmod(staging.c_str(), 0755);
    try {
        fill(staging);
    } catch (...) {
        fs::remove_all(staging, ec);
        throw;
    }
    // A new directory takes the name only when none exists; otherwise the two are exchanged in one step,
    // so a reader (or an interrupted run) sees the complete old set or the complete new one.
    for (int attempt = 0; attempt < 16; ++attempt) {
        if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dir.c_str(), RENAME_NOREPLACE) == 0) {
            sync_directory(parent);
            return;
        }
        if (errno == EINVAL)
            break; // the file system takes no rename flags
        if (errno != EEXIST && errno != ENOTEMPTY)
            break;
        if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
            sync_directory(parent);
            fs::remove_all(staging, ec); // now the old content
            return;
        }
        if (errno != ENOENT) // ENOENT: the directory went away in between; try again
            break;
    }
    if (errno == EINVAL) {
        // Without rename flags: move the old directory onto an empty placeholder, then the new one in.
        // Not atomic, but an interruption leaves the old set under the placeholder's name, never a mix.
        std::string old_tmpl = hidden_template(parent, dir.filename(), ".old.XXXXXX");
        if (::mkdtemp(old_tmpl.data()) != nullptr) {
            const bool had_old = std::rename(dir.c_str(), old_tmpl.c_str()) == 0;
            if (std::rename(staging.c_str(), dir.c_str()) == 0) {
                fs::remove_all(old_tmpl, ec);
                sync_directory(parent);
                return;
            }
            if (had_old)
                std::rename(old_tmpl.c_str(), dir.c_str());
            fs::remove_all(old_tmpl, ec);
        }
    }
    const int err = errno;
    fs::remove_all(staging, ec);
    throw Error(fmt::format("cannot replace directory '{}': {}", dir.string(), errno_text(err)));
}

} // namespace roofcast::core
