// A streaming JSON writer for large documents, with the exact layout of nlohmann::json's dump(2): two
// spaces a level, "key": value, "{}" and "[]" when empty, numbers as nlohmann prints them (shortest
// round-trip digits, ".0" on whole numbers, non-finite as null), strings escaped as nlohmann escapes them
// (and invalid UTF-8 refused with nlohmann's own error). A document that a tree would hold in many
// times its text size is written piece by piece into a string the caller flushes; the caller writes an
// object's members in sorted order, as nlohmann's object (a std::map) holds them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofcast::report {

class JsonOut {
public:
    explicit JsonOut(std::string& out) : m_out(out) {}
    // A writer that continues inside an array opened elsewhere, `depth` levels deep (the root's members are
    // at depth 1), whose next element is its first when `first`: for pieces of one array written apart.
    static JsonOut inside_array(std::string& out, int depth, bool first);

    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    // An object member's key: the value follows with one of the calls below.
    void key(std::string_view k);

    void value(double v); // null when not finite
    void value(std::optional<double> v);
    void value(bool v);
    void value(std::string_view v);
    void value(const char* v) { value(std::string_view(v)); }
    void value(const std::string& v) { value(std::string_view(v)); }
    void value_unsigned(std::uint64_t v);
    void value_integer(std::int64_t v);
    void null();
    void values(const std::vector<double>& v);
    void values(const std::vector<std::string>& v);
    // An object member: its key and its value, as key() and then value(), value_unsigned() or values().
    template <class T> void field(std::string_view k, const T& v) {
        key(k);
        value(v);
    }
    void unsigned_field(std::string_view k, std::uint64_t v) {
        key(k);
        value_unsigned(v);
    }
    template <class T> void list_field(std::string_view k, const std::vector<T>& v) {
        key(k);
        values(v);
    }

private:
    struct Level {
        bool object = false;
        bool first = true;
    };
    void element(); // before an array's element: the separator and indentation
    void open(char c, bool object);
    void close(char c);
    void string(std::string_view v); // quoted and escaped
    void indent(std::size_t depth);
    std::string& m_out;
    std::vector<Level> m_levels;
};

// Throws nlohmann's own error where nlohmann::json would refuse to write `s` (invalid UTF-8): checked
// before a streamed document starts, so that an error never leaves half a document.
void check_json_string(std::string_view s);

} // namespace roofcast::report
