// `roofcast report` on a threads results file (format "roofcast-threads", written by
// `roofcast threads --json`): re-fits the models on the file's measurements and writes index.html (the
// threads section) and one threads-<api>.svg per series into the report directory.
#pragma once

#include <string>

namespace roofcast::cli {

// True when `file` is a threads results file (and the report was written); false for any other file.
bool write_threads_report(const std::string& file, const std::string& dir);

} // namespace roofcast::cli
