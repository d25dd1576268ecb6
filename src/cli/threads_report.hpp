// `roofcast report` on a threads results file (format "roofcast-threads", written by
// `roofcast threads --json`): re-fits the models on the file's measurements and writes index.html (the
// threads section) and one threads-<api>.svg per series into the report directory.
#pragma once

#include "analysis/threads/analysis.hpp"

#include <string>
#include <vector>

namespace roofcast::cli {

// True when `file` is a threads results file (and the report was written); false for any other file.
bool write_threads_report(const std::string& file, const std::string& dir);

// The analysis of measurements read from `file` (a threads results file): a grid that cannot determine
// the models is the file's fault, so the error names the file, not the --sizes/--threads of a sweep.
model::threads::ThreadsAnalysis analyse_file(model::threads::ThreadsData data,
                                             const std::vector<model::threads::Target>& targets, int holdout,
                                             const std::string& file);

} // namespace roofcast::cli
