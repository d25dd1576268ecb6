#include "model/kernel.hpp"

#include "core/error.hpp"
#include "core/range.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <set>

namespace roofcast::model {

namespace {

const std::set<std::string> k_l1_reuse_keys{"L1_short", "L1_long"};

std::string level_list(const core::Machine& m) {
    std::vector<std::string> names;
    for (const auto& l : m.levels)
        names.push_back(l.name);
    return fmt::format("{}", fmt::join(names, ", "));
}

std::string file_of(const KernelSpec& k) {
    return k.source_file.empty() ? k.name : k.source_file;
}

// A per-iteration figure in [0, max] (docs/formats.md, "Kernel file"), the message of YamlField's check.
void check_count(const KernelSpec& k, const std::string& field, double v, double max) {
    if (!std::isfinite(v))
        throw core::InputError(file_of(k), field, "expected a finite number, got " + fmt::format("{}", v));
    if (const auto range = core::Range::non_negative_at_most(max); !range.contains(v))
        throw core::InputError(file_of(k), field, range.expected(fmt::format("{}", v)));
}

// The largest offset a subscript may carry: no array is longer than k_max_array_bytes, so an offset past
// it misses every array (and the linearised offsets of the layer conditions stay far from overflow).
constexpr long k_max_offset = core::k_max_array_bytes;

// Parses one access of the loop body, "b[k][j][i+1]": each subscript must be <loop index> or
// <loop index> +/- <integer> (an affine, unit-stride index); anything else is rejected by name.
ArrayAccess parse_access(const core::YamlField& f, const std::vector<std::string>& loop_indices, bool write) {
    const std::string text = f.as_string();
    ArrayAccess a;
    a.write = write;
    std::size_t pos = 0;
    while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
        ++pos;
    a.array = text.substr(0, pos);
    if (a.array.empty())
        f.fail("expected an access like 'a[k][j][i-1]', got '" + text + "'");
    while (pos < text.size()) {
        if (text[pos] == ' ') {
            ++pos;
            continue;
        }
        if (text[pos] != '[')
            f.fail("expected '[' after the array name in '" + text + "'");
        const std::size_t close = text.find(']', pos);
        if (close == std::string::npos)
            f.fail("missing ']' in '" + text + "'");
        std::string expr;
        for (char c : text.substr(pos + 1, close - pos - 1))
            if (c != ' ')
                expr += c;
        pos = close + 1;
        // Split into signed terms.
        std::vector<std::pair<int, std::string>> terms;
        int sign = 1;
        std::string cur;
        for (std::size_t i = 0; i <= expr.size(); ++i) {
            const char c = i < expr.size() ? expr[i] : '\0';
            if (c == '+' || c == '-' || c == '\0') {
                if (!cur.empty())
                    terms.emplace_back(sign, cur);
                else if (c == '\0' || i > 0)
                    f.fail("malformed index '" + expr + "' in '" + text + "'");
                sign = c == '-' ? -1 : 1;
                cur.clear();
            } else {
                cur += c;
            }
        }
        std::string index;
        long offset = 0;
        for (const auto& [s, t] : terms) {
            const bool is_int = std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(c); });
            if (is_int) {
                // More than 16 digits exceed k_max_offset (2^50 has 16): refused before std::stol can
                // overflow.
                const std::size_t lead = std::min(t.find_first_not_of('0'), t.size() - 1);
                const long term = t.size() - lead <= 16 ? std::stol(t.substr(lead)) : k_max_offset + 1;
                offset += s * term;
                if (offset > k_max_offset || offset < -k_max_offset)
                    f.fail(fmt::format("offset out of range in '{}': expected offsets of at most {} elements "
                                       "(2^50) in magnitude",
                                       text, k_max_offset));
                continue;
            }
            const bool is_name = std::all_of(t.begin(), t.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
            });
            if (!is_name || s < 0 || !index.empty())
                f.fail("non-affine or strided index '" + expr + "' in '" + text +
                       "': expected <loop index> or <loop index> +/- <integer>");
            if (std::find(loop_indices.begin(), loop_indices.end(), t) == loop_indices.end())
                f.fail("unknown loop index '" + t + "' in '" + text +
                       "' (loop indices: " + fmt::format("{}", fmt::join(loop_indices, ", ")) + ")");
            index = t;
        }
        if (index.empty())
            f.fail("constant index '" + expr + "' in '" + text +
                   "': every subscript must follow a loop index (<index> +/- <integer>)");
        a.indices.push_back(index);
        a.offsets.push_back(offset);
    }
    if (a.offsets.empty())
        f.fail("expected subscripts in '" + text + "'");
    return a;
}

LoopNest loop_from_yaml(const core::YamlField& f) {
    LoopNest n;
    const core::YamlField idx = f["indices"];
    for (std::size_t i = 0; i < idx.size(); ++i)
        n.indices.push_back(idx.at(i).as_string());
    const core::YamlField b = f["bounds"];
    if (b.size() != n.indices.size())
        b.fail(
            fmt::format("expected {} trip counts (one per loop index), got {}", n.indices.size(), b.size()));
    for (std::size_t i = 0; i < b.size(); ++i) {
        const auto v = b.at(i).as_int(); // their product is bounded by check_loop
        if (v < 1)
            b.at(i).fail(fmt::format("expected a trip count of at least 1, got {}", v));
        n.bounds.push_back(static_cast<long>(v));
    }
    if (auto s = f.optional("safety_factor")) {
        n.safety_factor = s->as_positive();
        if (n.safety_factor > 1)
            s->fail("expected a fraction of the cache in (0, 1]");
    }
    const core::YamlField arrays = f["arrays"];
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const core::YamlField a = arrays.at(i);
        ArrayDecl d;
        d.name = a["name"].as_string();
        d.type = a.get_string("type", "double");
        type_bytes(d.type, a.file(), a.path() + ".type");
        const core::YamlField dims = a["dims"];
        for (std::size_t k = 0; k < dims.size(); ++k)
            d.dims.push_back(static_cast<long>(dims.at(k).as_int_in(1, core::k_max_array_bytes)));
        n.arrays.push_back(d);
    }
    for (const char* key : {"reads", "writes"}) {
        if (auto list = f.optional(key))
            for (std::size_t i = 0; i < list->size(); ++i)
                n.accesses.push_back(parse_access(list->at(i), n.indices, std::string(key) == "writes"));
    }
    if (auto groups = f.optional("interleaved"))
        for (std::size_t g = 0; g < groups->size(); ++g) {
            const core::YamlField names = groups->at(g);
            std::vector<std::string> group;
            for (std::size_t i = 0; i < names.size(); ++i)
                group.push_back(names.at(i).as_string());
            n.interleaved.push_back(std::move(group));
        }
    return n;
}

void check_loop(const KernelSpec& k, const LoopNest& n) {
    const std::string file = file_of(k);
    if (n.indices.empty())
        throw core::InputError(file, "loop.indices", "expected at least one loop index");
    if (n.bounds.size() != n.indices.size())
        throw core::InputError(file, "loop.bounds", "expected one trip count per loop index");
    double trips = 1;
    for (long b : n.bounds) {
        if (b < 1)
            throw core::InputError(file, "loop.bounds", fmt::format("expected trip counts >= 1, got {}", b));
        trips *= static_cast<double>(b);
    }
    if (trips > core::k_max_iterations)
        throw core::InputError(file, "loop.bounds",
                               fmt::format("expected trip counts whose product (the iterations) is at most "
                                           "2^63 = {:g}, got {:g}",
                                           core::k_max_iterations, trips));
    for (std::size_t i = 0; i < n.arrays.size(); ++i) {
        const ArrayDecl& d = n.arrays[i];
        const std::string field = fmt::format("loop.arrays[{}].dims", i);
        if (d.dims.empty())
            throw core::InputError(file, field, "expected at least one extent");
        double bytes = type_bytes(d.type, file, fmt::format("loop.arrays[{}].type", i));
        for (long e : d.dims) {
            if (e < 1)
                throw core::InputError(file, field, fmt::format("expected extents >= 1, got {}", e));
            bytes *= static_cast<double>(e);
        }
        if (bytes > static_cast<double>(core::k_max_array_bytes))
            throw core::InputError(
                file, field,
                fmt::format("expected an array of at most 2^50 bytes (1 PiB), got {:g} bytes "
                            "(array '{}')",
                            bytes, d.name));
    }
    if (!(n.safety_factor > 0 && n.safety_factor <= 1))
        throw core::InputError(file, "loop.safety_factor", "expected a fraction of the cache in (0, 1]");
    if (n.accesses.empty())
        throw core::InputError(file, "loop.reads", "expected at least one access in the loop body");
    std::set<std::string> grouped;
    for (std::size_t g = 0; g < n.interleaved.size(); ++g) {
        const std::string field = fmt::format("loop.interleaved[{}]", g);
        if (n.interleaved[g].size() < 2)
            throw core::InputError(file, field, "expected a group of at least two arrays stored interleaved");
        for (const auto& name : n.interleaved[g]) {
            if (std::none_of(n.arrays.begin(), n.arrays.end(),
                             [&](const ArrayDecl& d) { return d.name == name; }))
                throw core::InputError(file, field, "array '" + name + "' is not declared in loop.arrays");
            if (!grouped.insert(name).second)
                throw core::InputError(file, field, "array '" + name + "' is in two interleaved groups");
        }
    }
    const std::string& inner = n.indices.back();
    std::map<std::string, std::vector<std::string>> pattern; // array -> loop index per dimension
    for (std::size_t i = 0; i < n.accesses.size(); ++i) {
        const ArrayAccess& a = n.accesses[i];
        const std::string field = fmt::format("loop.{}[{}]", a.write ? "writes" : "reads", i);
        auto decl = std::find_if(n.arrays.begin(), n.arrays.end(),
                                 [&](const ArrayDecl& d) { return d.name == a.array; });
        if (decl == n.arrays.end())
            throw core::InputError(file, field, "array '" + a.array + "' is not declared in loop.arrays");
        if (a.offsets.size() != decl->dims.size())
            throw core::InputError(file, field,
                                   fmt::format("array '{}' has {} dimensions, the access gives {} subscripts",
                                               a.array, decl->dims.size(), a.offsets.size()));
        for (std::size_t d = 0; d < a.offsets.size(); ++d)
            if (a.offsets[d] <= -decl->dims[d] || a.offsets[d] >= decl->dims[d])
                throw core::InputError(file, field,
                                       fmt::format("array '{}': offset {} in dimension {} misses the array "
                                                   "(expected an offset of magnitude below its extent {})",
                                                   a.array, a.offsets[d], d + 1, decl->dims[d]));
        std::vector<std::string> idx = a.indices;
        if (idx.empty()) {
            if (a.offsets.size() > n.indices.size())
                throw core::InputError(file, field, "more subscripts than loop indices");
            idx.assign(n.indices.end() - static_cast<long>(a.offsets.size()), n.indices.end());
        }
        if (idx.size() != a.offsets.size())
            throw core::InputError(file, field, "expected one loop index per subscript");
        for (std::size_t d = 0; d < idx.size(); ++d) {
            if (std::find(n.indices.begin(), n.indices.end(), idx[d]) == n.indices.end())
                throw core::InputError(file, field,
                                       "unknown loop index '" + idx[d] + "' (loop indices: " +
                                           fmt::format("{}", fmt::join(n.indices, ", ")) + ")");
            if (std::count(idx.begin(), idx.end(), idx[d]) > 1)
                throw core::InputError(file, field, "loop index '" + idx[d] + "' subscripts two dimensions");
        }
        // Layer conditions reason about streams along the innermost loop: the innermost index must
        // subscript the contiguous (last) dimension, otherwise each iteration touches a new line.
        if (idx.back() != inner)
            throw core::InputError(file, field,
                                   "array '" + a.array + "': the innermost loop index '" + inner +
                                       "' must subscript the last (contiguous) dimension");
        auto [it, inserted] = pattern.emplace(a.array, idx);
        if (!inserted && it->second != idx)
            throw core::InputError(file, field,
                                   "array '" + a.array +
                                       "' is subscripted by different loop indices in different accesses; "
                                       "layer conditions need constant distances between accesses");
    }
}

} // namespace

double type_bytes(const std::string& type, const std::string& file, const std::string& field) {
    static const std::map<std::string, double> sizes{
        {"double", 8},  {"float", 4},   {"int32", 4}, {"int64", 8},   {"int", 4},
        {"float64", 8}, {"float32", 4}, {"half", 2},  {"float16", 2}, {"complex_double", 16}};
    auto it = sizes.find(type);
    if (it == sizes.end())
        throw core::InputError(file, field,
                               "unknown element type '" + type +
                                   "', expected double, float, int32, int64, int, float64, float32, half, "
                                   "float16 or complex_double");
    return it->second;
}

void check_kernel(const KernelSpec& k) {
    const std::string file = file_of(k);
    check_count(k, "flops_per_iteration", k.flops_per_iteration, core::k_max_events);
    if (k.precision != "double" && k.precision != "single")
        throw core::InputError(file, "precision", "expected double or single, got '" + k.precision + "'");
    if (k.iterations &&
        !(std::isfinite(*k.iterations) && *k.iterations > 0 && *k.iterations <= core::k_max_iterations))
        throw core::InputError(file, "iterations",
                               fmt::format("expected a positive number of iterations at most 2^63 = {:g}",
                                           core::k_max_iterations));
    if (k.working_set_bytes && !(std::isfinite(*k.working_set_bytes) && *k.working_set_bytes >= 0 &&
                                 *k.working_set_bytes <= static_cast<double>(core::k_max_array_bytes)))
        throw core::InputError(file, "working_set", "expected a size of at most 2^50 bytes (1 PiB)");
    const int forms = (k.explicit_bytes.empty() ? 0 : 1) + (k.arrays ? 1 : 0) + (k.loop ? 1 : 0);
    if (forms != 1)
        throw core::InputError(file, "(top level)",
                               forms == 0 ? "expected one of bytes_per_iteration, arrays or loop"
                                          : "expected only one of bytes_per_iteration, arrays or loop");
    for (const auto& [level, v] : k.explicit_bytes)
        check_count(k, "bytes_per_iteration." + level, v, core::k_max_events);
    if (k.arrays) {
        if (!(std::isfinite(k.element_bytes) && k.element_bytes > 0 &&
              k.element_bytes <= core::k_max_element_bytes))
            throw core::InputError(
                file, "element_bytes",
                fmt::format("expected a positive number of bytes at most {:g}", core::k_max_element_bytes));
        if (k.arrays->counts.empty())
            throw core::InputError(file, "arrays", "expected at least one count (MEM, L2, L1_short, ...)");
        for (const auto& [level, v] : k.arrays->counts)
            check_count(k, "arrays." + level, v, core::k_max_events);
    }
    if (k.loop)
        check_loop(k, *k.loop);
}

KernelSpec kernel_from_yaml(const core::YamlField& root) {
    KernelSpec k;
    k.source_file = root.file();
    const auto version = root["format_version"].as_int();
    if (version != k_kernel_format_version)
        root["format_version"].fail(
            fmt::format("unsupported version {}, expected {}", version, k_kernel_format_version));
    k.name = root["name"].as_string();
    k.precision = root.get_string("precision", "double");
    if (k.precision != "double" && k.precision != "single")
        root["precision"].fail("expected double or single, got '" + k.precision + "'");
    k.flops_per_iteration = root["flops_per_iteration"].as_non_negative_at_most(core::k_max_events);
    if (auto it = root.optional("iterations"))
        k.iterations = it->as_positive_at_most(core::k_max_iterations);
    if (auto w = root.optional("working_set")) {
        const std::uint64_t bytes = w->as_size();
        if (bytes > static_cast<std::uint64_t>(core::k_max_array_bytes))
            w->fail(fmt::format("expected a size of at most 2^50 bytes (1 PiB), got {}", w->as_string()));
        k.working_set_bytes = static_cast<double>(bytes);
    }
    if (auto nt = root.optional("nt_stores"))
        k.nt_stores = nt->as_bool();
    if (auto b = root.optional("bytes_per_iteration"))
        for (const auto& level : b->keys())
            k.explicit_bytes[level] = (*b)[level].as_non_negative_at_most(core::k_max_events);
    if (auto a = root.optional("arrays")) {
        ArrayCounts c;
        for (const auto& key : a->keys())
            c.counts[key] = (*a)[key].as_non_negative_at_most(core::k_max_events);
        k.arrays = c;
        if (auto e = root.optional("element_bytes"))
            k.element_bytes = e->as_positive_at_most(core::k_max_element_bytes);
        else
            k.element_bytes = k.precision == "single" ? 4 : 8;
    } else if (auto e = root.optional("element_bytes")) {
        k.element_bytes = e->as_positive_at_most(core::k_max_element_bytes);
    }
    if (auto l = root.optional("loop"))
        k.loop = loop_from_yaml(*l);
    check_kernel(k);
    return k;
}

std::optional<double> iterations_of(const KernelSpec& k) {
    if (k.iterations || !k.loop)
        return k.iterations;
    double n = 1;
    for (long b : k.loop->bounds)
        n *= static_cast<double>(b);
    return n;
}

std::optional<double> working_set_of(const KernelSpec& k) {
    if (k.working_set_bytes || !k.loop)
        return k.working_set_bytes;
    double ws = 0;
    for (const auto& a : k.loop->arrays) {
        double e = type_bytes(a.type, file_of(k), "loop.arrays");
        for (long d : a.dims)
            e *= static_cast<double>(d);
        ws += e;
    }
    return ws;
}

KernelSpec load_kernel(const std::string& path, std::vector<std::string>* unread_keys) {
    const core::YamlField root = core::YamlField::load_file(path);
    KernelSpec k = kernel_from_yaml(root);
    if (unread_keys)
        *unread_keys = root.unread_keys();
    return k;
}

namespace {

int resolve(const core::Machine& m, int threads) {
    if (threads > 0)
        return threads;
    return m.topology ? m.topology->cores : 1;
}

Traffic explicit_traffic(const KernelSpec& k, const core::Machine& m) {
    Traffic t;
    for (const auto& [level, v] : k.explicit_bytes) {
        (void)v;
        if (!m.level(level))
            throw core::InputError(file_of(k), "bytes_per_iteration." + level,
                                   "the machine '" + m.name + "' has no level '" + level +
                                       "' (levels: " + level_list(m) + ")");
    }
    // A level the kernel does not list passes on what the next listed level farther from the core
    // delivers (data from below flows through it); nothing listed farther out means no traffic there.
    std::optional<double> from_below;
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it) {
        auto given = k.explicit_bytes.find(it->name);
        if (given != k.explicit_bytes.end()) {
            t.bytes[it->name] = given->second;
            from_below = given->second;
        } else if (from_below) {
            t.bytes[it->name] = *from_below;
            t.notes.push_back(
                fmt::format("{}: not given, assumed {} B/iteration passing through from the level "
                            "below",
                            it->name, *from_below));
        } else {
            t.bytes[it->name] = 0;
            t.notes.push_back(it->name + ": not given and nothing listed below it, assumed 0 B/iteration");
        }
    }
    return t;
}

// Array counts: a level serves its own accesses plus everything that passes through it from below, so
// bytes(level) = element_bytes * (n_MEM + sum of n of the cache levels between MEM and this level);
// the level closest to the core also serves the L1 reuses.
Traffic count_traffic(const KernelSpec& k, const core::Machine& m) {
    Traffic t;
    const auto& counts = k.arrays->counts;
    for (const auto& [key, v] : counts) {
        (void)v;
        const bool is_reuse = k_l1_reuse_keys.count(key) > 0;
        const bool is_level = m.level(key) != nullptr && key != m.levels.front().name;
        if (!is_reuse && !is_level)
            throw core::InputError(file_of(k), "arrays." + key,
                                   "the machine '" + m.name + "' has no level '" + key +
                                       "' that can serve accesses (expected MEM, " +
                                       "a cache level other than " + m.levels.front().name +
                                       ", L1_short or L1_long; levels: " + level_list(m) + ")");
    }
    auto count = [&](const std::string& key) {
        auto it = counts.find(key);
        return it == counts.end() ? 0.0 : it->second;
    };
    double through = 0;
    for (auto it = m.levels.rbegin(); it != m.levels.rend(); ++it) {
        through += count(it->name);
        if (&*it == &m.levels.front())
            through += count("L1_short") + count("L1_long");
        t.bytes[it->name] = k.element_bytes * through;
    }
    t.accesses = counts;
    return t;
}

// ---- Layer conditions -------------------------------------------------------------------------------
// Stengel, Treibig, Hager & Wellein, "Quantifying performance bottlenecks of stencil computations using
// the Execution-Cache-Memory model", ICS 2015, Sect. 3.2, in the general form of Kerncraft (Hammer,
// Eitzinger, Hager & Wellein, "Kerncraft: A Tool for Analytic Performance Modeling of Loop Kernels",
// Tools for HPC 2016 / 2017, layer-condition predictor):
//   - linearise every access of an array to an element offset (row-major strides) and sort them;
//   - the reuse distance of an access is the offset gap to the next access of the same array that
//     touches the same data earlier; the leading access of each array has distance infinity;
//   - a cache keeps every reuse of distance <= t when
//         sum_{d <= t} d  +  t * #{d > t}  <=  safety * capacity           (all in bytes)
//     (the hits' distances must stay resident, and every stream that misses occupies t bytes);
//   - with the largest such t, each access of distance > t is a stream from the next level: a read
//     stream costs one element per iteration, a written array one element stored back, and, without
//     non-temporal stores, one more element loaded for write-allocate.
struct Distance {
    double bytes = std::numeric_limits<double>::infinity();
    int layer = 0; // loop depth of the reuse, 1 = innermost loop ("1-D" condition), inf: 0
};

struct ArrayStreams {
    double element_bytes = 8;
    std::vector<Distance> all;   // reads and writes (cache requirement)
    std::vector<Distance> loads; // reads, plus writes unless NT stores (write-allocate)
    std::vector<Distance> stores;
    std::vector<Distance> reads;
};

std::vector<Distance> distances(const std::vector<std::pair<long, std::vector<long>>>& sorted_desc,
                                const std::vector<std::string>& idx, const LoopNest& n,
                                double element_bytes) {
    std::vector<Distance> out;
    for (std::size_t i = 0; i < sorted_desc.size(); ++i) {
        Distance d;
        if (i > 0) {
            d.bytes = static_cast<double>(sorted_desc[i - 1].first - sorted_desc[i].first) * element_bytes;
            // The reuse belongs to the outermost loop whose index offset differs between the accesses.
            for (std::size_t dim = 0; dim < idx.size(); ++dim) {
                if (sorted_desc[i - 1].second[dim] != sorted_desc[i].second[dim]) {
                    const auto pos =
                        std::find(n.indices.begin(), n.indices.end(), idx[dim]) - n.indices.begin();
                    d.layer = static_cast<int>(n.indices.size()) - static_cast<int>(pos);
                    break;
                }
            }
        }
        out.push_back(d);
    }
    return out;
}

std::vector<ArrayStreams> streams_of(const KernelSpec& k) {
    const LoopNest& n = *k.loop;
    std::vector<ArrayStreams> out;
    for (const ArrayDecl& decl : n.arrays) {
        std::vector<long> strides(decl.dims.size(), 1);
        for (std::size_t d = decl.dims.size(); d-- > 1;)
            strides[d - 1] = strides[d] * decl.dims[d];
        using Offset = std::pair<long, std::vector<long>>;
        std::set<Offset, std::greater<>> reads, writes, all;
        std::vector<std::string> idx;
        for (const ArrayAccess& a : n.accesses) {
            if (a.array != decl.name)
                continue;
            idx = a.indices.empty()
                      ? std::vector<std::string>(n.indices.end() - static_cast<long>(a.offsets.size()),
                                                 n.indices.end())
                      : a.indices;
            long lin = 0;
            for (std::size_t d = 0; d < a.offsets.size(); ++d)
                lin += a.offsets[d] * strides[d];
            const Offset o{lin, a.offsets};
            (a.write ? writes : reads).insert(o);
            all.insert(o);
        }
        if (all.empty())
            continue;
        ArrayStreams s;
        s.element_bytes = type_bytes(decl.type, file_of(k), "loop.arrays." + decl.name + ".type");
        auto dist = [&](const std::set<Offset, std::greater<>>& set) {
            return distances(std::vector<Offset>(set.begin(), set.end()), idx, n, s.element_bytes);
        };
        std::set<Offset, std::greater<>> loads = reads;
        if (!k.nt_stores)
            loads.insert(writes.begin(), writes.end());
        s.all = dist(all);
        s.loads = dist(loads);
        s.stores = dist(writes);
        s.reads = dist(reads);
        out.push_back(s);
    }
    return out;
}

double requirement(const std::vector<ArrayStreams>& arrays, double t) {
    double req = 0;
    for (const auto& a : arrays)
        for (const auto& d : a.all)
            req += d.bytes <= t ? d.bytes : t;
    return req;
}

struct Condition {
    double t = 0;                        // largest reuse distance kept (bytes)
    double required = 0;                 // cache bytes that keeping it needs
    int layer = 0;                       // "k-D layer condition holds"; 0: none
    std::optional<double> next_required; // bytes the next condition would need
};

Condition condition_for(const std::vector<ArrayStreams>& arrays, double capacity) {
    std::set<double> candidates{0.0};
    for (const auto& a : arrays)
        for (const auto& d : a.all)
            if (std::isfinite(d.bytes))
                candidates.insert(d.bytes);
    Condition c;
    for (double t : candidates) {
        const double req = requirement(arrays, t);
        if (req <= capacity) {
            c.t = t;
            c.required = req;
        } else {
            c.next_required = req;
            break;
        }
    }
    for (const auto& a : arrays)
        for (const auto& d : a.all)
            if (d.bytes <= c.t)
                c.layer = std::max(c.layer, d.layer);
    return c;
}

struct Misses {
    double bytes = 0;
    double store_bytes = 0;
    double elements = 0;
};

Misses misses(const std::vector<ArrayStreams>& arrays, double t) {
    Misses m;
    for (const auto& a : arrays) {
        for (const auto* list : {&a.loads, &a.stores}) {
            for (const auto& d : *list) {
                if (d.bytes > t) {
                    m.bytes += a.element_bytes;
                    m.elements += 1;
                    if (list == &a.stores)
                        m.store_bytes += a.element_bytes;
                }
            }
        }
    }
    return m;
}

struct Capacity {
    double bytes = 0;
    std::string text;
};

Capacity capacity_of(const core::Machine& m, std::size_t level_index, int threads, double safety,
                     const std::string& machine_label) {
    const core::Level& lv = m.levels[level_index];
    double size = 0;
    int sharers = 1;
    const core::CacheInfo* info = nullptr;
    if (m.topology)
        for (const auto& c : m.topology->caches)
            if (c.name == lv.name)
                info = &c;
    if (info) {
        size = static_cast<double>(info->usable_bytes());
        // Threads are placed compactly (OMP_PROC_BIND=close): up to shared_by_cores threads share one
        // instance, and each gets an equal share of it.
        sharers = std::clamp(threads, 1, std::max(1, info->shared_by_cores));
    } else if (lv.size_bytes) {
        size = static_cast<double>(*lv.size_bytes);
    } else {
        throw core::InputError(machine_label, fmt::format("levels[{}].size_bytes", level_index),
                               "missing: the loop-nest kernel's layer conditions need the size of cache '" +
                                   lv.name + "' (or topology.caches)");
    }
    Capacity c;
    c.bytes = safety * size / sharers;
    c.text = fmt::format("{:g} % of {}{}", safety * 100, core::format_size(size),
                         sharers > 1 ? fmt::format(" / {} threads", sharers) : "");
    return c;
}

std::string condition_name(int layer) {
    return layer == 0 ? "no layer condition" : fmt::format("the {}-D layer condition", layer);
}

Traffic loop_traffic(const KernelSpec& k, const core::Machine& m, int threads,
                     const std::string& machine_label) {
    Traffic t;
    const auto arrays = streams_of(k);
    double l1_bytes = 0;
    double l1_store_bytes = 0;
    double l1_elements = 0;
    for (const auto& a : arrays) {
        const double n = static_cast<double>(a.reads.size() + a.stores.size());
        l1_bytes += n * a.element_bytes;
        l1_store_bytes += static_cast<double>(a.stores.size()) * a.element_bytes;
        l1_elements += n;
    }
    t.bytes[m.levels.front().name] = l1_bytes;
    t.write_bytes[m.levels.front().name] = l1_store_bytes;
    std::vector<double> miss_elements{l1_elements};
    for (std::size_t i = 1; i < m.levels.size(); ++i) {
        const Capacity cap = capacity_of(m, i - 1, threads, k.loop->safety_factor, machine_label);
        const Condition c = condition_for(arrays, cap.bytes);
        const Misses ms = misses(arrays, c.t);
        t.bytes[m.levels[i].name] = ms.bytes;
        t.write_bytes[m.levels[i].name] = ms.store_bytes;
        miss_elements.push_back(ms.elements);
        std::string note = fmt::format(
            "{}: {} holds in {} ({} needs {} <= {})", m.levels[i].name, condition_name(c.layer),
            m.levels[i - 1].name, c.layer == 0 ? "nothing" : "it", core::format_size(c.required), cap.text);
        if (c.next_required)
            note += fmt::format("; the next one would need {}", core::format_size(*c.next_required));
        note += fmt::format(" -> {:g} B/iteration", ms.bytes);
        t.notes.push_back(note);
        if (i == 1) {
            // L1 reuses in the array-count vocabulary: hits of the innermost loop are short-distance,
            // hits carried by an outer loop long-distance.
            double shorts = 0, longs = 0;
            for (const auto& a : arrays)
                for (const auto& d : a.reads)
                    if (d.bytes <= c.t)
                        (d.layer <= 1 ? shorts : longs) += 1;
            t.accesses["L1_short"] = shorts;
            t.accesses["L1_long"] = longs;
        }
    }
    // Element accesses served by each level beyond L1: what misses above it minus what misses below it.
    for (std::size_t i = 1; i < m.levels.size(); ++i) {
        const double below = i + 1 < m.levels.size() ? miss_elements[i + 1] : 0.0;
        t.accesses[m.levels[i].name] = miss_elements[i] - below;
    }
    if (k.nt_stores)
        t.notes.push_back("non-temporal stores: no write-allocate traffic");
    return t;
}

} // namespace

Traffic derive_traffic(const KernelSpec& k, const core::Machine& m, int threads) {
    return derive_traffic(k, m, threads, m.name);
}

Traffic derive_traffic(const KernelSpec& k, const core::Machine& m, int threads,
                       const std::string& machine_label) {
    check_kernel(k);
    if (m.levels.empty())
        throw core::InputError(machine_label, "levels", "expected at least one level (MEM)");
    const int n_threads = resolve(m, threads);
    Traffic t;
    if (!k.explicit_bytes.empty())
        t = explicit_traffic(k, m);
    else if (k.arrays)
        t = count_traffic(k, m);
    else
        t = loop_traffic(k, m, n_threads, machine_label);
    const bool any =
        std::any_of(t.bytes.begin(), t.bytes.end(), [](const auto& kv) { return kv.second > 0; });
    if (!any)
        throw core::InputError(file_of(k),
                               !k.explicit_bytes.empty() ? "bytes_per_iteration"
                               : k.arrays                ? "arrays"
                                                         : "loop",
                               "the kernel's traffic is zero at every level; nothing to model");
    return t;
}

} // namespace roofcast::model
