// A tiny, strict XML reader for the report tests: parses the charts and the (polyglot XHTML) report into
// a tree, rejecting anything that is not well-formed (unbalanced or mismatched tags, unquoted or
// duplicate attributes, bare '&' or '<', unknown entities, text after the root). Enough to check the
// structure of what roofcast writes without depending on a system XML library.
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofcast::test {

struct XmlNode {
    std::string name;
    std::map<std::string, std::string> attrs;
    std::vector<std::unique_ptr<XmlNode>> children;
    std::string text; // concatenated character data of this element (not of its children)

    std::string attr(const std::string& key) const {
        auto it = attrs.find(key);
        return it == attrs.end() ? "" : it->second;
    }
    bool has_class(const std::string& c) const {
        // Whitespace-separated tokens of the class attribute.
        const std::string cls = attr("class");
        std::size_t pos = 0;
        while ((pos = cls.find(c, pos)) != std::string::npos) {
            const bool starts = pos == 0 || cls[pos - 1] == ' ';
            const bool ends = pos + c.size() == cls.size() || cls[pos + c.size()] == ' ';
            if (starts && ends)
                return true;
            pos += c.size();
        }
        return false;
    }
    // All descendants (and this node) matching the predicate, document order.
    template <class Pred> void collect(Pred pred, std::vector<const XmlNode*>& out) const {
        if (pred(*this))
            out.push_back(this);
        for (const auto& c : children)
            c->collect(pred, out);
    }
    std::vector<const XmlNode*> by_class(const std::string& c) const {
        std::vector<const XmlNode*> out;
        collect([&](const XmlNode& n) { return n.has_class(c); }, out);
        return out;
    }
    std::vector<const XmlNode*> by_name(const std::string& n) const {
        std::vector<const XmlNode*> out;
        collect([&](const XmlNode& x) { return x.name == n; }, out);
        return out;
    }
    // Text of this element and its descendants.
    std::string all_text() const {
        std::string t = text;
        for (const auto& c : children)
            t += c->all_text();
        return t;
    }
};

class XmlParser {
public:
    explicit XmlParser(const std::string& s) : m_s(s) {}

    std::unique_ptr<XmlNode> parse() {
        skip_misc();
        if (!starts("<"))
            fail("expected a root element");
        auto root = element();
        skip_misc();
        if (m_i != m_s.size())
            fail("content after the root element");
        return root;
    }

private:
    const std::string& m_s;
    std::size_t m_i = 0;

    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("not well-formed XML at offset " + std::to_string(m_i) + ": " + why);
    }
    bool starts(const char* p) const { return m_s.compare(m_i, std::char_traits<char>::length(p), p) == 0; }
    void skip_ws() {
        while (m_i < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_i])))
            ++m_i;
    }
    void skip_until(const char* end) {
        const std::size_t e = m_s.find(end, m_i);
        if (e == std::string::npos)
            fail(std::string("unterminated construct, expected ") + end);
        m_i = e + std::char_traits<char>::length(end);
    }
    void skip_misc() {
        for (;;) {
            skip_ws();
            if (starts("<?"))
                skip_until("?>");
            else if (starts("<!--"))
                skip_until("-->");
            else if (starts("<!DOCTYPE") || starts("<!doctype"))
                skip_until(">");
            else
                return;
        }
    }
    std::string name() {
        const std::size_t b = m_i;
        while (m_i < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_i])) || m_s[m_i] == '-' ||
                                    m_s[m_i] == '_' || m_s[m_i] == ':' || m_s[m_i] == '.'))
            ++m_i;
        if (b == m_i)
            fail("expected a name");
        return m_s.substr(b, m_i - b);
    }
    std::string decode(const std::string& raw) {
        std::string out;
        for (std::size_t k = 0; k < raw.size(); ++k) {
            if (raw[k] == '<')
                fail("bare '<' in text or attribute");
            if (raw[k] != '&') {
                out += raw[k];
                continue;
            }
            const std::size_t semi = raw.find(';', k);
            if (semi == std::string::npos)
                fail("bare '&'");
            const std::string ent = raw.substr(k + 1, semi - k - 1);
            static const std::map<std::string, std::string> k_entities{
                {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
            if (auto it = k_entities.find(ent); it != k_entities.end())
                out += it->second;
            else if (!ent.empty() && ent[0] == '#')
                out += '?';
            else
                fail("unknown entity &" + ent + ";");
            k = semi;
        }
        return out;
    }
    std::unique_ptr<XmlNode> element() {
        ++m_i; // '<'
        auto node = std::make_unique<XmlNode>();
        node->name = name();
        for (;;) {
            skip_ws();
            if (starts("/>")) {
                m_i += 2;
                return node;
            }
            if (starts(">")) {
                ++m_i;
                break;
            }
            const std::string key = name();
            skip_ws();
            if (!starts("="))
                fail("attribute '" + key + "' without a value");
            ++m_i;
            skip_ws();
            if (m_i >= m_s.size() || (m_s[m_i] != '"' && m_s[m_i] != '\''))
                fail("unquoted attribute '" + key + "'");
            const char q = m_s[m_i++];
            const std::size_t e = m_s.find(q, m_i);
            if (e == std::string::npos)
                fail("unterminated attribute");
            if (node->attrs.count(key))
                fail("duplicate attribute '" + key + "'");
            node->attrs[key] = decode(m_s.substr(m_i, e - m_i));
            m_i = e + 1;
        }
        for (;;) {
            const std::size_t lt = m_s.find('<', m_i);
            if (lt == std::string::npos)
                fail("unclosed element <" + node->name + ">");
            node->text += decode(m_s.substr(m_i, lt - m_i));
            m_i = lt;
            if (starts("</")) {
                m_i += 2;
                const std::string close = name();
                if (close != node->name)
                    fail("</" + close + "> closes <" + node->name + ">");
                skip_ws();
                if (!starts(">"))
                    fail("expected '>'");
                ++m_i;
                return node;
            }
            if (starts("<!--")) {
                skip_until("-->");
                continue;
            }
            node->children.push_back(element());
        }
    }
};

inline std::unique_ptr<XmlNode> parse_xml(const std::string& s) {
    return XmlParser(s).parse();
}

} // namespace roofcast::test
