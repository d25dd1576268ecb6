#include "measure/peak_kernels.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

#if !defined(__x86_64__)
#error "roofcast's peak kernels are written for x86-64"
#endif

namespace roofcast::measure {
namespace {

// --- ISA tags: the register width in bytes (0 = one element in a scalar register) and the gcc target
// the variant is compiled for. Variants are built with per-function target attributes and chosen at run
// time from CPUID, so one binary serves every x86-64 CPU.
template <std::size_t Bytes> struct IsaTag {
    static constexpr std::size_t bytes = Bytes;
    static constexpr const char* name = Bytes == 0    ? "scalar"
                                        : Bytes == 16 ? "sse"
                                        : Bytes == 32 ? "avx2"
                                                      : "avx512";
};
using Scalar = IsaTag<0>;
using Sse = IsaTag<16>;
using Avx2 = IsaTag<32>;
using Avx512 = IsaTag<64>;

// --- Op tags. Roofline ceilings (Williams et al., CACM 2009, section 4): FMA is the peak; ADD-only and
// MUL-only use half of an FMA pipe's flops; balanced ADD+MUL is the classic "mul/add balance" ceiling;
// "chain" is the no-ILP ceiling (one dependent chain, bound by the FMA latency).
// k_accumulators covers latency x throughput: 2 FMA pipes x 4-cycle latency = 8 in flight on current
// Intel and AMD cores; 12 leaves margin for add/mul latencies up to 4 on 3 pipes and fits in 14 of the
// 16 architectural registers of SSE (two more hold the operands b and c).
constexpr int k_accumulators = 12;
constexpr int k_unroll = 4;       // op applications per accumulator per trip: loop overhead < 1/24 of uops
constexpr int k_chain_unroll = 8; // the dependent chain is latency bound; unrolled only to amortise the loop

// What every op tag says besides its name and operation: flops per application, independent accumulators,
// applications per accumulator and trip, and whether it needs FMA3.
template <int Flops, int Accumulators, int Unroll, bool NeedsFma> struct OpShape {
    static constexpr int flops_per_op = Flops;
    static constexpr int accumulators = Accumulators;
    static constexpr int unroll = Unroll;
    static constexpr bool needs_fma = NeedsFma;
};

struct Fma : OpShape<2, k_accumulators, k_unroll, true> {
    static constexpr const char* name = "fma";
    template <class V> [[gnu::always_inline]] static void apply(V& a, const V& b, const V& c, int) {
        a = a * b + c; // contracted to one fused multiply-add (checked in tests/measure/test_peak_kernels)
    }
};
struct Add : OpShape<1, k_accumulators, k_unroll, false> {
    static constexpr const char* name = "add";
    template <class V> [[gnu::always_inline]] static void apply(V& a, const V&, const V& c, int) {
        a = a + c;
    }
};
struct Mul : OpShape<1, k_accumulators, k_unroll, false> {
    static constexpr const char* name = "mul";
    template <class V> [[gnu::always_inline]] static void apply(V& a, const V& b, const V&, int) {
        a = a * b;
    }
};
struct AddMul : OpShape<1, k_accumulators, k_unroll, false> {
    static constexpr const char* name = "addmul";
    template <class V> [[gnu::always_inline]] static void apply(V& a, const V& b, const V& c, int k) {
        a = k % 2 == 0 ? a + c : a * b; // even accumulators add, odd ones multiply: 1:1 balance
    }
};
struct Chain : OpShape<2, 1, k_chain_unroll, true> {
    static constexpr const char* name = "chain";
    template <class V> [[gnu::always_inline]] static void apply(V& a, const V& b, const V& c, int) {
        a = a * b + c;
    }
};

template <class Isa, class T> struct Reg { typedef T type __attribute__((vector_size(Isa::bytes))); };
template <class T> struct Reg<Scalar, T> { using type = T; };

template <class T> [[gnu::always_inline]] inline T opaque(T v) {
    asm volatile("" : "+m"(v)); // the compiler cannot know the operand values, so cannot fold the ops
    return v;
}

// The one peak kernel template. The operand values keep every accumulator finite and normal for any
// trip count used here: b = 1 + 2^-24 grows a product by at most e^(2^-24 * 1e7) < 2 per call, c = 2^-24.
template <class Isa, class T, class Op, int Acc>
[[gnu::always_inline]] inline double peak_body(std::uint64_t iterations) {
    using V = typename Reg<Isa, T>::type;
    const V b = V{} + opaque<T>(T(1) + T(0x1p-24));
    const V c = V{} + opaque<T>(T(0x1p-24));
    // A plain array, not std::array: element access must never be a call (sanitizer builds keep
    // std::array::operator[] out of line, which would put the accumulators in memory).
    V a[Acc];
#pragma GCC unroll 64
    for (int k = 0; k < Acc; ++k)
        a[k] = V{} + static_cast<T>(k + 1);
    for (std::uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 64
        for (int u = 0; u < Op::unroll; ++u) {
#pragma GCC unroll 64
            for (int k = 0; k < Acc; ++k)
                Op::apply(a[k], b, c, k);
        }
    }
    // Reduce the accumulators to one register first, then its lanes: indexing lanes of the array
    // itself would make gcc -O2 keep the array in memory and store it on every trip.
    V total = a[0];
#pragma GCC unroll 64
    for (int k = 1; k < Acc; ++k)
        total += a[k];
    double sum = 0;
    if constexpr (std::is_same_v<V, T>) {
        sum = static_cast<double>(total);
    } else {
        for (std::size_t l = 0; l < Isa::bytes / sizeof(T); ++l)
            sum += static_cast<double>(total[l]);
    }
    return sum;
}

// Per-ISA entry points: each only compiles the one template for its target.
template <class Isa, class T, class Op, int Acc>
[[gnu::noinline, gnu::target("avx512f")]] double run_avx512(std::uint64_t n) {
    return peak_body<Isa, T, Op, Acc>(n);
}
template <class Isa, class T, class Op, int Acc>
[[gnu::noinline, gnu::target("avx2,fma")]] double run_avx2(std::uint64_t n) {
    return peak_body<Isa, T, Op, Acc>(n);
}
// Scalar and 128-bit fused multiply-add need FMA3 (VEX encoded); the other scalar/SSE ops use the
// x86-64 baseline (SSE2) encoding.
template <class Isa, class T, class Op, int Acc>
[[gnu::noinline, gnu::target("fma")]] double run_fma3(std::uint64_t n) {
    return peak_body<Isa, T, Op, Acc>(n);
}
template <class Isa, class T, class Op, int Acc> [[gnu::noinline]] double run_baseline(std::uint64_t n) {
    return peak_body<Isa, T, Op, Acc>(n);
}

template <class Isa, class T, class Op, int Acc = Op::accumulators> PeakKernel make_kernel() {
    PeakKernel k;
    k.decl.isa = Isa::name;
    k.decl.precision = std::is_same_v<T, double> ? "double" : "single";
    k.decl.op = Op::name;
    k.decl.accumulators = Acc;
    k.decl.unroll = Op::unroll;
    k.decl.lanes = Isa::bytes == 0 ? 1 : static_cast<int>(Isa::bytes / sizeof(T));
    k.decl.flops_per_op = Op::flops_per_op;
    if constexpr (std::is_same_v<Isa, Avx512>) {
        k.decl.target = "avx512f";
        k.run = &run_avx512<Isa, T, Op, Acc>;
    } else if constexpr (std::is_same_v<Isa, Avx2>) {
        k.decl.target = "avx2,fma";
        k.run = &run_avx2<Isa, T, Op, Acc>;
    } else if constexpr (Op::needs_fma) {
        k.decl.target = "fma";
        k.run = &run_fma3<Isa, T, Op, Acc>;
    } else {
        k.decl.target = "";
        k.run = &run_baseline<Isa, T, Op, Acc>;
    }
    return k;
}

template <class Isa, class T> void add_ops(std::vector<PeakKernel>& out) {
    out.push_back(make_kernel<Isa, T, Fma>());
    out.push_back(make_kernel<Isa, T, Add>());
    out.push_back(make_kernel<Isa, T, Mul>());
    out.push_back(make_kernel<Isa, T, AddMul>());
    out.push_back(make_kernel<Isa, T, Chain>());
}

template <class Isa> void add_isa(std::vector<PeakKernel>& out) {
    add_ops<Isa, double>(out);
    add_ops<Isa, float>(out);
}

std::vector<PeakKernel> build_table() {
    std::vector<PeakKernel> out;
    add_isa<Scalar>(out);
    add_isa<Sse>(out);
    add_isa<Avx2>(out);
    add_isa<Avx512>(out);
    return out;
}

template <int... Acc> std::vector<PeakKernel> build_sweep(std::integer_sequence<int, Acc...>) {
    return {make_kernel<Avx512, double, Fma, Acc>()...};
}

bool cpu_supports_target(const std::string& target) {
    __builtin_cpu_init();
    if (target.empty())
        return true; // x86-64 baseline
    if (target == "fma")
        return __builtin_cpu_supports("fma");
    if (target == "avx2,fma")
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (target == "avx512f")
        return __builtin_cpu_supports("avx512f");
    return false;
}

} // namespace

double peak_flops(const PeakKernelDecl& decl, std::uint64_t iterations) {
    return static_cast<double>(decl.accumulators) * decl.unroll * decl.lanes * decl.flops_per_op *
           static_cast<double>(iterations);
}

bool PeakKernel::available_on_this_cpu() const {
    return cpu_supports_target(decl.target);
}

const std::vector<PeakKernel>& peak_kernels() {
    static const std::vector<PeakKernel> table = build_table();
    return table;
}

const PeakKernel* find_peak_kernel(const std::string& isa, const std::string& precision,
                                   const std::string& op) {
    for (const PeakKernel& k : peak_kernels())
        if (k.decl.isa == isa && k.decl.precision == precision && k.decl.op == op)
            return &k;
    return nullptr;
}

const std::vector<PeakKernel>& accumulator_sweep_kernels() {
    static const std::vector<PeakKernel> table =
        build_sweep(std::integer_sequence<int, 1, 2, 4, 6, 8, 10, 12, 16, 20, 24>{});
    return table;
}

} // namespace roofcast::measure
