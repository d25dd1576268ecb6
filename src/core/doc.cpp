#include "core/doc.hpp"

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/key_path.hpp"
#include "core/nesting.hpp"
#include "core/units.hpp"
#include "core/unread_walk.hpp"

#include <cmath>
#include <fmt/format.h>

namespace roofcast::core {

YamlField::YamlField(const YAML::Node& node, std::string file, std::string path)
    : YamlField(node, std::move(file), std::move(path), std::make_shared<std::set<std::string>>()) {}

YamlField::YamlField(const YAML::Node& node, std::string file, std::string path,
                     std::shared_ptr<std::set<std::string>> read)
    : m_node(node), m_file(std::move(file)), m_path(std::move(path)), m_read(std::move(read)) {}

YamlField YamlField::load_text(const std::string& text, const std::string& file_label) {
    check_nesting(text, file_label);
    try {
        YAML::Node root = YAML::Load(text);
        if (!root.IsMap())
            throw InputError(file_label, "", "expected a YAML mapping at the top level");
        return YamlField(root, file_label);
    } catch (const YAML::Exception& e) {
        throw InputError(file_label, "",
                         "malformed YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
}

YamlField YamlField::load_file(const std::string& path) {
    return load_text(read_file(path), path);
}

[[noreturn]] void YamlField::fail(const std::string& expected) const {
    throw InputError(m_file, m_path.empty() ? "(top level)" : m_path, expected);
}

void YamlField::mark(const std::string& key) const {
    m_read->insert(member_path(m_path, key));
}

bool YamlField::has(const std::string& key) const {
    if (!m_node.IsMap())
        return false;
    mark(key);
    return static_cast<bool>(m_node[key]);
}

YamlField YamlField::operator[](const std::string& key) const {
    const std::string child = member_path(m_path, key);
    if (!m_node.IsMap())
        fail("expected a mapping containing '" + key + "'");
    mark(key);
    YAML::Node n = m_node[key];
    if (!n || n.IsNull())
        throw InputError(m_file, child, "missing (required)");
    return YamlField(n, m_file, child, m_read);
}

std::optional<YamlField> YamlField::optional(const std::string& key) const {
    if (!has(key) || m_node[key].IsNull())
        return std::nullopt;
    return (*this)[key];
}

YamlField YamlField::at(std::size_t index) const {
    if (!m_node.IsSequence())
        fail("expected a list");
    return YamlField(m_node[index], m_file, element_path(m_path, index), m_read);
}

std::size_t YamlField::size() const {
    if (!m_node.IsSequence())
        fail("expected a list");
    return m_node.size();
}

std::vector<std::string> YamlField::keys() const {
    if (!m_node.IsMap())
        fail("expected a mapping");
    std::vector<std::string> out;
    for (const auto& kv : m_node) {
        out.push_back(kv.first.as<std::string>());
        mark(out.back());
    }
    return out;
}

namespace {

// A YAML document for core::collect_unread: nothing is read whole; every map and list is entered.
struct YamlTree {
    static bool handled(const YAML::Node&, const std::string&, std::vector<std::string>&) { return false; }
    template <class F> static void members(const YAML::Node& node, F f) {
        if (node.IsMap())
            for (const auto& kv : node)
                f(kv.first.IsScalar() ? kv.first.Scalar() : std::string("?"), kv.second);
    }
    template <class F> static void elements(const YAML::Node& node, F f) {
        if (node.IsSequence())
            for (std::size_t i = 0; i < node.size(); ++i)
                f(i, node[i]);
    }
};

} // namespace

std::vector<std::string> YamlField::unread_keys() const {
    std::vector<std::string> out;
    collect_unread(YamlTree{}, m_node, m_path, *m_read, out);
    return out;
}

double YamlField::as_double() const {
    if (!m_node.IsScalar())
        fail("expected a number");
    const std::string& s = m_node.Scalar();
    double v = 0;
    try {
        std::size_t used = 0;
        v = std::stod(s, &used);
        if (used != s.size())
            fail("expected a number, got '" + s + "'");
    } catch (const std::logic_error&) {
        fail("expected a number, got '" + s + "'");
    }
    if (!std::isfinite(v))
        fail("expected a finite number, got '" + s + "'");
    return v;
}

double YamlField::as_positive() const {
    const double v = as_double();
    if (!(v > 0))
        fail("expected a positive number, got " + m_node.Scalar());
    return v;
}

double YamlField::as_non_negative() const {
    const double v = as_double();
    if (v < 0)
        fail("expected a non-negative number, got " + m_node.Scalar());
    return v;
}

double YamlField::as_in(const Range& range) const {
    const double v = as_double();
    if (!range.contains(v))
        fail(range.expected(m_node.Scalar()));
    return v;
}

double YamlField::as_positive_at_most(double max) const {
    return as_in(Range::positive_at_most(max));
}

double YamlField::as_non_negative_at_most(double max) const {
    return as_in(Range::non_negative_at_most(max));
}

std::int64_t YamlField::as_int_in(std::int64_t lo, std::int64_t hi) const {
    const std::int64_t v = as_int();
    const Range range = Range::whole(lo, hi);
    if (!range.contains(static_cast<double>(v)))
        fail(range.expected(std::to_string(v)));
    return v;
}

std::int64_t YamlField::as_int() const {
    if (!m_node.IsScalar())
        fail("expected an integer");
    const std::string& s = m_node.Scalar();
    try {
        std::size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used != s.size())
            fail("expected an integer, got '" + s + "'");
        return v;
    } catch (const std::logic_error&) {
        fail("expected an integer, got '" + s + "'");
    }
}

std::uint64_t YamlField::as_size() const {
    if (!m_node.IsScalar())
        fail("expected a size in bytes (e.g. 49152 or 48KiB)");
    try {
        return parse_size(m_node.Scalar(), m_path);
    } catch (const InputError& e) {
        fail("expected a non-negative size in bytes (e.g. 49152 or 48KiB), got '" + m_node.Scalar() + "'");
    }
}

bool YamlField::as_bool() const {
    if (!m_node.IsScalar())
        fail("expected true or false");
    const std::string& s = m_node.Scalar();
    if (s == "true" || s == "True" || s == "yes")
        return true;
    if (s == "false" || s == "False" || s == "no")
        return false;
    fail("expected true or false, got '" + s + "'");
}

std::string YamlField::as_string() const {
    if (!m_node.IsScalar())
        fail("expected a string");
    return m_node.Scalar();
}

double YamlField::get_double(const std::string& key, double fallback) const {
    auto f = optional(key);
    return f ? f->as_double() : fallback;
}

std::string YamlField::get_string(const std::string& key, const std::string& fallback) const {
    auto f = optional(key);
    return f ? f->as_string() : fallback;
}

} // namespace roofcast::core
