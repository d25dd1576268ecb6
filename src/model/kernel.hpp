// Kernel descriptions (kernel file, YAML, format_version 1) and the derivation of the data traffic a
// kernel causes between the levels of a machine's memory hierarchy.
//
// A kernel is described per loop iteration in one of three forms (see docs/formats-predict.md):
//   1. explicit:     flops_per_iteration and bytes_per_iteration per level;
//   2. array counts: element accesses served by MEM / a cache level, and L1 reuses at short and long
//                    distance (a store to memory counts twice for write-allocate unless nt_stores);
//   3. loop nest:    arrays, loop bounds and the accesses of the body; traffic is derived with layer
//                    conditions from the machine's cache sizes.
// Contract: derive_traffic() is THE function that turns any form into bytes per level; every model,
// the benchmark suite and the reports use it, so a kernel's traffic is computed in one place only.
// Bytes of a level are those moved between that level and the level closer to the core (the L1 entry
// is what the core loads and stores). Bad input throws core::InputError naming file and field.
#pragma once

#include "core/doc.hpp"
#include "core/machine.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofcast::model {

inline constexpr int k_kernel_format_version = 1;
// Fraction of a cache that the layer conditions may fill (Stengel et al., ICS 2015, Sect. 3.2: "half the
// cache" keeps the condition robust against imperfect LRU replacement and other data).
inline constexpr double k_default_safety_factor = 0.5;

// One access of the loop body: array[index_0 + offsets[0]][index_1 + offsets[1]]...
// `indices` names the loop index of each array dimension; empty means the loop's innermost indices
// in order (an access to a 3-D array in a k,j,i nest is indexed [k][j][i]).
struct ArrayAccess {
    std::string array;
    std::vector<long> offsets;
    bool write = false;
    std::vector<std::string> indices;
};

struct ArrayDecl {
    std::string name;
    std::string type = "double";
    std::vector<long> dims; // extents, outermost first (row-major, last dimension contiguous)
};

struct LoopNest {
    std::vector<std::string> indices; // outermost first
    std::vector<long> bounds;         // trip count of each loop, outermost first
    std::vector<ArrayDecl> arrays;
    std::vector<ArrayAccess> accesses;
    double safety_factor = k_default_safety_factor;
    // Arrays stored interleaved (array merging, Minami et al. §7): each group is one array of structures
    // in memory. The traffic is that of its members; the stream analysis (model/access_streams.hpp)
    // counts each group as one stream.
    std::vector<std::vector<std::string>> interleaved;
};

// Element accesses per iteration by where they are served: "MEM", a cache level ("L2", "L3"),
// and L1 reuses "L1_short" (neighbouring element) and "L1_long" (distant element).
struct ArrayCounts {
    std::map<std::string, double> counts;
};

struct KernelSpec {
    std::string name;
    std::string precision = "double"; // selects the machine's compute peak
    double flops_per_iteration = 0;
    std::optional<double> iterations;             // total iterations (gives total time); see iterations_of()
    std::optional<double> working_set_bytes;      // data touched (for bandwidth curves); see working_set_of()
    bool nt_stores = false;                       // non-temporal stores: no write-allocate
    double element_bytes = 8;                     // array-count form
    std::map<std::string, double> explicit_bytes; // form 1: level -> bytes per iteration
    std::optional<ArrayCounts> arrays;            // form 2
    std::optional<LoopNest> loop;                 // form 3
    std::string source_file;                      // for error messages
};

KernelSpec kernel_from_yaml(const core::YamlField& root);
// `unread_keys` as core::load_machine's: keys of the file that no field of the format reads.
KernelSpec load_kernel(const std::string& path, std::vector<std::string>* unread_keys = nullptr);
// Total iterations: `iterations`, else the product of a loop nest's trip counts, else unknown.
std::optional<double> iterations_of(const KernelSpec& k);
// Bytes the kernel touches: `working_set_bytes`, else the sum of a loop nest's arrays, else unknown.
std::optional<double> working_set_of(const KernelSpec& k);
// Structural checks that need no machine (counts finite and non-negative, loop nest well formed);
// kernel_from_yaml calls it, programmatic declarations (the built-in suite) should too.
void check_kernel(const KernelSpec& k);

// Per-level traffic per iteration: level -> bytes between that level and the one closer to the core,
// for every level of the machine, closest to the core first. `accesses` holds element accesses per
// iteration in the array-count vocabulary (MEM, cache levels, L1_short, L1_long) when the form allows
// it (array counts given or derived from a loop nest); the mixed model's validity checks use them.
// `notes` say which layer condition held where, and which bytes were assumed.
struct Traffic {
    std::map<std::string, double> bytes;
    std::map<std::string, double> accesses;
    std::map<std::string, double> write_bytes; // of `bytes`, those stored (loop nests); empty when unknown
    std::vector<std::string> notes;
};

// threads: threads sharing the machine (0 = all cores); shared caches are divided among the threads
// that share one instance. Throws InputError for a level the machine lacks, traffic zero at every level,
// unusable loop nests, or cache sizes missing when a loop nest needs them.
Traffic derive_traffic(const KernelSpec& k, const core::Machine& m, int threads);
// The same, naming the machine file as `machine_label` in errors about the machine (missing cache sizes).
Traffic derive_traffic(const KernelSpec& k, const core::Machine& m, int threads,
                       const std::string& machine_label);

// Bytes of one element of a declared type ("double" 8, "float" 4, "int32" 4, "int64" 8, ...);
// throws InputError(file, field) for an unknown type.
double type_bytes(const std::string& type, const std::string& file, const std::string& field);

} // namespace roofcast::model
