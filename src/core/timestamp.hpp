// The current UTC time as ISO-8601 ("2026-11-21T21:22:50Z"), stamped into every file roofcast writes.
#pragma once

#include <string>

namespace roofcast::core {

std::string utc_now_iso8601();

} // namespace roofcast::core
