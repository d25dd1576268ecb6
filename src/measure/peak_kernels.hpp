// The peak-FLOP kernels behind the compute ceilings. Every variant (ISA x precision x op) is generated
// from one template in peak_kernels.cpp; each variant declares its shape once (PeakKernelDecl), and the
// flop count of a call is derived from that declaration by peak_flops() alone.
//
// Contract: PeakKernel::run(iterations) performs exactly `iterations` trips of the kernel loop; each trip
// applies the op `unroll` times to each of `accumulators` independent registers of `lanes` elements.
// The returned value depends on every accumulator so the work cannot be removed; callers only need to
// keep it alive. A kernel may be called only when available_on_this_cpu() says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace roofcast::measure {

struct PeakKernelDecl {
    std::string isa;       // scalar | sse | avx2 | avx512
    std::string precision; // double | single
    std::string op;        // fma | add | mul | addmul | chain
    int accumulators = 1;  // independent dependency chains (latency x throughput must be covered)
    int unroll = 1;        // op applications per accumulator per loop trip
    int lanes = 1;         // elements per register
    int flops_per_op = 1;  // 2 for a fused multiply-add, 1 for add or mul
    std::string target;    // the gcc target the variant is compiled for ("" = baseline x86-64)
};

// Floating-point operations of `iterations` loop trips:
// accumulators x unroll x lanes x flops_per_op x iterations.
double peak_flops(const PeakKernelDecl& decl, std::uint64_t iterations);

struct PeakKernel {
    PeakKernelDecl decl;
    double (*run)(std::uint64_t iterations) = nullptr;
    bool available_on_this_cpu() const;
};

// Every variant, ISAs narrowest first, then precision (double, single), then op in known_ops() order.
const std::vector<PeakKernel>& peak_kernels();
// The variant for (isa, precision, op), or nullptr when there is none.
const PeakKernel* find_peak_kernel(const std::string& isa, const std::string& precision,
                                   const std::string& op);

// Variants of the widest double FMA kernel with other accumulator counts (1, 2, 4, 6, 8, 10, 12, 16, 20,
// 24), used to check that the chosen count saturates the FMA pipes (bench and tests only).
const std::vector<PeakKernel>& accumulator_sweep_kernels();

} // namespace roofcast::measure
