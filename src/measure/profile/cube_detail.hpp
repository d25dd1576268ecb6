// Internal to the CUBE4 reader (cube.cpp, cube_archive.cpp): a metric's index and data files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofcast::measure::profile {

// The tree indices of <id>.index (each < nodes); `swapped` tells whether its byte order is the other one.
std::vector<std::int32_t> read_cube_index(const std::string& data, const std::string& file,
                                          const std::string& member, std::size_t nodes, bool& swapped);
// The bytes of one value of a CUBE dtype ("DOUBLE", "UINT64", ...), 0 for one that is not a single number.
std::size_t cube_dtype_size(const std::string& dtype);
// `values` numbers of `dtype` from <id>.data (plain or zlib-compressed).
std::vector<double> read_cube_data(const std::string& data, const std::string& file,
                                   const std::string& member, const std::string& dtype, std::size_t values,
                                   bool swapped);

} // namespace roofcast::measure::profile
