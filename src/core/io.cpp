#include "core/io.hpp"

#include "core/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace roofcast::core {

std::string read_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path.string(), "", "is a directory, expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path.string(), "", std::string("cannot read file: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path dir =
        path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    std::filesystem::path tmp_name = path.filename();
    tmp_name += ".tmp.XXXXXX";
    std::string tmpl = (dir / tmp_name).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        throw Error("cannot write '" + path.string() + "': " + std::strerror(errno));
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(tmpl.c_str());
            throw Error("cannot write '" + path.string() + "': " + std::strerror(err));
        }
        done += static_cast<std::size_t>(n);
    }
    ::fchmod(fd, 0644);
    ::fsync(fd);
    ::close(fd);
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmpl.c_str());
        throw Error("cannot write '" + path.string() + "': " + std::strerror(err));
    }
}

void make_directories(const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw Error("cannot create directory '" + dir.string() + "': " + ec.message());
}

} // namespace roofcast::core
