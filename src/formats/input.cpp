#include "core/error.hpp"
#include "core/io.hpp"
#include "formats/format.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>

namespace roofcast::model::formats {

Input Input::open(const std::string& path) {
    Input in;
    in.m_path = path;
    std::error_code ec;
    in.m_directory = std::filesystem::is_directory(path, ec);
    return in;
}

Input Input::from_text(std::string text, const std::string& path) {
    Input in;
    in.m_path = path;
    in.m_text = std::move(text);
    return in;
}

const std::string& Input::text() const {
    if (!m_text)
        m_text = m_directory ? std::string() : core::read_file(m_path);
    return *m_text;
}

bool Input::is_binary() const {
    return text().find('\0') != std::string::npos;
}

bool Input::is_json() const {
    const std::string& t = text();
    const auto i =
        std::find_if(t.begin(), t.end(), [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
    return i != t.end() && *i == '{';
}

const core::YamlField* Input::yaml() const {
    if (!m_yaml_tried) {
        m_yaml_tried = true;
        if (!m_directory && !is_binary()) {
            try {
                auto root = std::make_shared<core::YamlField>(core::YamlField::load_text(text(), m_path));
                if (root->is_map())
                    m_yaml = std::move(root);
            } catch (const core::Error&) {
                m_yaml_error = std::current_exception();
            }
        }
    }
    return m_yaml.get();
}

void Input::throw_yaml_error() const {
    (void)yaml();
    if (m_yaml_error)
        std::rethrow_exception(m_yaml_error);
}

bool has_extension(const Input& in, std::string_view ext) {
    return in.path().ends_with(ext);
}

bool json_with_tag(const Input& in, std::string_view tag) {
    return !in.is_directory() && in.is_json() && in.text().find(tag) != std::string::npos;
}

const core::YamlField* yaml_spelling(const Input& in, std::string_view word) {
    // A document whose text never spells the word cannot hold it (a key merged from an anchor is spelled
    // where the anchor is defined): a large file of another format (a CSV of a million rows) is not parsed as
    // YAML only to learn that, which cost longer than reading it.
    if (in.is_directory() || in.text().find(word) == std::string::npos)
        return nullptr;
    return in.yaml();
}

bool yaml_with_key(const Input& in, const char* key) {
    const core::YamlField* root = yaml_spelling(in, key);
    // The node is read through its const interface, which neither inserts nor marks the key as read.
    return root && static_cast<bool>(root->node()[key]);
}

} // namespace roofcast::model::formats
