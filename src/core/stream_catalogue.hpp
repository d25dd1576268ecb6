// The catalogue of bandwidth kernels: one descriptor per streaming kernel of `roofcast machine` and
// `roofcast bandwidth` (name, what one element asks for and moves, arrays, flops, store kind, whether
// and how strongly it is preferred as a level's roof, help line). Every layer derives what it needs
// from this one table: the measurement list and bodies (measure/stream), the names a machine file may
// carry (core/machine), the write fraction the models match a workload against (model/bandwidth), the
// roof kernel of a level (measure/machine_run) and the help text of the CLI. Adding a kernel is its
// body in measure/stream_kernels.inc plus one entry here (docs/extending.md).
//
// It sits in core because the machine-file schema (core) validates kernel names and every layer above
// reads it; it holds data only, no code that measures.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace roofcast::core {

enum class StreamKernel { load, store, copy, triad, update, copy_nt, triad_nt };

// What one element (one index i, double precision) of a kernel asks for and moves.
struct StreamDescriptor {
    StreamKernel kernel;
    std::string_view name;
    std::string_view formula;
    int arrays;         // distinct arrays (streams) making up the working set
    int bytes_read;     // requested reads per element
    int bytes_written;  // requested writes per element
    int write_allocate; // extra bytes read to allocate written lines (0 with non-temporal stores
                        // or when the written line was already read, as in update)
    int flops;          // floating-point operations per element
    bool nontemporal;   // stores bypass the caches
    // Rank as a level's roof kernel: 0 is the roof (the STREAM triad, "Level roof = all-cores triad"
    // in docs/design.md); a level without it takes the measured kernel with the lowest rank.
    int roof_rank;
    std::string_view help; // one line for the CLI's help text
};

inline constexpr std::size_t k_stream_kernel_count = 7;

// The one table of kernels, in the order they are reported. Write-allocate: a store to a line that is
// not resident first reads it (read-for-ownership), so copy moves 8 B read + 8 B allocate + 8 B written
// per 16 B requested; non-temporal stores write full lines without allocating them; update writes the
// line it read. (STREAM counts requested bytes only: McCalpin, "Memory Bandwidth and Machine Balance",
// 1995.)
inline constexpr std::array<StreamDescriptor, k_stream_kernel_count> k_stream_catalogue{{
    {StreamKernel::load, "load", "s += a[i]", 1, 8, 0, 0, 1, false, 2, "reads one array (a sum)"},
    {StreamKernel::store, "store", "a[i] = s", 1, 0, 8, 8, 0, false, 4, "writes one array"},
    {StreamKernel::copy, "copy", "a[i] = b[i]", 2, 8, 8, 8, 0, false, 1, "one read and one write stream"},
    {StreamKernel::triad, "triad", "a[i] = b[i] + s*c[i]", 3, 16, 8, 8, 2, false, 0,
     "two read and one write stream (STREAM triad, the level roof)"},
    {StreamKernel::update, "update", "a[i] = s*a[i]", 1, 8, 8, 0, 1, false, 3,
     "reads and rewrites one array"},
    {StreamKernel::copy_nt, "copy_nt", "a[i] = b[i] (non-temporal store)", 2, 8, 8, 0, 0, true, 6,
     "copy with non-temporal stores"},
    {StreamKernel::triad_nt, "triad_nt", "a[i] = b[i] + s*c[i] (non-temporal store)", 3, 16, 8, 0, 2, true, 5,
     "triad with non-temporal stores"},
}};

// The descriptor of a kernel name, if the catalogue has one.
const StreamDescriptor* find_stream_kernel(std::string_view name);

// Fraction of requested bytes that are written (load 0, copy 1/2, triad 1/3, store 1): what the models
// compare with a workload's read/write mix to pick the measured bandwidth that matches it.
double write_fraction(const StreamDescriptor& d);

// Kernel names in catalogue order joined by `separator` ("load,store,...").
std::string stream_kernel_names(std::string_view separator);

// Kernel names in roof preference order (roof_rank ascending): the roof kernel first.
const std::array<std::string_view, k_stream_kernel_count>& roof_kernel_preference();

} // namespace roofcast::core
