// The machine file (YAML, format_version 1): everything roofcast knows about one machine.
// Written by `roofcast machine` (measured), by `roofcast bench --calibrate` (calibrated effective
// values), or by hand for machines one cannot run on (entered). Every figure says where it came from.
// The minimal hand-written form is: format_version, name, compute.peak_gflops.<precision>, and
// levels (closest to the core first, MEM last) each with a name and bandwidth_gbs.
// See docs/formats.md for the full schema.
#pragma once

#include "core/doc.hpp"
#include "core/stats.hpp"

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::core {

inline constexpr int k_machine_format_version = 1;

enum class Provenance { measured, entered, calibrated };
std::string to_string(Provenance p);

struct CacheInfo {
    std::string name; // "L1", "L2", "L3" (data/unified caches only)
    std::uint64_t size_bytes = 0;
    std::uint32_t line_bytes = 64;
    std::optional<int> associativity;
    int shared_by_cores = 1;
    int instances = 1;
    // Size the sweep showed to be usable by one core, when it disagrees with the reported size.
    std::optional<std::uint64_t> effective_size_bytes;
    std::string note;
    // The sweep points around the measured edge (the edge lies between them; the sweep's resolution, not a
    // run-to-run interval), when effective_size_bytes was measured.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> effective_size_range_bytes = std::nullopt;
    std::uint64_t usable_bytes() const { return effective_size_bytes.value_or(size_bytes); }
};

// One data-TLB level for one page size (from cpuid: AMD APM vol. 3 appendix E, Intel SDM vol. 2A CPUID
// leaf 18H). A TLB serving several page sizes with shared entries appears once per page size.
struct TlbInfo {
    std::string level;                // "L1d" | "L2"
    int entries = 0;                  // translations it holds
    std::uint64_t page_bytes = 4096;  // page size those entries map
    std::optional<int> associativity; // ways; absent when fully associative or unknown
};

struct Topology {
    std::string cpu_model;
    // The CPU's identity from cpuid (measure/cpu_signature.hpp): the vendor string ("AuthenticAMD",
    // "GenuineIntel"), the display family and model and the stepping. The model name alone does not tell CPUs
    // apart ("AMD EPYC" is reported by Zen 3 and Zen 4 alike). Empty / absent in hand-written and older
    // files.
    std::string vendor;
    std::optional<int> family;
    std::optional<int> model_number; // `topology.model` in the file
    std::optional<int> stepping;
    std::vector<std::string> isa; // vector ISAs usable here, narrowest first: scalar, sse, avx2, avx512
    int packages = 1;
    int cores = 1;
    int hw_threads = 1;
    int numa_nodes = 1;
    std::vector<CacheInfo> caches; // L1 first
    std::vector<TlbInfo> tlb;      // data TLBs, L1d first; empty when cpuid gives nothing
    std::string huge_pages;        // transparent huge pages: "always" | "madvise" | "never" | "" (unknown)
    // Reach in bytes (entries x page size) of the largest TLB level holding pages of `page_bytes`;
    // nullopt when no TLB of that page size is known.
    std::optional<std::uint64_t> tlb_reach(std::uint64_t page_bytes = 4096) const;
};

struct ComputeCeiling {
    std::string precision; // "double" | "single"
    std::string isa;       // "scalar" | "sse" | "avx2" | "avx512"
    std::string op;        // "fma" | "add" | "mul" | "addmul" | "chain" (one dependent chain, no ILP)
    int threads = 1;
    Summary gflops;
    std::optional<double> ghz; // core clock measured around this ceiling
    Provenance source = Provenance::measured;
};

// A compute ceiling whose samples fall in two groups (split_groups) is the upper group's median, what the
// units attain when no neighbour takes the core (docs/noise.md): sets c.gflops.median and returns the groups;
// nullopt leaves c as it is. Applied where a ceiling is measured and where a machine file is read, whose
// medians are derived again from the samples.
std::optional<SampleGroups> ceiling_from_groups(ComputeCeiling& c);

struct BandwidthPoint {
    std::string kernel; // a name of the kernel catalogue (core/stream_catalogue.hpp)
    int threads = 1;
    std::uint64_t working_set_bytes = 0;
    Summary gbs;                    // requested (application) bytes per second, decimal GB/s
    double moved_per_requested = 1; // bytes actually moved / bytes requested (write-allocate)
};

// How a level's roof was chosen from its samples (docs/machine-file.md, `roof_choice`).
struct RoofChoice {
    std::string method;     // "best_k_median": median of the `best` fastest epochs
    std::size_t epochs = 0; // epochs the roof was chosen from: `bandwidth.samples` and `visit_gbs.samples`
    std::size_t best = 0;   // k
    double tolerance = 0;   // agreement asked of the best k (relative)
    bool settled = false;   // the best k agreed before the cap
    // Roofs over the run's window (measure/roof_visits.hpp): the roof kernel measured again between the
    // run's other measurements; 0 visits = the level's own epochs only.
    std::size_t visits = 0;
    double window_seconds = 0;        // first visit's start to the last's end
    std::optional<Summary> visit_gbs; // every visit's epochs, in time order
    // A private level's roof at more than one thread over (threads x its one-thread roof), issue 22 §2:
    // below k_roof_thread_scaling_min the threads did not get a core each for the run's window.
    std::optional<double> thread_scaling;
};
// The least thread scaling of a private level's roof that is not named at the end of `roofcast machine`.
inline constexpr double k_roof_thread_scaling_min = 0.90;

// Bandwidth as a function of x (working-set or access volume, bytes): piecewise-linear points or
// an affine fit B = a*x + b.
struct BandwidthCurve {
    std::string x = "working_set";                   // "working_set" | "volume"
    std::vector<std::pair<double, double>> points;   // (bytes, GB/s), sorted by bytes
    std::optional<std::pair<double, double>> affine; // (a [GB/s per byte], b [GB/s])
    double eval(double bytes) const;
};

struct Level {
    std::string name;                    // L1, L2, L3, MEM
    std::optional<double> bandwidth_gbs; // the roof the models use (see roof_choice; else a median)
    std::string bandwidth_kernel;        // which kernel measured it ("load", "triad", ...) or ""
    Provenance source = Provenance::entered;
    std::optional<Summary> bandwidth;              // spread of the measured roof
    std::optional<RoofChoice> roof_choice;         // how bandwidth_gbs was chosen (measured roofs)
    std::optional<double> effective_bandwidth_gbs; // calibrated for the mixed model
    // Half-width of its 95 % interval (Student's t over the calibration loops averaged); absent with one
    // loop or where the figure was entered.
    std::optional<double> effective_bandwidth_half_width_gbs;
    std::optional<BandwidthCurve> curve;
    std::optional<std::uint64_t> size_bytes;  // capacity (usable), absent for MEM
    std::vector<BandwidthPoint> measurements; // per kernel and thread count at this level
};

struct ThreadOverhead {
    std::string method; // "omp_parallel" | "std_thread"
    int threads = 1;
    Summary seconds;
};

// One message size of a ping-pong between two ranks: one-way time (half a round trip) per sample.
struct MpiPoint {
    std::uint64_t bytes = 0;
    Summary seconds;
};

// Point-to-point MPI figures: latency (one-way time of the smallest message), bandwidth (of the largest),
// the ping-pong curve, and the Hockney model t(m) = alpha + m / beta fitted to it.
struct MpiFigures {
    Provenance source = Provenance::entered;
    std::optional<Summary> latency_s;
    std::optional<Summary> bandwidth_gbs;
    int ranks = 2;
    std::optional<double> alpha_s;  // Hockney start-up time
    std::optional<double> beta_gbs; // Hockney asymptotic bandwidth
    std::vector<MpiPoint> points;   // smallest message first
    std::string library;            // MPI library version, when measured
    std::string placement;          // where the ranks ran ("2 ranks on one node, one per core")
};

// Validity limits of the mixed memory+cache model's L1-reuse assumptions (see docs/models.md).
struct ValidityLimits {
    double l1_short_per_mem = 10.0;   // memory-bound: L1_short < 10 * n_MEM
    double l1_long_per_traffic = 8.0; // memory-bound: L1_long < 8 * (n_MEM + n_cache)
    double l1_long_cache_bound = 1.0; // cache-bound:  L1_long < 1 * (n_MEM + n_cache)
};

// Bandwidth against the number of concurrent streams at one level (`roofcast machine`, docs/machine-file.md).
struct StreamCapacityPoint {
    int streams = 1; // arrays read (or written) concurrently by each thread
    Summary gbs;     // requested bytes per second, decimal GB/s, all threads
};

struct StreamCapacity {
    std::string level;  // "MEM" or the last cache level's name ("L3")
    std::string access; // "read" | "write"
    int threads = 1;
    std::uint64_t working_set_bytes = 0;     // all streams and threads together
    std::vector<StreamCapacityPoint> points; // fewest streams first
    std::optional<int> capacity;             // largest S keeping >= 90 % of the best S's bandwidth
    // Bandwidth at `streams` relative to the best point (linear interpolation between measured S, the
    // last point's value beyond it, the first point's below it); nullopt without points.
    std::optional<double> fraction_at(int streams) const;
    // The same fraction at the ends of the points' own ranges that favour `streams`: the interpolated largest
    // sample at `streams` over the smallest sample of the best point (the best by median). A shortfall that
    // stays below a limit by this measure lies beyond what the curve's repeats spread; one that does not may
    // be a burst of the host caught by the best point. nullopt without points.
    std::optional<double> upper_fraction_at(int streams) const;
};

struct Machine {
    int format_version = k_machine_format_version;
    std::string name;
    std::string created;          // ISO-8601, measured files only
    std::string roofcast_version; // of the writer
    // measure::k_measurement_revision of the `roofcast machine` that measured the file; absent in entered
    // files and in files measured before revision 8.
    std::optional<int> measurement_revision;
    Provenance source = Provenance::entered;
    std::optional<Topology> topology;
    std::optional<Summary> clock_ghz; // core clock measured during the run
    std::optional<double> tsc_ghz;
    bool clock_drift = false;                       // clock moved by more than 5 % during the run
    std::map<std::string, double> peak_gflops;      // theoretical, per precision
    std::map<std::string, double> effective_gflops; // best attainable, per precision (optional)
    // Mixed model: how far the timed terms overlap, t = (sum of t_i^p)^(1/p) (docs/models.md); absent:
    // complete overlap, t = max(t_i). Calibrated by `roofcast bench --calibrate` or entered; >= 1.
    std::optional<double> overlap_exponent;
    // Its 95 % interval from the calibration's profile likelihood (model/calibration.hpp): low present and
    // high absent means unbounded above (the max fits as well). Absent where p was entered.
    std::optional<double> overlap_exponent_low;
    std::optional<double> overlap_exponent_high;
    // Mixed model: how far the arithmetic overlaps the data transfers, t = (t_data^q + t_C^q)^(1/q) with
    // t_data the p-norm of the data terms (model/overlap.hpp, mixed_time); absent: t_C joins the p-norm.
    // >= 1; calibrated on the overlap loops with arithmetic, with its interval as p's.
    std::optional<double> compute_overlap_exponent;
    std::optional<double> compute_overlap_exponent_low;
    std::optional<double> compute_overlap_exponent_high;
    // Mixed model: how far the cache levels' terms overlap among themselves, where memory's term meets their
    // pc-norm with p (model/overlap.hpp, CacheOverlap); absent: every data term in p's norm. >= 1; calibrated
    // on the overlap loops without arithmetic beside p, kept only where it fits them significantly better.
    std::optional<double> cache_overlap_exponent;
    std::optional<double> cache_overlap_exponent_low;
    std::optional<double> cache_overlap_exponent_high;
    std::vector<ComputeCeiling> ceilings;
    std::vector<Level> levels; // closest to the core first, MEM last
    std::vector<BandwidthPoint> sweep;
    std::vector<ThreadOverhead> thread_overhead;
    std::optional<MpiFigures> mpi;
    std::vector<StreamCapacity> stream_capacity; // per level and access; empty in older files
    ValidityLimits validity;
    std::vector<std::string> notes;

    const Level* level(const std::string& name) const;
    // The stream-capacity measurement of a level ("MEM", "L3") and access ("read", "write"), or nullptr.
    const StreamCapacity* stream_capacity_of(const std::string& level, const std::string& access) const;
    // Theoretical peak of a precision; throws InputError naming compute.peak_gflops when absent.
    double peak(const std::string& precision) const;
    // Effective compute rate (calibrated/entered), else the peak.
    double effective(const std::string& precision) const;
};

// The mixed model's exponents as they are named in the machine file's `compute` section, in order
// (overlap_exponent, _low, _high, then compute_overlap_exponent, _low, _high, then cache_overlap_exponent,
// _low, _high): one list for both writers.
std::vector<std::pair<std::string, std::optional<double>>> exponent_fields(const Machine& m);

// The vector ISAs of topology.isa and compute.ceilings[].isa: a register width in bits (scalar 64, sse
// 128, avx2 256, avx512 512; 0 for a name that is none of these) and the name people read ("AVX-512").
int isa_bits(const std::string& isa);
std::string isa_label(const std::string& isa);

Machine machine_from_yaml(const YamlField& root);
// `unread_keys`, when given, receives the file's keys that no field of the format reads (a misspelt key
// would otherwise be dropped in silence; YamlField::unread_keys). The caller warns or, strict, refuses.
Machine load_machine(const std::string& path, std::vector<std::string>* unread_keys = nullptr);
// Reads the JSON form written by machine_to_json (e.g. embedded in results.json); `label` names it in errors.
// `unread_keys` as load_machine's.
Machine machine_from_json(const nlohmann::json& j, const std::string& label,
                          std::vector<std::string>* unread_keys = nullptr);
std::string machine_to_yaml(const Machine& m);
nlohmann::json machine_to_json(const Machine& m);
void save_machine(const std::string& path, const Machine& m); // atomic

// Summary <-> YAML/JSON helpers shared by every writer of measured figures.
Summary summary_from_yaml(const YamlField& f); // a plain number is an entered one-sample summary
nlohmann::json summary_to_json(const Summary& s);

} // namespace roofcast::core
