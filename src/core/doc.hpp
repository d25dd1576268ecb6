// Typed, context-carrying access to YAML documents. Every accessor knows the file it came from and
// the dotted path of the field ("levels[2].bandwidth_gbs"), so a missing or mistyped field produces
// one InputError line that names file, field and the expected type. NaN and infinities are rejected.
#pragma once

#include "core/range.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace roofcast::core {

// The ranges of the machine file's numeric fields (docs/formats.md): far above any machine built, so that a
// mistyped exponent (1e308 GB/s) or a count that would overflow is an error, not a silent figure.
inline constexpr std::int64_t k_max_count = std::int64_t{1} << 20; // threads, cores, ranks, ways, instances
inline constexpr double k_max_gbs = 1e6;                           // GB/s (1 PB/s)
inline constexpr double k_max_gflops = 1e7;                        // GFLOP/s (10 PFLOP/s on one node)
inline constexpr double k_max_ghz = 100;                           // clock, GHz
inline constexpr double k_max_seconds = 1e4;                       // a measured time, s

// The ranges of work and of whole runs (kernel, results and profile files). A run lasts at most about four
// months, longer than any batch job; it counts at most 1e30 events (flops, bytes, accesses), where an
// exascale machine (1e18 per second) over such a run counts 1e25. A kernel's iteration may stand for a whole
// run (a profiled region is placed as one iteration), so its work has the same bound. A whole machine of
// k_max_count nodes at the node bounds above measures at most k_max_count times their rates.
inline constexpr double k_max_run_seconds = 1e7;
inline constexpr double k_max_events = 1e30;
inline constexpr double k_max_system_gflops = k_max_gflops * static_cast<double>(k_max_count); // 1.05e13
inline constexpr double k_max_system_gbs = k_max_gbs * static_cast<double>(k_max_count);       // 1.05e12
// Iterations of a kernel: a 64-bit loop counter (2^63).
inline constexpr double k_max_iterations = 9223372036854775808.0;
// One array, or the data a kernel touches on one node: 1 PiB, more memory than any node holds.
inline constexpr std::int64_t k_max_array_bytes = std::int64_t{1} << 50;
// One element of an array (array-count form, loop-nest element types): at most a 4 KiB page.
inline constexpr double k_max_element_bytes = 4096;

class YamlField {
public:
    YamlField(const YAML::Node& node, std::string file, std::string path = "");

    // Loads a YAML file (or text, for tests) as the root field; malformed YAML -> InputError with line.
    static YamlField load_file(const std::string& path);
    static YamlField load_text(const std::string& text, const std::string& file_label);

    bool has(const std::string& key) const;
    YamlField operator[](const std::string& key) const; // required member
    std::optional<YamlField> optional(const std::string& key) const;
    YamlField at(std::size_t index) const; // sequence element
    std::size_t size() const;              // sequence length (throws if not a sequence)
    std::vector<std::string> keys() const; // map keys (throws if not a map)

    bool is_map() const { return m_node.IsMap(); }
    bool is_sequence() const { return m_node.IsSequence(); }
    bool is_scalar() const { return m_node.IsScalar(); }

    double as_double() const;       // finite number
    double as_positive() const;     // finite, > 0
    double as_non_negative() const; // finite, >= 0
    // A finite number in `range` (core/range.hpp), or an error in the range's one wording.
    double as_in(const Range& range) const;
    // A finite number in (0, max]: a physical figure bounded by what a machine can have (limits below).
    double as_positive_at_most(double max) const;
    // A finite number in [0, max] (per-iteration counts: flops, bytes, accesses).
    double as_non_negative_at_most(double max) const;
    // A whole number in [lo, hi] (counts: threads, cores, ranks, ways).
    std::int64_t as_int_in(std::int64_t lo, std::int64_t hi) const;
    std::int64_t as_int() const;
    std::uint64_t as_size() const; // integer bytes or "32KiB"-style string
    bool as_bool() const;
    std::string as_string() const;

    double get_double(const std::string& key, double fallback) const;
    std::string get_string(const std::string& key, const std::string& fallback) const;

    const std::string& file() const { return m_file; }
    const std::string& path() const { return m_path; }
    const YAML::Node& node() const { return m_node; }
    [[noreturn]] void fail(const std::string& expected) const;

    // Map keys below this field that no reader asked for (has, [], optional, get_*, keys), as paths
    // ("levels[0].bandwith_gbs"), in document order; a key not read is not descended into. Called after a
    // reader has read the document, it names misspelt keys that would otherwise be dropped in silence.
    std::vector<std::string> unread_keys() const;

private:
    // A field of the same document: it shares the record of keys read.
    YamlField(const YAML::Node& node, std::string file, std::string path,
              std::shared_ptr<std::set<std::string>> read);
    void mark(const std::string& key) const;
    YAML::Node m_node;
    std::string m_file;
    std::string m_path;
    // Paths of the keys read so far, shared by every field of one document.
    std::shared_ptr<std::set<std::string>> m_read;
};

} // namespace roofcast::core
