// Helpers shared by the suite catalogue's rows (suite_catalogue.cpp: the STREAM, calibration, overlap and
// mixed-family loops; suite_apps.cpp: the application kernels). Internal to the model layer.
#pragma once

#include "core/machine.hpp"
#include "experiment/suite_catalogue.hpp"
#include "model/kernel.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace roofcast::model::suite_rows {

inline constexpr const char* k_source = "built-in suite";

struct Sizes {
    double mem_working_set = 0; // bytes that certainly do not fit any cache
    std::vector<CacheLevel> caches;
};

std::size_t round_up(double v, std::size_t multiple);
using core::find_cache;
ArrayAccess read(const std::string& array, std::vector<long> offsets);
ArrayAccess write(const std::string& array, std::vector<long> offsets);
// A kernel spec of the built-in suite: name, flops and iterations per call, element size from the precision.
KernelSpec base_spec(const std::string& name, double flops, double iterations,
                     const std::string& precision = "double");

// The application kernels (Jacobi, Himeno, SpMV, matmul, each untuned and tuned, and norm2), appended to
// `out`.
void add_apps(std::vector<SuiteKernel>& out, const core::Machine& m, const Sizes& s, int threads);

} // namespace roofcast::model::suite_rows
