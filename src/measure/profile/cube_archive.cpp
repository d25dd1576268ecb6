// The binary side of CUBE4 (cube.hpp): the tar archive (libarchive), the index and data files of a metric,
// and zlib-compressed data.
#include "measure/profile/cube.hpp"

#include "core/error.hpp"
#include "measure/profile/cube_detail.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <zlib.h>

namespace roofcast::measure::profile {

std::map<std::string, std::string> read_tar_members(const std::string& bytes, const std::string& file) {
    const std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
    if (!a)
        throw core::Error("libarchive: out of memory");
    archive_read_support_format_tar(a.get());
    if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
        throw core::InputError(
            file, "", std::string("expected a tar archive (CUBE4 .cubex): ") + archive_error_string(a.get()));
    std::map<std::string, std::string> members;
    archive_entry* entry = nullptr;
    for (;;) {
        const int rc = archive_read_next_header(a.get(), &entry);
        if (rc == ARCHIVE_EOF)
            break;
        if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
            throw core::InputError(file, "",
                                   std::string("damaged tar archive: ") + archive_error_string(a.get()));
        if (members.size() == k_cube_max_entries)
            throw core::InputError(file, "",
                                   fmt::format("expected at most {} archive members", k_cube_max_entries));
        const char* name = archive_entry_pathname(entry);
        const la_int64_t size = archive_entry_size(entry);
        if (!name || size < 0 || static_cast<std::uint64_t>(size) > bytes.size())
            throw core::InputError(file, "", "damaged tar archive: a member's name or size is missing");
        std::string content(static_cast<std::size_t>(size), '\0');
        std::size_t got = 0;
        while (got < content.size()) {
            const la_ssize_t n = archive_read_data(a.get(), content.data() + got, content.size() - got);
            if (n <= 0)
                throw core::InputError(file, name, "damaged tar archive: the member is cut short");
            got += static_cast<std::size_t>(n);
        }
        members[name] = std::move(content);
    }
    return members;
}

namespace cube {

// A binary reader over one member: fixed-size integers in the byte order the index declared.
class Bytes {
public:
    Bytes(const std::string& data, std::string file, std::string member)
        : m_data(data), m_file(std::move(file)), m_member(std::move(member)) {}
    template <class T> T get() {
        if (m_data.size() - m_pos < sizeof(T))
            throw core::InputError(m_file, m_member, "ends early: expected more data");
        unsigned char b[sizeof(T)];
        std::memcpy(b, m_data.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        if (m_swap)
            for (std::size_t i = 0; i < sizeof(T) / 2; ++i)
                std::swap(b[i], b[sizeof(T) - 1 - i]);
        T v;
        std::memcpy(&v, b, sizeof(T));
        return v;
    }
    bool take(std::string_view magic) {
        if (m_data.compare(m_pos, magic.size(), magic) != 0)
            return false;
        m_pos += magic.size();
        return true;
    }
    void set_swap(bool swap) { m_swap = swap; }
    bool swapped() const { return m_swap; }
    std::size_t left() const { return m_data.size() - m_pos; }
    std::string_view rest() const { return std::string_view(m_data).substr(m_pos); }
    void skip(std::size_t n) { m_pos += std::min(n, left()); }

private:
    const std::string& m_data;
    std::string m_file, m_member;
    std::size_t m_pos = 0;
    bool m_swap = false;
};

} // namespace cube

std::vector<std::int32_t> read_cube_index(const std::string& data, const std::string& file,
                                          const std::string& member, std::size_t nodes, bool& swapped) {
    cube::Bytes in(data, file, member);
    if (!in.take("CUBEX.INDEX"))
        throw core::InputError(file, member, "expected the header CUBEX.INDEX");
    const auto one = in.get<std::int32_t>();
    if (one != 1) {
        in.set_swap(true);
        cube::Bytes probe(data, file, member);
        probe.take("CUBEX.INDEX");
        probe.set_swap(true);
        if (probe.get<std::int32_t>() != 1)
            throw core::InputError(file, member, "expected the int32 1 that gives the byte order");
    }
    (void)in.get<std::int16_t>(); // version
    (void)in.get<std::uint8_t>(); // index type
    const auto n = in.get<std::int32_t>();
    if (n < 0 || static_cast<std::size_t>(n) > nodes)
        throw core::InputError(file, member,
                               fmt::format("expected at most {} call-tree nodes, got {}", nodes, n));
    if (in.left() != static_cast<std::size_t>(n) * 4)
        throw core::InputError(file, member,
                               fmt::format("expected {} int32 tree indices after the header", n));
    std::vector<std::int32_t> out;
    for (std::int32_t i = 0; i < n; ++i) {
        const auto t = in.get<std::int32_t>();
        if (t < 0 || static_cast<std::size_t>(t) >= nodes)
            throw core::InputError(
                file, member, fmt::format("tree index {} is not a call-tree node (0..{})", t, nodes - 1));
        out.push_back(t);
    }
    swapped = in.swapped();
    return out;
}

namespace {

// ZCUBEX.DATA: int64 count, count x (uncompressed position, compressed position, compressed size), then the
// zlib streams in order (CubeLib's compressed data layout, as pyCubexR reads it).
std::string inflate_cube_data(cube::Bytes& in, std::size_t expected, const std::string& file,
                              const std::string& member) {
    const auto count = in.get<std::int64_t>();
    if (count < 0 || static_cast<std::uint64_t>(count) > in.left() / 24)
        throw core::InputError(file, member, "expected a chunk count that the file holds");
    std::vector<std::int64_t> sizes;
    for (std::int64_t i = 0; i < count; ++i) {
        (void)in.get<std::int64_t>();
        (void)in.get<std::int64_t>();
        sizes.push_back(in.get<std::int64_t>());
    }
    std::string out;
    for (const auto size : sizes) {
        if (size == 0)
            continue;
        if (size < 0 || static_cast<std::uint64_t>(size) > in.left())
            throw core::InputError(file, member, "a compressed chunk runs past the end of the file");
        const std::string_view chunk = in.rest().substr(0, static_cast<std::size_t>(size));
        std::string buf(expected - std::min(expected, out.size()), '\0');
        uLongf len = static_cast<uLongf>(buf.size());
        if (uncompress(reinterpret_cast<Bytef*>(buf.data()), &len,
                       reinterpret_cast<const Bytef*>(chunk.data()),
                       static_cast<uLong>(chunk.size())) != Z_OK)
            throw core::InputError(file, member,
                                   "a compressed chunk does not inflate (zlib) to the size expected");
        out.append(buf.data(), len);
        in.skip(static_cast<std::size_t>(size));
    }
    return out;
}

template <class T> double cube_value(cube::Bytes& in) {
    return static_cast<double>(in.get<T>());
}

} // namespace

std::size_t cube_dtype_size(const std::string& dtype) {
    static const std::map<std::string, std::size_t> sizes = {{"DOUBLE", 8},
                                                             {"FLOAT", 8},
                                                             {"MINDOUBLE", 8},
                                                             {"MAXDOUBLE", 8},
                                                             {"INT64", 8},
                                                             {"INTEGER", 8},
                                                             {"UINT64", 8},
                                                             {"UNSIGNED INTEGER", 8},
                                                             {"SIGNED INTEGER", 8},
                                                             {"INT32", 4},
                                                             {"INT", 4},
                                                             {"SIGNED INT", 4},
                                                             {"UINT32", 4},
                                                             {"UNSIGNED INT", 4},
                                                             {"INT16", 2},
                                                             {"SHORT INT", 2},
                                                             {"SIGNED SHORT INT", 2},
                                                             {"UINT16", 2},
                                                             {"UNSIGNED SHORT INT", 2},
                                                             {"INT8", 1},
                                                             {"UINT8", 1},
                                                             {"CHAR", 1}};
    const auto it = sizes.find(dtype);
    return it == sizes.end() ? 0 : it->second;
}

std::vector<double> read_cube_data(const std::string& data, const std::string& file,
                                   const std::string& member, const std::string& dtype, std::size_t values,
                                   bool swapped) {
    const std::size_t size = cube_dtype_size(dtype);
    cube::Bytes raw(data, file, member);
    std::string inflated;
    const std::string* body = &data;
    if (raw.take("CUBEX.DATA")) {
    } else if (raw.take("ZCUBEX.DATA")) {
        raw.set_swap(swapped);
        inflated = inflate_cube_data(raw, values * size, file, member);
        body = &inflated;
    } else {
        throw core::InputError(file, member, "expected the header CUBEX.DATA or ZCUBEX.DATA");
    }
    cube::Bytes in(*body, file, member);
    if (body == &data)
        in.take("CUBEX.DATA");
    in.set_swap(swapped);
    if (in.left() != values * size)
        throw core::InputError(file, member,
                               fmt::format("expected {} values of {} ({} bytes), got {} bytes", values, dtype,
                                           values * size, in.left()));
    const bool is_float =
        dtype == "DOUBLE" || dtype == "FLOAT" || dtype == "MINDOUBLE" || dtype == "MAXDOUBLE";
    const bool is_signed = dtype.find("INT") != std::string::npos &&
                           dtype.find("UINT") == std::string::npos &&
                           dtype.find("UNSIGNED") == std::string::npos;
    std::vector<double> out;
    out.reserve(values);
    for (std::size_t i = 0; i < values; ++i) {
        double v = 0;
        if (is_float)
            v = cube_value<double>(in);
        else if (size == 8)
            v = is_signed ? cube_value<std::int64_t>(in) : cube_value<std::uint64_t>(in);
        else if (size == 4)
            v = is_signed ? cube_value<std::int32_t>(in) : cube_value<std::uint32_t>(in);
        else if (size == 2)
            v = is_signed ? cube_value<std::int16_t>(in) : cube_value<std::uint16_t>(in);
        else
            v = is_signed ? cube_value<std::int8_t>(in) : cube_value<std::uint8_t>(in);
        out.push_back(v);
    }
    return out;
}

} // namespace roofcast::measure::profile
