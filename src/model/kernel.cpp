#include "model/kernel.hpp"
#include "model/kernel_detail.hpp"

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

using detail::file_of;
using detail::k_l1_reuse_keys;
using detail::level_list;

namespace {

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

} // namespace roofcast::model
