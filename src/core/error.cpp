#include "core/error.hpp"

namespace roofcast::core {

namespace {
std::string compose(const std::string& file, const std::string& field, const std::string& message) {
    std::string out;
    if (!file.empty())
        out += file + ": ";
    if (!field.empty())
        out += "field '" + field + "': ";
    return out + message;
}
} // namespace

InputError::InputError(std::string file, std::string field, std::string message)
    : Error(compose(file, field, message)), m_file(std::move(file)), m_field(std::move(field)),
      m_message(std::move(message)) {}

} // namespace roofcast::core
