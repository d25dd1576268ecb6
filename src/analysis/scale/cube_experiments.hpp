// A directory of Score-P experiments for `roofcast scale`, read as Extra-P's CUBE reader reads one
// (extrap/fileio/file_reader/cube_file_reader2.py): every `*.cubex` (name not starting with '.') in the
// directory's subdirectories is one run; a subdirectory's name carries the point, "<prefix>.<name><value>
// <name><value>...[.r<repetition>]" (e.g. mm.x25y10z1.r1: x = 25, y = 10, z = 1), and the parameters whose
// value varies are the data set's. Every metric with data is read exclusive per call path: with `weak`
// scaling each location's value is one sample (the point's value is their mean), with strong scaling the
// sum over locations is (strong with more than one parameter falls back to weak, with a warning, as in
// Extra-P). Unlike Extra-P, names are not demangled, and a call path missing at some points is noted
// (scale::normalize) rather than merged into its caller.
#pragma once

#include "analysis/scale/dataset.hpp"

#include <string>

namespace roofcast::model::scale {

// True when `dir` holds a subdirectory with a `*.cubex` file.
bool is_cube_experiment_dir(const std::string& dir);

// `scaling`: "weak" or "strong" (InputError(field "scaling") otherwise).
Dataset read_cube_experiments(const std::string& dir, const std::string& scaling);

// The point a subdirectory's name carries, as Extra-P parses it: names and values in order; InputError
// naming the directory when it carries none.
std::vector<std::pair<std::string, double>> cube_experiment_point(const std::string& folder,
                                                                  const std::string& dir);

} // namespace roofcast::model::scale
