// Kernel files and derive_traffic: the three forms, the layer conditions of the 3-D 7-point Jacobi
// stencil, and every bad input named by file and field.
#include "core/error.hpp"
#include "model/access_streams.hpp"
#include "model/kernel.hpp"
#include "model_inputs.hpp"

#include <gtest/gtest.h>
#include <string>

using namespace roofcast;
using test::kernel_from;
using test::machine_from;

namespace {

// Caches chosen so that each level shows a different layer condition for N = 100 (see below).
const char* k_small_caches = R"(format_version: 1
name: small-caches
compute: {peak_gflops: {double: 100}}
levels:
  - {name: L1, bandwidth_gbs: 400, size_bytes: 8KiB}
  - {name: L2, bandwidth_gbs: 200, size_bytes: 64KiB}
  - {name: L3, bandwidth_gbs: 100, size_bytes: 1MiB}
  - {name: MEM, bandwidth_gbs: 20}
)";

std::string jacobi_yaml(bool nt) {
    return std::string(R"(format_version: 1
name: jacobi-3d-7pt
flops_per_iteration: 7
nt_stores: )") +
           (nt ? "true" : "false") +
           R"(
loop:
  indices: [k, j, i]
  bounds: [98, 98, 98]
  arrays:
    - {name: a, type: double, dims: [100, 100, 100]}
    - {name: b, type: double, dims: [100, 100, 100]}
  reads: ["a[k][j][i]", "a[k][j][i-1]", "a[k][j][i+1]", "a[k][j-1][i]", "a[k][j+1][i]", "a[k-1][j][i]",
          "a[k+1][j][i]"]
  writes: ["b[k][j][i]"]
)";
}

} // namespace

// Reuse distances of a (N = 100, 8-byte elements), sorted offsets N^2, N, 1, 0, -1, -N, -N^2:
//   8(N^2-N) = 79200 B (3-D), 8(N-1) = 792 B (2-D), 8, 8 (1-D), 792, 79200, and infinity for the
//   leading access; b has one access, distance infinity.
// Cache requirement sum_{d<=t} d + t * #{d>t}:
//   t = 8:     16 + 6 * 8                        =     64 B  (1-D condition)
//   t = 792:   16 + 2*792 + 4*792                =   4768 B  (2-D condition, 48N - 32)
//   t = 79200: 16 + 4*792 + 2*79200 + 2*79200    = 318400 B  (3-D condition, 32N^2 - 16N)
// Capacities at safety 0.5: L1 8 KiB -> 4096 B (only 1-D), L2 64 KiB -> 32768 B (2-D),
// L3 1 MiB -> 524288 B (3-D).
TEST(LayerConditions, JacobiWriteAllocate) {
    const auto m = machine_from(k_small_caches);
    const auto t = model::derive_traffic(kernel_from(jacobi_yaml(false)), m, 1);
    // L1: 7 loads + 1 store of 8 B.
    EXPECT_DOUBLE_EQ(t.bytes.at("L1"), 64);
    // L2 (served through L1's 1-D condition): a streams at i+1, j+-1, k+-1 = 5 loads, b store +
    // write-allocate = 2: (5 + 2 + 1) * 8 = 56 B.
    EXPECT_DOUBLE_EQ(t.bytes.at("L2"), 56);
    // L3 (L2 keeps the 2-D condition): a streams at j+1 row, k+-1 = 3 loads: (3 + 2) * 8 = 40 B.
    EXPECT_DOUBLE_EQ(t.bytes.at("L3"), 40);
    // MEM (L3 keeps the 3-D condition): one stream of a: (1 + 2) * 8 = 24 B.
    EXPECT_DOUBLE_EQ(t.bytes.at("MEM"), 24);
    ASSERT_EQ(t.notes.size(), 3u);
    EXPECT_NE(t.notes[0].find("the 1-D layer condition holds in L1"), std::string::npos) << t.notes[0];
    EXPECT_NE(t.notes[1].find("the 2-D layer condition holds in L2"), std::string::npos) << t.notes[1];
    EXPECT_NE(t.notes[2].find("the 3-D layer condition holds in L3"), std::string::npos) << t.notes[2];
}

TEST(LayerConditions, JacobiNonTemporalStores) {
    const auto m = machine_from(k_small_caches);
    const auto t = model::derive_traffic(kernel_from(jacobi_yaml(true)), m, 1);
    // 3-D condition in L3, no write-allocate: one load stream of a + one store of b = 16 B.
    EXPECT_DOUBLE_EQ(t.bytes.at("MEM"), 16);
    // 2-D in L2: 3 load streams + 1 store = 32 B.
    EXPECT_DOUBLE_EQ(t.bytes.at("L3"), 32);
}

TEST(LayerConditions, SharedCacheIsDividedAmongThreads) {
    // L3 of 1 MiB shared by 4 cores: with 4 threads each gets 0.5 * 1 MiB / 4 = 131072 B < 318400 B,
    // so only the 2-D condition holds there (4768 B fits) and MEM traffic is 40 B instead of 24 B.
    const auto m = machine_from(std::string(k_small_caches) + R"(
topology:
  cores: 4
  caches:
    - {name: L1, size_bytes: 8KiB, shared_by_cores: 1, instances: 4}
    - {name: L2, size_bytes: 64KiB, shared_by_cores: 1, instances: 4}
    - {name: L3, size_bytes: 1MiB, shared_by_cores: 4, instances: 1}
)");
    const auto k = kernel_from(jacobi_yaml(false));
    EXPECT_DOUBLE_EQ(model::derive_traffic(k, m, 1).bytes.at("MEM"), 24);
    EXPECT_DOUBLE_EQ(model::derive_traffic(k, m, 4).bytes.at("MEM"), 40);
    EXPECT_DOUBLE_EQ(model::derive_traffic(k, m, 0).bytes.at("MEM"), 40); // 0 = all 4 cores
}

TEST(LayerConditions, NeitherConditionWhenCacheTiny) {
    // Capacity 0.5 * 64 B = 32 B < 64 B: not even the 1-D condition holds; all 7 reads of a stream,
    // plus store and write-allocate of b: (7 + 2) * 8 = 72 B.
    const auto m = machine_from(R"(format_version: 1
name: tiny
compute: {peak_gflops: {double: 1}}
levels:
  - {name: L1, bandwidth_gbs: 10, size_bytes: 64}
  - {name: MEM, bandwidth_gbs: 1}
)");
    const auto t = model::derive_traffic(kernel_from(jacobi_yaml(false)), m, 1);
    EXPECT_DOUBLE_EQ(t.bytes.at("MEM"), 72);
    EXPECT_NE(t.notes[0].find("no layer condition holds"), std::string::npos) << t.notes[0];
}

TEST(KernelFile, AccessSubscriptsAreParsedAsIndexPlusOffset) {
    const auto k = kernel_from(R"(format_version: 1
name: parse
flops_per_iteration: 1
loop:
  indices: [j, i]
  bounds: [10, 10]
  arrays: [{name: a, type: float, dims: [12, 12]}]
  reads: ["a[j - 1][ i + 2 ]", "a[-1+j][1+i]"]
  writes: ["a[j][i]"]
)");
    ASSERT_EQ(k.loop->accesses.size(), 3u);
    EXPECT_EQ(k.loop->accesses[0].offsets, (std::vector<long>{-1, 2}));
    EXPECT_EQ(k.loop->accesses[1].offsets, (std::vector<long>{-1, 1}));
    EXPECT_EQ(k.loop->accesses[1].indices, (std::vector<std::string>{"j", "i"}));
    EXPECT_TRUE(k.loop->accesses[2].write);
    // Derived totals: 10 * 10 = 100 iterations; one array of 12 * 12 floats of 4 B = 576 B.
    EXPECT_DOUBLE_EQ(*model::iterations_of(k), 100);
    EXPECT_DOUBLE_EQ(*model::working_set_of(k), 576);
}

TEST(KernelFile, ProgrammaticDeclarationMatchesTheFile) {
    // The built-in suite declares kernels in code: the same Jacobi as a KernelSpec gives the same traffic.
    model::KernelSpec k;
    k.name = "jacobi";
    k.flops_per_iteration = 7;
    model::LoopNest n;
    n.indices = {"k", "j", "i"};
    n.bounds = {98, 98, 98};
    n.arrays = {{"a", "double", {100, 100, 100}}, {"b", "double", {100, 100, 100}}};
    for (auto off : std::vector<std::vector<long>>{
             {0, 0, 0}, {0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0}})
        n.accesses.push_back({"a", off, false, {}});
    n.accesses.push_back({"b", {0, 0, 0}, true, {}});
    k.loop = n;
    const auto m = machine_from(k_small_caches);
    const auto from_code = model::derive_traffic(k, m, 1);
    const auto from_file = model::derive_traffic(kernel_from(jacobi_yaml(false)), m, 1);
    EXPECT_EQ(from_code.bytes, from_file.bytes);
    // A write-fraction is known for loop nests: MEM moves 24 B of which 8 B are stored.
    EXPECT_DOUBLE_EQ(from_code.write_bytes.at("MEM"), 8);
}

TEST(KernelFile, InterleavedArraysAreOneStreamAndTheirTrafficIsUnchanged) {
    const std::string head = R"(format_version: 1
name: merged
flops_per_iteration: 1
loop:
  indices: [i]
  bounds: [100]
  arrays: [{name: a, dims: [100]}, {name: b, dims: [100]}, {name: c, dims: [100]}]
  reads: ["a[i]", "b[i]"]
  writes: ["c[i]"]
)";
    const auto plain = kernel_from(head);
    const auto merged = kernel_from(head + "  interleaved: [[a, b]]\n");
    ASSERT_EQ(merged.loop->interleaved.size(), 1u);
    EXPECT_EQ(model::innermost_streams(*plain.loop).total(), 3);
    EXPECT_EQ(model::innermost_streams(*merged.loop).total(), 2);
    EXPECT_DOUBLE_EQ(*model::working_set_of(merged), *model::working_set_of(plain));
    try {
        kernel_from(head + "  interleaved: [[a, x]]\n");
        ADD_FAILURE() << "an undeclared array in a group was accepted";
    } catch (const core::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("loop.interleaved[0]"), std::string::npos) << e.what();
    }
    EXPECT_THROW(kernel_from(head + "  interleaved: [[a]]\n"), core::InputError);
    EXPECT_THROW(kernel_from(head + "  interleaved: [[a, b], [b, c]]\n"), core::InputError);
}

TEST(KernelFile, EveryNumericFieldHasARange) {
    // docs/formats.md, "Kernel file": one error line naming the file, the field and the range.
    const std::string head = "format_version: 1\nname: k\nflops_per_iteration: ";
    const std::string mem = "bytes_per_iteration: {MEM: 8}\n";
    const auto loop = [&](const std::string& bounds, const std::string& dims, const std::string& access) {
        return head + "2\nloop:\n  indices: [j, i]\n  bounds: [" + bounds +
               "]\n  arrays: [{name: a, dims: [" + dims + "]}]\n  reads: [\"" + access + "\"]\n";
    };
    const std::pair<std::string, std::string> cases[] = {
        {head + "1e31\n" + mem,
         "k.yaml: field 'flops_per_iteration': expected a non-negative number at most 1e+30, got 1e31"},
        {head + "2\niterations: 1e19\n" + mem,
         "k.yaml: field 'iterations': expected a positive number at most 9.22337e+18, got 1e19"},
        {head + "2\nworking_set: 2048TiB\n" + mem,
         "k.yaml: field 'working_set': expected a size of at most 2^50 bytes (1 PiB), got 2048TiB"},
        {head + "2\nbytes_per_iteration: {MEM: -8}\n",
         "k.yaml: field 'bytes_per_iteration.MEM': expected a non-negative number at most 1e+30, got -8"},
        {head + "2\narrays: {MEM: 2e30}\n",
         "k.yaml: field 'arrays.MEM': expected a non-negative number at most 1e+30, got 2e30"},
        {head + "2\narrays: {MEM: 2}\nelement_bytes: 8192\n",
         "k.yaml: field 'element_bytes': expected a positive number at most 4096, got 8192"},
        {loop("10, 0", "10, 10", "a[j][i]"),
         "k.yaml: field 'loop.bounds[1]': expected a trip count of at least 1, got 0"},
        {loop("4000000000, 4000000000", "10, 10", "a[j][i]"),
         "k.yaml: field 'loop.bounds': expected trip counts whose product (the iterations) is at most 2^63 = "
         "9.22337e+18, got 1.6e+19"},
        {loop("10, 10", "10, 0", "a[j][i]"),
         "k.yaml: field 'loop.arrays[0].dims[1]': expected a whole number from 1 to 1125899906842624, got 0"},
        {loop("10, 10", "1000000000, 1000000000", "a[j][i]"),
         "k.yaml: field 'loop.arrays[0].dims': expected an array of at most 2^50 bytes (1 PiB), got 8e+18 "
         "bytes "
         "(array 'a')"},
        {loop("10, 10", "10, 10", "a[j-10][i]"),
         "k.yaml: field 'loop.reads[0]': array 'a': offset -10 in dimension 1 misses the array (expected an "
         "offset of magnitude below its extent 10)"},
        // An offset past any array is refused while parsing, before it can overflow (it used to end the
        // program with a bare "stol").
        {loop("10, 10", "10, 10", "a[j][i+99999999999999999999]"),
         "k.yaml: field 'loop.reads[0]': offset out of range in 'a[j][i+99999999999999999999]': expected "
         "offsets of at most 1125899906842624 elements (2^50) in magnitude"},
    };
    for (const auto& [text, message] : cases)
        EXPECT_EQ(test::input_error_of([&] { kernel_from(text); }), message) << text;
    // The largest values in range are accepted, and so is a subscript's offset of extent - 1.
    EXPECT_NO_THROW(kernel_from(head + "1e30\niterations: 9.2e18\nbytes_per_iteration: {MEM: 1e30}\n"));
    EXPECT_NO_THROW(kernel_from(loop("10, 10", "10, 10", "a[j-9][i+9]")));
    // Declarations in code (the built-in suite) are held to the same ranges by check_kernel.
    model::KernelSpec k;
    k.name = "code";
    k.flops_per_iteration = 2;
    k.explicit_bytes["MEM"] = 2e30;
    EXPECT_EQ(
        test::input_error_of([&] { model::check_kernel(k); }),
        "code: field 'bytes_per_iteration.MEM': expected a non-negative number at most 1e+30, got 2e+30");
}

TEST(KernelFile, AMisspeltKeyIsNamedWithItsPath) {
    const auto root = core::YamlField::load_text(R"(format_version: 1
name: k
flops_per_iteration: 1
loop:
  indices: [i]
  bounds: [100]
  arrays: [{name: a, dims: [100], typ: float}]
  reads: ["a[i]"]
  safty_factor: 0.3
)",
                                                 "k.yaml");
    (void)model::kernel_from_yaml(root);
    EXPECT_EQ(root.unread_keys(), (std::vector<std::string>{"loop.arrays[0].typ", "loop.safty_factor"}));
}
